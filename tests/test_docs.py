"""Every code block of the README and of the documentation pages (docs/*.md) runs as written.

The blocks of one page run in order in one folder of their own that sees `scenarios/` and
`sweeps/`, as a reader following the page would: a `python` block is executed, a `sh` block
run by bash (`set -e`, the venv's `ccscope` first on the PATH); a `toml` block must parse, and
one that is a whole scenario (it has `[run]`) must pass the core's checks. A block whose info
string names a file (```` ```toml file=friendly.toml ````) is that file's content: it is written
into the folder (and checked as above) for the blocks after it. A block that cannot run here
says why on the line before it, `<!-- not run: REASON -->`. Blocks of other languages (`text`:
synopses and printed output) are shown, not run.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(
    r"(?:^<!-- not run: (?P<why>[^>]+?) -->\n)?"
    r"^```(?P<lang>\S*)(?: file=(?P<file>\S+))?[^\n]*\n(?P<body>.*?)^```$",
    re.M | re.S,
)
RUN = {"python", "sh", "toml"}
#: The pages whose blocks run the udp engine in real time: they run with the other real-time
#: tests (marker `realtime`), alone on the machine.
REAL_TIME = {"docs/realnet.md"}


def blocks() -> list:
    found = []
    for page in PAGES:
        name = page.relative_to(ROOT).as_posix()
        for i, m in enumerate(FENCE.finditer(page.read_text())):
            if m["lang"] in RUN and not m["why"]:
                block = (name, m["lang"], m["file"], m["body"])
                marks = pytest.mark.realtime if name in REAL_TIME else ()
                found.append(
                    pytest.param(*block, id=f"{name}:{i}:{m['file'] or m['lang']}", marks=marks)
                )
    return found


BLOCKS = blocks()


def test_every_page_has_runnable_blocks():
    names = {b.values[0] for b in BLOCKS}
    assert {"README.md", "docs/getting-started.md", "docs/tutorial.md"} <= names


def test_a_block_not_run_is_one_that_would_be():
    """`not run` stands before a block of a runnable language, with a reason."""
    for page in PAGES:
        for m in FENCE.finditer(page.read_text()):
            if m["why"]:
                assert m["lang"] in RUN, f"{page.name}: 'not run' before a {m['lang']} block"


#: Each page's folder, made for its first block.
FOLDERS: dict[str, Path] = {}


@pytest.mark.parametrize(("page", "lang", "file", "body"), BLOCKS)
def test_block_runs(page, lang, file, body, tmp_path_factory, monkeypatch):
    if page not in FOLDERS:
        FOLDERS[page] = tmp_path_factory.mktemp(Path(page).stem)
        for folder in ("scenarios", "sweeps"):
            (FOLDERS[page] / folder).symlink_to(ROOT / folder)
    workdir = FOLDERS[page]
    monkeypatch.chdir(workdir)
    if file:
        (workdir / file).write_text(body)
    if file and lang == "python":
        compile(body, file, "exec")
    elif lang == "python":
        exec(compile(body, "docs", "exec"), {"__name__": "docs"})
    elif lang == "sh":
        env = {
            **os.environ,
            "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        }
        done = subprocess.run(
            ["bash", "-euo", "pipefail", "-c", body],
            cwd=workdir,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert done.returncode == 0, f"{body}\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
    else:
        table = tomllib.loads(body)
        if "run" in table and ("topology" in table or "link" in table):
            import ccscope

            ccscope.validate(ccscope.loads(body))


def test_the_front_figure_is_the_output_of_its_command():
    """README's figure is what `python docs/figure.py` draws from today's engine."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("figure", ROOT / "docs" / "figure.py")
    figure = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(figure)
    committed = (ROOT / "docs" / "figures" / "dumbbell-mix.svg").read_text()
    assert committed == figure.svg(), "stale: run `python docs/figure.py` and commit the SVG"


def test_the_speed_page_is_rewritten_between_its_markers(tmp_path):
    """bench/speed_page.py replaces the table between the speed page's markers, nothing else."""
    page = tmp_path / "speed.md"
    page.write_text((ROOT / "docs" / "speed.md").read_text())
    row = {
        "group": "engine",
        "scenario": "one test row",
        "metric": "events per wall-second",
        "ccscope": 1.5e7,
        "ns2": None,
        "ratio": None,
        "ccscope_peak_rss_mb": None,
        "ns2_peak_rss_mb": None,
        "goal": "",
        "met": None,
    }
    bench = tmp_path / "bench.json"
    bench.write_text(json.dumps([row]))
    subprocess.run(
        [sys.executable, str(ROOT / "bench" / "speed_page.py"), "--bench", str(bench)]
        + ["--page", str(page)],
        check=True,
        capture_output=True,
    )
    before, after = ((ROOT / "docs" / "speed.md").read_text(), page.read_text())
    marked = re.compile(r"<!-- speed:begin -->\n.*?<!-- speed:end -->", re.S)
    assert marked.sub("", before) == marked.sub("", after)
    assert "| engine | one test row | events per wall-second | 15 M |" in after


