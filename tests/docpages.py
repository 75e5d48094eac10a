"""The generated blocks of the documentation pages, as the tests read them: a page shows a
command's output between `<!-- COMMAND: begin -->` and `<!-- COMMAND: end -->` (the markers
docs/tables.py writes)."""

from __future__ import annotations

from pathlib import Path

DOCS = Path(__file__).resolve().parents[1] / "docs"


def marked(page: str, command: str) -> str:
    """What docs/`page` shows between the markers of `command`; fails naming both when the page
    has no such block."""
    text = (DOCS / page).read_text()
    begin, end = f"<!-- {command}: begin -->\n", f"<!-- {command}: end -->"
    assert begin in text and end in text, f"docs/{page} has no block of `{command}`"
    return text.split(begin, 1)[1].split(end, 1)[0]
