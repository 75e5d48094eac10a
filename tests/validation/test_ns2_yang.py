"""Yang et al.'s Table 1 smoothness beside ns-2.35: docs/validation.md's table is the output of
`python bench/ns2_compare_yang.py` (make validate installs ns-2.35; without `ns` this fails)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from docpages import marked

ROOT = Path(__file__).parents[2]


@pytest.mark.slow
def test_the_validation_page_table_is_the_output_of_the_bench():
    assert shutil.which("ns"), "ns-2.35 is needed: make ns2"
    pasted = marked("validation.md", "python bench/ns2_compare_yang.py")
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "ns2_compare_yang.py")],
        capture_output=True,
        text=True,
        timeout=900,
        check=True,
    )
    assert pasted == done.stdout, "stale: paste the output of bench/ns2_compare_yang.py"
