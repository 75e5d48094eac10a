"""The rate-based controls beside ns-2.35: docs/validation.md's two tables are the output of
`python bench/ns2_compare_rate.py` (TFRC alone, TFRC + TCP and RAP + TCP) and of its `--rap`
view (RAP with ns-2's timers beside ns-2.35's Agent/RAP); make validate installs ns-2.35,
without `ns` this fails."""

from __future__ import annotations

import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from docpages import marked

ROOT = Path(__file__).parents[2]


@pytest.mark.slow
@pytest.mark.parametrize(
    "command", ["python bench/ns2_compare_rate.py", "python bench/ns2_compare_rate.py --rap"]
)
def test_the_validation_page_table_is_the_output_of_the_bench(command):
    assert shutil.which("ns"), "ns-2.35 is needed: make ns2"
    pasted = marked("validation.md", command)
    done = subprocess.run(
        [sys.executable, *shlex.split(command)[1:]],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=3600,
        check=True,
    )
    assert pasted == done.stdout, f"stale: python docs/tables.py --match='{command}'"
