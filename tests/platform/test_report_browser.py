"""`ccscope report` in a real browser: the page of a run, a sweep and an exploration loads in
headless Chromium (the Debian package `chromium`; `make test` installs it) without console
errors and without a request beyond the file, every figure draws, and clicking a flow in a
legend hides its lines. Without the browser the test fails: it is never skipped."""

from __future__ import annotations

import shutil

import pytest
from typer.testing import CliRunner

import ccscope
from ccscope import sweep
from ccscope.cli import app

RUN = (
    '[run]\nduration = "20s"\nwarmup = "2s"\n[topology]\nkind = "dumbbell"\n'
    '[topology.bottleneck]\nrate = "10Mbps"\ndelay = "20ms"\n'
    'queue = { kind = "droptail", limit = 50 }\n'
    '[[flows]]\nsource = { kind = "tcp" }\ncount = 2\n'
    '[[flows]]\nsource = { kind = "rate", controller = "tfrc" }\n'
    '[trace]\ninterval = "200ms"\n'
)


def chromium() -> str:
    path = shutil.which("chromium")
    if path is None:
        pytest.fail(
            "headless Chromium is needed: install the Debian package `chromium` (`make test` does)"
        )
    return path


#: What the page tells once drawn: each figure's traces (name, legend group, visibility, y
#: axis, whether it is a confidence band's edge), its rendered trace groups, and its warm-up
#: shapes.
STATE = """() => Array.from(document.querySelectorAll("div.plot")).map(d => ({
  traces: d._fullData.map(t => [t.name, t.legendgroup, t.visible, t.yaxis, Boolean(t.line) && t.line.width === 0]),
  drawn: d.querySelectorAll(".scatterlayer .trace").length,
  svg: d.querySelectorAll(".main-svg").length,
  shapes: (d._fullLayout.shapes || []).length,
}))"""


def load_in_browser(page_path, toggle: tuple[int, str] | None = None) -> dict:
    """Opens the page: its console and page errors, every request it made, its figures'
    state (:data:`STATE`); with `toggle` (figure, legend name), that legend entry is clicked
    and the figures' state read again."""
    from playwright.sync_api import sync_playwright

    errors: list[str] = []
    requests: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium(), args=["--no-sandbox"])
        page = browser.new_page()
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on("request", lambda r: requests.append(r.url))
        page.goto(page_path.resolve().as_uri(), wait_until="load")
        figures = page.evaluate(STATE)
        images = page.evaluate(
            "() => Array.from(document.images).map(i => [i.complete, i.naturalWidth])"
        )
        toggled = None
        if toggle is not None:
            figure, name = toggle
            entry = page.locator("div.plot").nth(figure).locator("g.legend g.traces")
            entry.filter(has_text=name).locator("rect.legendtoggle").click()
            page.wait_for_timeout(800)  # past plotly.js's double-click window
            toggled = page.evaluate(STATE)
        title = page.title()
        browser.close()
    return {
        "errors": errors,
        "requests": requests,
        "figures": figures,
        "images": images,
        "toggled": toggled,
        "title": title,
    }


def check_page(page_path, seen: dict, figures: int) -> str:
    """No console error, no request but the page itself, `figures` drawn figures, each with
    its SVG and traces; returns the page's text."""
    assert seen["errors"] == []
    assert seen["requests"] == [page_path.resolve().as_uri()]
    assert len(seen["figures"]) == figures
    assert all(f["svg"] > 0 and f["drawn"] > 0 for f in seen["figures"])
    text = page_path.read_text()
    assert "<script src" not in text and "https://" not in text.split("<script>")[0]
    return text


def run_report(scenario: str, tmp_path, figures: int, toggle=None) -> tuple[str, dict]:
    """Runs `scenario`, writes its report and opens it (:func:`check_page`)."""
    out = tmp_path / "run"
    ccscope.run(ccscope.loads(scenario)).write(out)
    page = tmp_path / "run.html"
    done = CliRunner().invoke(app, ["report", str(out), "-o", str(page)])
    assert done.exit_code == 0, done.output
    seen = load_in_browser(page, toggle)
    return check_page(page, seen, figures), seen