def test_the_speed_page_rewrites_one_group_and_keeps_the_others(tmp_path):
    """speed_page.py --group replaces that group's rows only, and widens the load line."""
    page = tmp_path / "speed.md"
    page.write_text(
        "# Speed\n\n<!-- speed:begin -->\n| what | scenario |\n| --- | --- |\n"
        "| engine | kept |\n| queues | stale |\n| round | kept too |\n\n"
        "Load average (1 min) while the rows were measured: 3.6 to 5.4.\n<!-- speed:end -->\n"
    )
    row = {
        "group": "queues",
        "scenario": "codel: one test row",
        "metric": "ns per packet",
        "ccscope": 20.0,
        "ns2": None,
        "ratio": None,
        "ccscope_peak_rss_mb": None,
        "ns2_peak_rss_mb": None,
        "goal": "<= RED's 25.0",
        "met": True,
        "load_avg_1min": 7.25,
        "against": 0.8,
        "against_what": "RED's",
        "instructions_per_packet": 309.1,
    }
    bench = tmp_path / "bench.json"
    bench.write_text(json.dumps([row, {**row, "group": "engine", "scenario": "not this"}]))
    subprocess.run(
        [sys.executable, str(ROOT / "bench" / "speed_page.py"), "--bench", str(bench)]
        + ["--page", str(page), "--group", "queues"],
        check=True,
        capture_output=True,
    )
    rows = [line for line in page.read_text().splitlines() if line.startswith("| ")]
    assert rows[2:] == [
        "| engine | kept |",
        "| queues | codel: one test row | ns per packet | 20 (0.80× RED's; 309 instructions; "
        "load 7.2) | – |  |  | <= RED's 25.0 | yes |",
        "| round | kept too |",
    ]
    assert "measured: 3.6 to 7.2." in page.read_text()


def test_tables_pastes_a_command_output_between_its_markers(tmp_path):
    """docs/tables.py reruns a marker's command and replaces only what the markers hold."""
    import ccscope

    page = tmp_path / "page.md"
    marked = "<!-- ccscope schema round: begin -->\nstale\n<!-- ccscope schema round: end -->"
    page.write_text(f"before\n\n{marked}\n\nafter\n")
    tables = [sys.executable, str(ROOT / "docs" / "tables.py")]
    listed = subprocess.run([*tables, "--list"], capture_output=True, text=True, check=True)
    assert "validation.md: ccscope reproduce --all --quick --markdown" in listed.stdout
    subprocess.run([*tables, str(page)], capture_output=True, text=True, check=True)
    text = page.read_text()
    assert text.startswith("before\n\n<!-- ccscope schema round: begin -->\n")
    assert text.endswith("<!-- ccscope schema round: end -->\n\nafter\n")
    pasted = text.split("begin -->\n", 1)[1].split("<!-- ccscope", 1)[0]
    assert json.loads(pasted) == ccscope.schema("round")


#: The sections of docs/validation.md that set ccscope beside ns-2.35 through generated tables:
#: their prose says what the rows show and retypes none of their measured values, which carry
#: three or more significant digits; the only such number the prose may name is a constant,
#: GAIMD's decrease factor 0.875 (ns-2's `decrease_num_`).
BESIDE_NS2 = (
    "Against ns-2",
    "Yang's Table 1 beside ns-2.35",
    "Three reproductions beside ns-2.35",
    "CUBIC under Bernoulli loss beside ns-2.35",
    "Rate-based controls against ns-2.35",
)
CONSTANTS = {"0.875"}


def test_the_ns2_sections_retype_no_measured_number():
    text = (ROOT / "docs" / "validation.md").read_text()
    sections = {s.split("\n", 1)[0]: s for s in re.split(r"^## ", text, flags=re.M)}
    marked = re.compile(r"<!-- (?P<c>[^>]+?): begin -->\n.*?<!-- (?P=c): end -->", re.S)
    number = re.compile(r"(?<![\w.\-])\d+\.\d+(?![\w.])")
    for title in BESIDE_NS2:
        assert title in sections, f"docs/validation.md has no section '{title}'"
        prose = marked.sub("", sections[title])
        typed = {n for n in number.findall(prose) if len(n.replace(".", "").lstrip("0")) >= 3}
        assert typed <= CONSTANTS, f"'{title}' types {sorted(typed - CONSTANTS)} by hand"
