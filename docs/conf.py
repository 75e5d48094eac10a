"""Sphinx configuration of ccscope's documentation site (`make docs`).

Pages are Markdown (MyST), so they read the same on GitHub; the Python API comes from the
docstrings (autodoc, NumPy sections through napoleon); the CLI and scenario reference pages
are generated at build time by `_ext/ccscope_docs.py` from the CLI's own help and the core's
JSON Schema. `make docs` builds with warnings as errors.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent / "_ext"))

project = "ccscope"
author = "the ccscope developers"
copyright = "2026, the ccscope developers"  # noqa: A001

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "ccscope_docs",
]
source_suffix = {".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build"]

# `[text](page.md#a-heading)` links resolve to headings down to the third level.
myst_heading_anchors = 3
myst_enable_extensions = ["deflist"]

autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_default_options = {"members": True, "show-inheritance": True}
napoleon_google_docstring = False

html_theme = "furo"
html_title = "ccscope"
html_static_path = ["_static"]
html_css_files = ["ccscope.css"]
