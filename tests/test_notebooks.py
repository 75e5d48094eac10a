"""The example notebooks (docs/notebooks/) are stored without outputs, and the documentation
site runs them.

They run where the site is built (`make docs`, part of `make test`): MyST-NB executes each one
and an error in a cell fails the build, so the pages show outputs of the code as it is. Here:
what is committed carries no outputs or execution counts (a notebook saved after running it
would otherwise put stale numbers in the tree), every notebook is on the site, and the site's
configuration still runs them and fails on an error.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

DOCS = Path(__file__).parents[1] / "docs"
NOTEBOOKS = sorted((DOCS / "notebooks").glob("*.ipynb"))


def test_there_are_the_three_notebooks():
    assert [p.stem for p in NOTEBOOKS] == [
        "controller-vs-tcp",
        "first-run",
        "reproduce-a-figure",
    ]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_a_notebook_is_stored_without_outputs(path):
    nb = json.loads(path.read_text(encoding="utf-8"))
    assert nb["metadata"]["kernelspec"]["name"] == "python3"
    assert nb["cells"][0]["cell_type"] == "markdown"
    assert nb["cells"][0]["source"][0].startswith("# "), "the first cell is the page's title"
    for i, cell in enumerate(nb["cells"]):
        if cell["cell_type"] != "code":
            continue
        assert cell.get("outputs") == [], f"{path.name}: cell {i} has outputs"
        assert cell.get("execution_count") is None, f"{path.name}: cell {i} has a count"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_a_notebook_is_in_the_sites_contents(path):
    assert f"notebooks/{path.stem}\n" in (DOCS / "index.md").read_text(encoding="utf-8")


def test_the_site_runs_every_notebook_and_fails_on_an_error():
    """The settings of docs/conf.py (read, not imported: it needs Sphinx's extensions)."""
    tree = ast.parse((DOCS / "conf.py").read_text(encoding="utf-8"))
    settings = {
        node.targets[0].id: ast.literal_eval(node.value)
        for node in tree.body
        if isinstance(node, ast.Assign)
        and isinstance(node.targets[0], ast.Name)
        and node.targets[0].id.startswith("nb_")
    }
    assert settings["nb_execution_mode"] == "force"
    assert settings["nb_execution_raise_on_error"] is True
