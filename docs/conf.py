"""Sphinx configuration of ccscope's documentation site (`make docs`).

Pages are Markdown (MyST), so they read the same on GitHub; the Python API comes from the
docstrings (autodoc, NumPy sections through napoleon); the CLI and scenario reference pages
are generated at build time by `_ext/ccscope_docs.py` from the CLI's own help and the core's
JSON Schema. `make docs` builds with warnings as errors.

The example notebooks (notebooks/*.ipynb, stored without outputs) are read by MyST-NB, which
runs each one whenever the site is built and fails the build on a cell's error: this is where
CI executes them (`make docs`, part of `make test`), once, and the pages show that run's
outputs.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent / "_ext"))

project = "ccscope"
author = "the ccscope developers"
copyright = "2026, the ccscope developers"  # noqa: A001

extensions = [
    # MyST-NB: MyST Markdown pages (it brings myst_parser) and Jupyter notebooks.
    "myst_nb",
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "ccscope_docs",
]
source_suffix = {".md": "myst-nb", ".ipynb": "myst-nb"}
root_doc = "index"
exclude_patterns = ["_build", "**/.ipynb_checkpoints"]

# `[text](page.md#a-heading)` links resolve to headings down to the third level.
myst_heading_anchors = 3
myst_enable_extensions = ["deflist"]

# Every notebook runs at every build, in a temporary folder of its own (what it writes stays
# out of the tree), and an error in a cell fails the build.
nb_execution_mode = "force"
nb_execution_in_temp = True
nb_execution_raise_on_error = True
nb_execution_timeout = 600

autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_default_options = {"members": True, "show-inheritance": True}
napoleon_google_docstring = False

html_theme = "furo"
html_title = "ccscope"
html_static_path = ["_static"]
html_css_files = ["ccscope.css"]