def traces(figure: dict, axis: str | None = None) -> list[str]:
    """The names of a figure's lines (not its bands) on y axis `axis` (all when None)."""
    return [t[0] for t in figure["traces"] if not t[4] and (axis is None or t[3] == axis)]


def test_a_run_report_is_interactive_in_chromium(tmp_path):
    # Per class, per flow and the queues; the per-flow figure's "0: TCP/SACK" clicked.
    text, seen = run_report(RUN, tmp_path, 3, toggle=(1, "0: TCP/SACK"))
    assert "Provenance" in text and "TCP/SACK" in text and "git_commit" in text
    per_class, per_flow, queues = seen["figures"]
    # Legends name the flows by index and label, the classes by label and number of flows.
    assert {"TCP/SACK (2)", "TFRC (1)"} <= set(traces(per_class))
    assert {"0: TCP/SACK", "1: TCP/SACK", "2: TFRC"} <= set(traces(per_flow))
    # Panels in order: throughput (y), window (y2), rate of the flows without one (y3), RTT
    # (y4): the TFRC flow has no window panel line and the TCP flows no rate panel line.
    assert traces(per_flow, "y2") == ["0: TCP/SACK", "1: TCP/SACK"]
    assert traces(per_flow, "y3") == ["2: TFRC"]
    assert set(traces(per_flow, "y4")) == {"0: TCP/SACK", "1: TCP/SACK", "2: TFRC"}
    # The warm-up shaded in every panel.
    assert per_flow["shapes"] == 4 and queues["shapes"] == 2
    # Clicking flow 0 in the legend hides its line in every panel, and only its lines.
    after = seen["toggled"][1]
    hidden = [t for t in after["traces"] if t[2] == "legendonly"]
    assert [t[1] for t in hidden] == ["0"] * 3 and len(hidden) == 3
    assert after["drawn"] == per_flow["drawn"] - 3
    assert seen["toggled"][0] == per_class


def test_a_media_run_report_draws_the_playback_buffers(tmp_path):
    media = RUN.replace(
        'source = { kind = "tcp" }\ncount = 2\n',
        'source = { kind = "tcp" }\ncount = 2\nplayback = { startup = "3s" }\n',
    )
    assert media != RUN
    # The run's three figures and the playback buffers; the media columns in the flow table.
    text, seen = run_report(media, tmp_path, 4)
    assert "playback buffer per media flow" in text and "interruptions" in text
    assert traces(seen["figures"][3]) == ["0: TCP/SACK", "1: TCP/SACK"]


ROUND = (
    '[run]\nengine = "round"\nsteps = 2000\nwarmup_steps = 200\n'
    '[link]\ncapacity = "1544kbps"\nrtt = "100ms"\npacket_size = "1000B"\n'
    '[[flows]]\ncontroller = { name = "rate-aimd", alpha = 1, beta = 0.5, mtu_per_rtt = 5000 }\n'
    'count = 3\ninitial_rate = "7.72kbps"\n[record]\nevery = 10\nflows = true\n'
)


def test_a_round_model_report_draws_its_series(tmp_path):
    out = tmp_path / "round"
    (tmp_path / "round.toml").write_text(ROUND)
    done = CliRunner().invoke(app, ["run", str(tmp_path / "round.toml"), "-o", str(out), "-q"])
    assert done.exit_code == 0, done.output
    page = tmp_path / "round.html"
    assert CliRunner().invoke(app, ["report", str(out), "-o", str(page)]).exit_code == 0
    seen = load_in_browser(page)
    # Utilization and loss; each class's mean load; each flow's load.
    check_page(page, seen, 3)
    assert traces(seen["figures"][0]) == ["utilization", "loss"]
    assert traces(seen["figures"][1]) == ["rate-AIMD(1,0.5) (3)"]


