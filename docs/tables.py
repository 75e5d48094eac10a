"""Regenerates the tables that the documentation pages show between command markers.

A page holds a command's output between `<!-- COMMAND: begin -->` and `<!-- COMMAND: end -->`
(the validation tables of `ccscope reproduce ... --markdown`, the CUBIC table, the ns-2
comparison of `python bench/ns2_compare_yang.py`); a test compares each with its command where
the command is quick enough for `make test`, and `make validate` runs the long ones. This runs
the commands and pastes their output in place:

    python docs/tables.py --list                     # the commands, page by page
    python docs/tables.py --match="--all --quick"    # rerun those whose command contains it
    python docs/tables.py                            # all of them (the full runs take ~25 min)

The speed page's table is written by bench/speed_page.py from `make bench`'s measurements.
"""

from __future__ import annotations

import argparse
import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MARKED = re.compile(
    r"<!-- (?P<command>[^>]+?): begin -->\n(?P<output>.*?)<!-- (?P=command): end -->", re.S
)


def blocks(page: Path) -> list[str]:
    """The commands whose output `page` shows, in order."""
    return [m["command"] for m in MARKED.finditer(page.read_text())]


#: The reports of each `ccscope reproduce --all ...` run made here, by its options, so that a
#: table and its `--failing` view on the same page come from one run.
_REPORTS: dict[tuple[str, ...], list] = {}


def _reproduce_all(words: list[str]) -> str | None:
    """`ccscope reproduce --all ... --markdown [--failing]` rendered from the run's reports
    (`--json`), made once per set of options; None for any other command."""
    if words[:2] != ["ccscope", "reproduce"] or not {"--all", "--markdown"} <= set(words):
        return None
    options = tuple(w for w in words[2:] if w not in ("--markdown", "--failing"))
    if options not in _REPORTS:
        _REPORTS[options] = json.loads(
            output(shlex.join(["ccscope", "reproduce", *options, "--json"]))
        )
    from ccscope import reproduce

    return reproduce.markdown(_REPORTS[options], "--failing" in words)


def output(command: str) -> str:
    """What `command` prints, run from the repository's root with this Python's ccscope."""
    words = shlex.split(command)
    rendered = _reproduce_all(words)
    if rendered is not None:
        return rendered
    if words[0] == "ccscope":
        words = [sys.executable, "-m", "ccscope", *words[1:]]
    elif words[0] == "python":
        words = [sys.executable, *words[1:]]
    else:
        raise SystemExit(f"{command!r}: only ccscope and python commands are run")
    done = subprocess.run(words, cwd=ROOT, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"`{command}` failed (exit {done.returncode}):\n{done.stderr}")
    return done.stdout


def regenerate(page: Path, match: str = "") -> list[str]:
    """Reruns the matching commands of `page` and pastes their output; returns the commands."""
    text = page.read_text()
    ran = []

    def paste(m: re.Match) -> str:
        if match not in m["command"]:
            return m.group(0)
        ran.append(m["command"])
        begin, end = f"<!-- {m['command']}: begin -->\n", f"<!-- {m['command']}: end -->"
        return begin + output(m["command"]) + end

    pasted = MARKED.sub(paste, text)
    if ran:  # a page with nothing to rerun is left alone, not rewritten
        page.write_text(pasted)
    return ran


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--list", action="store_true", help="List the commands, run none.")
    ap.add_argument("--match", default="", help="Only the commands that contain this text.")
    ap.add_argument("pages", nargs="*", type=Path, help="Pages (default: docs/*.md).")
    args = ap.parse_args()
    for page in args.pages or sorted((ROOT / "docs").glob("*.md")):
        if args.list:
            for command in blocks(page):
                if args.match in command:
                    print(f"{page.name}: {command}")
            continue
        for command in regenerate(page, args.match):
            print(f"{page.name}: pasted the output of `{command}`")


if __name__ == "__main__":
    main()
