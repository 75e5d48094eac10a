"""The validation page's table of the packet-level checks is the output of
`python bench/packet_checks.py`, which measures each check with its test's own functions."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parents[2]
COMMAND = "python bench/packet_checks.py"


def test_the_validation_page_table_is_the_output_of_the_bench():
    begin, end = f"<!-- {COMMAND}: begin -->\n", f"<!-- {COMMAND}: end -->"
    pasted = re.search(
        re.escape(begin) + "(.*?)" + re.escape(end),
        (ROOT / "docs" / "validation.md").read_text(),
        re.S,
    )
    assert pasted, "docs/validation.md has no table of bench/packet_checks.py"
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "packet_checks.py")],
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    )
    assert pasted.group(1) == done.stdout, (
        "stale: run `python docs/tables.py --match=packet_checks`"
    )
