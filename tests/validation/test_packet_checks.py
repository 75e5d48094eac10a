"""The validation page's table of the packet-level checks is the output of
`python bench/packet_checks.py`, which measures each check with its test's own functions."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from docpages import marked

ROOT = Path(__file__).parents[2]
COMMAND = "python bench/packet_checks.py"


def test_the_validation_page_table_is_the_output_of_the_bench():
    pasted = marked("validation.md", COMMAND)
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "packet_checks.py")],
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    )
    assert pasted == done.stdout, "stale: run `python docs/tables.py --match=packet_checks`"
