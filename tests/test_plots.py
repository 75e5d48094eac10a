"""``result.plot``: the standard views of a run, drawn with titles, units and the flows' labels,
a rate flow on the rate panel rather than as a window of 0, the warm-up shaded; and the
same views as the report's data (:mod:`ccscope.views`)."""

from __future__ import annotations

import numpy as np
import pytest

import ccscope
from ccscope import roundmodel, views

RUN = (
    '[run]\nduration = "20s"\nwarmup = "2s"\n[topology]\nkind = "dumbbell"\n'
    'access = { rate = "100Mbps", delay = "1ms" }\n'
    '[topology.bottleneck]\nrate = "10Mbps"\ndelay = "20ms"\n'
    'queue = { kind = "droptail", limit = 50 }\n'
    '[[flows]]\nsource = { kind = "tcp" }\ncount = 2\n'
    '[[flows]]\nsource = { kind = "rate", controller = "tfrc" }\n'
    '[trace]\ninterval = "200ms"\n'
)


@pytest.fixture(scope="module")
def result():
    return ccscope.run(ccscope.loads(RUN))


def panels(fig) -> dict[str, object]:
    """The figure's visible axes by the start of their title."""
    return {ax.get_title(loc="left").split(",")[0]: ax for ax in fig.axes if ax.get_visible()}


def names(ax) -> list[str]:
    return [line.get_label() for line in ax.get_lines()]


def test_the_overview_is_per_class_with_window_rate_rtt_and_queue_panels(result):
    fig = result.plot()
    shown = panels(fig)
    assert list(shown) == [
        "throughput",
        "congestion window",
        "sending rate of the flows without a window",
        "smoothed RTT",
        "queue length at the end of each interval",
        "queueing delay: the queue's bytes at the link's rate",
    ]
    units = [ax.get_ylabel() for ax in shown.values()]
    assert units == ["Mb/s", "packets", "Mb/s", "ms", "packets", "ms"]
    # One line per class, named by its label and number of flows; the TFRC flow has no
    # window, so it is drawn on the rate panel only.
    assert names(shown["throughput"]) == ["TCP/SACK (2)", "TFRC (1)"]
    assert names(shown["congestion window"]) == ["TCP/SACK (2)"]
    assert names(shown["sending rate of the flows without a window"]) == ["TFRC (1)"]
    # The warm-up shaded in every panel, and a legend of the classes and links.
    assert all(len(ax.patches) == 1 for ax in shown.values())
    assert "TCP/SACK (2)" in [t.get_text() for t in fig.legends[0].get_texts()]


def test_per_flow_views_name_each_flow_and_keep_its_numbers(result):
    fig = result.plot.throughput(per="flow")
    (ax,) = [a for a in fig.axes if a.get_visible()]
    assert names(ax) == ["0: TCP/SACK", "1: TCP/SACK", "2: TFRC"]
    # The class line is the mean of its flows' lines, in Mb/s of the trace's throughput.
    per_flow = [line.get_ydata() for line in ax.get_lines()]
    trace = result.trace.flow_series("throughput_bps")
    assert np.allclose(per_flow[2], trace[2].to_numpy() / 1e6)
    classes = panels(result.plot.classes())["throughput"].get_lines()
    assert np.allclose(classes[0].get_ydata(), (per_flow[0] + per_flow[1]) / 2)
    window = panels(result.plot.window())
    assert names(window["congestion window"]) == ["0: TCP/SACK", "1: TCP/SACK"]


def test_the_rtt_lies_between_the_path_and_a_full_queue(result):
    (ax,) = [a for a in result.plot.rtt().axes if a.get_visible()]
    # Two-way propagation: 2 x (1 + 20 + 1) ms; a full DropTail queue of 50 packets of 1000
    # bytes at 10 Mb/s adds 40 ms, each packet's serialization at most 0.8 ms per hop, and a
    # delayed ACK (RFC 1122 4.2.3.2) at most 200 ms more for the TCP flows' samples.
    for line in ax.get_lines():
        rtt = np.asarray(line.get_ydata(), dtype=float)
        rtt = rtt[~np.isnan(rtt)]
        assert len(rtt) > 50, line.get_label()
        assert (rtt >= 44).all() and (rtt <= 44 + 40 + 4 * 0.8 + 200).all(), line.get_label()


def test_queue_delay_is_the_queue_at_the_link_rate(result):
    shown = panels(result.plot.queue())
    length = shown["queue length at the end of each interval"].get_lines()[0].get_ydata()
    delay = shown["queueing delay: the queue's bytes at the link's rate"].get_lines()[0]
    # Every packet here is 1000 bytes: 0.8 ms each at 10 Mb/s.
    assert np.allclose(delay.get_ydata(), np.asarray(length) * 0.8)


def test_a_long_trace_is_averaged_to_at_most_max_points(result, monkeypatch):
    monkeypatch.setattr(views, "MAX_POINTS", 30)
    (ax,) = [a for a in result.plot.throughput().axes if a.get_visible()]
    assert "averaged over 4 intervals" in ax.get_title(loc="left")
    line = ax.get_lines()[2].get_ydata()
    full = result.trace.flow_series("throughput_bps")[2].to_numpy() / 1e6
    assert len(line) == 25 and np.isclose(line[0], full[:4].mean())