def test_a_sweep_report_leads_with_its_figures(tmp_path):
    store = tmp_path / "s.duckdb"
    spec = sweep.Sweep.from_dict(
        {
            "base": ccscope.loads(RUN).table,
            "axes": {"topology.bottleneck.rate": ["5Mbps", "10Mbps"], "flows[0].count": [1, 2]},
            "seeds": [1, 2],
        }
    )
    sweep.run(spec, store, jobs=1)
    page = tmp_path / "sweep.html"
    done = CliRunner().invoke(app, ["report", str(store), "-o", str(page)])
    assert done.exit_code == 0, done.output
    seen = load_in_browser(page, toggle=(1, "TFRC, flows[0].count = 1"))
    # Per axis (the rates as text, ordered by value, and the count), the metrics and the
    # classes against it.
    text = check_page(page, seen, 4)
    metrics = sweep.metric_columns(sweep.load(store), list(spec.axes))
    rate, rate_classes, count, count_classes = seen["figures"]
    assert len(traces(rate)) == len(metrics) * 2  # a line per flow count, in every panel
    assert "TCP/SACK, flows[0].count = 1" in traces(rate_classes)
    # The figures come before the tables.
    assert text.index('class="plot"') < text.index("95% confidence interval over seeds")
    # Its line and band hidden in each of the five panels (share, throughput, loss, delay,
    # Jain's index among the class's flows).
    hidden = [t for t in seen["toggled"][1]["traces"] if t[2] == "legendonly"]
    assert len(hidden) == 5 * 3 and {t[1] for t in hidden} == {"TFRC, flows[0].count = 1"}


def test_an_exploration_report_renders_in_chromium(tmp_path):
    store = tmp_path / "e.duckdb"
    done = CliRunner().invoke(
        app,
        ["reproduce", "papadimitriou-fig3", "--explore", "buffer_bdp=0.5:2:2"]
        + ["--explore", "video_kbps=200:760:2", "-j", "2", "--store", str(store)],
    )
    assert done.exit_code == 0, done.output
    page = tmp_path / "explore.html"
    done = CliRunner().invoke(app, ["report", str(store), "-o", str(page)])
    assert done.exit_code == 0, done.output
    seen = load_in_browser(page)
    assert seen["title"] == "ccscope explore: papadimitriou-fig3"
    text = check_page(page, seen, 1)
    # A panel per claim of Fig. 3 (two CoVs and the order), over the two knobs.
    assert len({t[3] for t in seen["figures"][0]["traces"]}) == 3
    assert "Where each claim holds" in text


def test_an_rmcat_report_renders_in_chromium(tmp_path):
    from ccscope import rmcat

    store = tmp_path / "r.duckdb"
    for controller in ("tfrc", "ssvp"):
        rmcat.run(controller, cases=["5.3", "5.6"], store=store, jobs=1)
    page = tmp_path / "rmcat.html"
    done = CliRunner().invoke(app, ["report", str(store), "-o", str(page)])
    assert done.exit_code == 0, done.output
    seen = load_in_browser(page, toggle=(0, "capacity"))
    assert seen["title"] == "ccscope rmcat: r.duckdb"
    # Per case, interactive: the controllers' rates against the capacity (a panel per
    # controller, y and y2) and their media packets' delays (one panel); no PNG.
    text = check_page(page, seen, 4)
    assert seen["images"] == []
    rates_53, delays_53, rates_56, delays_56 = seen["figures"]
    assert {t[3] for t in rates_53["traces"]} == {"y", "y2"}
    assert "capacity" in traces(rates_53) and "media 0" in traces(rates_53)
    assert len(traces(delays_53)) == 2 and len(traces(delays_56)) == 2
    # Clicking "capacity" hides the capacity line in both controllers' panels, only those.
    hidden = [t for t in seen["toggled"][0]["traces"] if t[2] == "legendonly"]
    assert [t[0] for t in hidden] == ["capacity", "capacity"]
    assert "5.3: congested feedback link" in text and "TFRC" in text and "SSVP" in text


def test_report_of_nothing_exits_2(tmp_path):
    done = CliRunner().invoke(app, ["report", str(tmp_path / "missing")])
    assert done.exit_code == 2 and "no such" in done.output
