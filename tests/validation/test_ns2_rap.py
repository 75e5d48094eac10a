"""RAP with ns-2's timers beside ns-2.35's Agent/RAP: docs/validation.md's table is the output of
`python bench/ns2_compare_rate.py --rap` (make validate installs ns-2.35; without `ns` this
fails)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from docpages import marked

ROOT = Path(__file__).parents[2]
COMMAND = "python bench/ns2_compare_rate.py --rap"


@pytest.mark.slow
def test_the_validation_page_table_is_the_output_of_the_bench():
    assert shutil.which("ns"), "ns-2.35 is needed: make ns2"
    pasted = marked("validation.md", COMMAND)
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "ns2_compare_rate.py"), "--rap"],
        capture_output=True,
        text=True,
        timeout=1800,
        check=True,
    )
    assert pasted == done.stdout, f"stale: paste the output of {COMMAND}"