def test_plots_say_what_the_run_lacks(result):
    untraced = ccscope.run(ccscope.loads(RUN.replace('[trace]\ninterval = "200ms"\n', "")))
    with pytest.raises(ValueError, match=r"not traced: add \[trace\]"):
        untraced.plot()
    with pytest.raises(ValueError, match="per = 'link'"):
        result.plot.throughput(per="link")
    with pytest.raises(ValueError, match="no playback"):
        result.plot.playback()


ROUND = (
    '[run]\nengine = "round"\nsteps = 2000\nwarmup_steps = 200\n'
    '[link]\ncapacity = "1544kbps"\nrtt = "100ms"\npacket_size = "1000B"\n'
    '[[flows]]\ncontroller = { name = "rate-aimd", alpha = 1, beta = 0.5, mtu_per_rtt = 5000 }\n'
    'count = 3\ninitial_rate = "7.72kbps"\n[record]\nevery = 10\nflows = true\n'
)


def test_the_round_models_plots():
    r = roundmodel.run(roundmodel.loads(ROUND))
    assert list(panels(r.plot())) == ["utilization", "loss", "load", "load per flow"]
    (ax,) = [a for a in r.plot.load(per="class").axes if a.get_visible()]
    assert names(ax) == ["rate-AIMD(1,0.5) (3)"]
    assert ax.get_ylabel() == "packets per control interval"
    assert np.allclose(ax.get_lines()[0].get_ydata(), r.flow_series().mean(axis=1))
    unrecorded = roundmodel.run(roundmodel.loads(ROUND.replace("flows = true\n", "")))
    with pytest.raises(ccscope.ScenarioError, match="record.flows"):
        unrecorded.plot.load()


def test_a_per_flow_view_of_many_flows_keeps_every_class():
    many = RUN.replace("count = 2", "count = 20").replace('duration = "20s"', 'duration = "4s"')
    r = ccscope.run(ccscope.loads(many))
    (ax,) = [a for a in r.plot.throughput().axes if a.get_visible()]
    # Flows 0-19 are TCP, 20 the TFRC flow: 16 drawn, the TFRC flow among them.
    assert names(ax) == [f"{i}: TCP/SACK" for i in range(15)] + ["20: TFRC"]
    assert "16 of 21" in ax.get_title(loc="left")


def test_a_notebook_shows_the_figures_without_pyplot(result):
    """IPython draws an object as a PNG through its ``_repr_png_`` when no formatter of its
    type is registered, as none is before pyplot's inline backend is active."""
    from IPython.core.formatters import PNGFormatter

    fig = result.plot.queue()
    assert PNGFormatter()(fig).startswith(b"\x89PNG\r\n\x1a\n")


def test_overview_png_draws_every_panels_lines_in_their_colours(result, tmp_path):
    """`ccscope run`'s overview.png (ccscope.pngview): the overview's panels one under the
    other, each holding its own groups' lines and only theirs, the warm-up shaded."""
    from matplotlib.colors import to_rgb
    from PIL import Image

    from ccscope import pngview, report

    view = views.overview(views.RunData.of_result(result))
    path = report.overview(result, tmp_path / "overview.png")
    image = np.asarray(Image.open(path).convert("RGB"), dtype=float)
    legend_rows = -(-len({ln.name for p in view.panels for ln in p.lines}) // 4)
    top = pngview.LEGEND_ROW * legend_rows + pngview.HEAD
    assert image.shape == (top + pngview.PANEL * len(view.panels), pngview.WIDTH, 3)
    colour = {g: f"C{i}" for i, g in enumerate(view.groups)}

    def near(region, rgb) -> bool:
        return bool((np.abs(region - np.array(rgb) * 255).max(axis=-1) < 30).any())

    for k, panel in enumerate(view.panels):
        y0 = top + pngview.PANEL * k
        axes = image[y0 + 2 : y0 + pngview.PANEL - pngview.GAP - 2, pngview.LEFT + 2 : -30]
        drawn = {ln.group for ln in panel.lines}
        for group in view.groups:
            assert near(axes, to_rgb(colour[group])) == (group in drawn), (panel.title, group)
        # The warm-up, 2 s of the axis's 21.8 (the 19.8 s traced and 5% each side): about
        # 74 of its 810 pixels across shaded, grey 0.6 at alpha 0.18 over white.
        middle = axes[axes.shape[0] // 2]
        assert (np.abs(middle - 255 * (1 - 0.18 * 0.4)).max(axis=-1) < 1).sum() > 50


def test_a_view_with_bands_or_markers_is_left_to_the_figure():
    from ccscope import pngview

    line = views.Line([0, 1], [1, 2], "a", "a")
    assert pngview.drawable(views.View("v", [views.Panel("t", "u", [line])]))
    banded = views.Line([0, 1], [1, 2], "a", "a", low=[0, 1], high=[2, 3])
    assert not pngview.drawable(views.View("v", [views.Panel("t", "u", [banded])]))
    dotted = views.Line([0, 1], [1, 2], "a", "a", markers=True, lines=False)
    assert not pngview.drawable(views.View("v", [views.Panel("t", "u", [dotted])]))
