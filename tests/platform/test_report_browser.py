"""`ccscope report` in a real browser: the page of a run and of a sweep loads in headless
Chromium (the Debian package `chromium`; `make test` installs it) without console errors, and
every figure renders. Without the browser the test fails: it is never skipped."""

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


def load_in_browser(page_path) -> dict:
    """Opens the page; returns its console errors, page errors and its images' state."""
    from playwright.sync_api import sync_playwright

    errors: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium(), args=["--no-sandbox"])
        page = browser.new_page()
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(page_path.resolve().as_uri(), wait_until="load")
        images = page.evaluate(
            "() => Array.from(document.images).map(i => [i.complete, i.naturalWidth])"
        )
        title = page.title()
        browser.close()
    return {"errors": errors, "images": images, "title": title}


def run_report(scenario: str, tmp_path, figures: int) -> str:
    """Runs `scenario`, writes its report and opens it: no console errors and `figures`
    figures that render; returns the page's text."""
    out = tmp_path / "run"
    ccscope.run(ccscope.loads(scenario)).write(out)
    page = tmp_path / "run.html"
    done = CliRunner().invoke(app, ["report", str(out), "-o", str(page)])
    assert done.exit_code == 0, done.output
    seen = load_in_browser(page)
    assert seen["errors"] == []
    assert len(seen["images"]) == figures
    assert all(complete and width > 0 for complete, width in seen["images"])
    return page.read_text()


def test_a_run_report_renders_in_chromium(tmp_path):
    # Throughput, window and rate per flow, and the queue.
    text = run_report(RUN, tmp_path, 4)
    assert "Provenance" in text and "TCP/SACK" in text and "git_commit" in text


def test_a_media_run_report_draws_the_playback_buffers(tmp_path):
    media = RUN.replace(
        'source = { kind = "tcp" }\ncount = 2\n',
        'source = { kind = "tcp" }\ncount = 2\nplayback = { startup = "3s" }\n',
    )
    assert media != RUN
    # The run's four figures and the playback buffers; the media columns in the flow table.
    text = run_report(media, tmp_path, 5)
    assert "playback buffer per media flow" in text and "interruptions" in text


def test_a_sweep_report_renders_in_chromium(tmp_path):
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
    seen = load_in_browser(page)
    assert seen["errors"] == []
    metrics = sweep.metric_columns(sweep.load(store), list(spec.axes))
    # One figure per metric against the one numeric axis (the rates are text).
    assert len(seen["images"]) == len(metrics) > 0
    assert all(complete and width > 0 for complete, width in seen["images"])
    assert "95% confidence" in page.read_text()


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
    assert seen["errors"] == [] and seen["title"] == "ccscope explore: papadimitriou-fig3"
    # One figure per claim of Fig. 3 (two CoVs and the order), over the two knobs.
    assert len(seen["images"]) == 3
    assert all(complete and width > 0 for complete, width in seen["images"])
    assert "Where each claim holds" in page.read_text()


def test_an_rmcat_report_renders_in_chromium(tmp_path):
    from ccscope import rmcat

    store = tmp_path / "r.duckdb"
    for controller in ("tfrc", "ssvp"):
        rmcat.run(controller, cases=["5.3", "5.6"], store=store, jobs=1)
    page = tmp_path / "rmcat.html"
    done = CliRunner().invoke(app, ["report", str(store), "-o", str(page)])
    assert done.exit_code == 0, done.output
    seen = load_in_browser(page)
    assert seen["errors"] == [] and seen["title"] == "ccscope rmcat: r.duckdb"
    # Per case: the controllers' rates against the capacity, and their delays.
    assert len(seen["images"]) == 4
    assert all(complete and width > 0 for complete, width in seen["images"])
    text = page.read_text()
    assert "5.3: congested feedback link" in text and "TFRC" in text and "SSVP" in text


def test_report_of_nothing_exits_2(tmp_path):
    done = CliRunner().invoke(app, ["report", str(tmp_path / "missing")])
    assert done.exit_code == 2 and "no such" in done.output
