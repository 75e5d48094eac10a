"""The front page's figure: `python docs/figure.py` writes docs/figures/dumbbell-mix.svg.

It runs the main job's scenario (`scenarios/dumbbell-mix.toml`, what `make run` runs) and
draws each kind of flow's mean throughput per flow in 2-second bins, and the bottleneck's
queue, as a small hand-written SVG: no plotting library, so the same run (bit-identical for a
scenario, seed and model version) gives the same file on any machine, and
tests/test_docs.py checks that the committed figure is this command's output.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "figures" / "dumbbell-mix.svg"
BIN_S = 2.0
COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd"]
W, H, LEFT, RIGHT = 720, 330, 58, 150
PANELS = [(20, 180), (222, 300)]  # (top, bottom) of the throughput and the queue panels


def series() -> tuple[list[float], dict[str, list[float]], list[float], float]:
    """Bin start times, each label's mean Mb/s per flow, the mean queue (packets), duration."""
    import ccscope

    result = ccscope.run(ROOT / "scenarios" / "dumbbell-mix.toml")
    bins = math.ceil(result.trace.flows["time_s"].max() / BIN_S)
    duration = bins * BIN_S
    flows = result.trace.flows.assign(b=(result.trace.flows["time_s"] // BIN_S).astype(int))
    labels = result.flows.set_index("flow")["label"]
    delivered = flows.groupby(["b", "flow"])["delivered_bytes"].sum().unstack(fill_value=0)
    by_label: dict[str, list[float]] = {}
    for label in dict.fromkeys(labels):
        members = [f for f in labels.index if labels[f] == label]
        mbps = delivered.reindex(range(bins), fill_value=0)[members].mean(axis=1) * 8 / BIN_S / 1e6
        by_label[label.replace(" (SACK)", "")] = mbps.tolist()
    queues = result.trace.queues[result.trace.queues["name"] == "bottleneck"]
    queue = queues.groupby((queues["time_s"] // BIN_S).astype(int))["queue_pkts"].mean()
    times = [i * BIN_S for i in range(bins)]
    return times, by_label, queue.reindex(range(bins), fill_value=0).tolist(), duration


def _path(xs: list[float], ys: list[float]) -> str:
    return " ".join(f"{x:.1f},{y:.1f}" for x, y in zip(xs, ys, strict=True))


def svg() -> str:
    times, by_label, queue, duration = series()
    x_of = [LEFT + (t + BIN_S / 2) / duration * (W - LEFT - RIGHT) for t in times]
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" '
        f'viewBox="0 0 {W} {H}" font-family="sans-serif" font-size="11">',
        f'<rect width="{W}" height="{H}" fill="white"/>',
    ]

    def panel(top: int, bottom: int, top_value: float, step: float, unit: str) -> None:
        out.append(
            f'<rect x="{LEFT}" y="{top}" width="{W - LEFT - RIGHT}" height="{bottom - top}" '
            'fill="none" stroke="#888"/>'
        )
        value = 0.0
        while value <= top_value + 1e-9:
            y = bottom - value / top_value * (bottom - top)
            out.append(f'<text x="{LEFT - 4}" y="{y + 4:.1f}" text-anchor="end">{value:g}</text>')
            value += step
        out.append(
            f'<text x="14" y="{(top + bottom) / 2:.1f}" text-anchor="middle" '
            f'transform="rotate(-90 14 {(top + bottom) / 2:.1f})">{unit}</text>'
        )

    (t_top, t_bottom), (q_top, q_bottom) = PANELS
    peak = max(max(v) for v in by_label.values())
    top_mbps = max(1.0, float(int(peak) + 1))
    panel(t_top, t_bottom, top_mbps, 1.0, "Mb/s per flow")
    for i, (label, mbps) in enumerate(by_label.items()):
        ys = [t_bottom - v / top_mbps * (t_bottom - t_top) for v in mbps]
        colour = COLOURS[i % len(COLOURS)]
        out.append(
            f'<polyline fill="none" stroke="{colour}" stroke-width="1.5" '
            f'points="{_path(x_of, ys)}"/>'
        )
        y = t_top + 14 + 16 * i
        out.append(
            f'<line x1="{W - RIGHT + 10}" y1="{y - 4}" x2="{W - RIGHT + 28}" y2="{y - 4}" '
            f'stroke="{colour}" stroke-width="2"/>'
        )
        out.append(f'<text x="{W - RIGHT + 32}" y="{y}">{label}</text>')
    top_queue = max(10.0, 10.0 * (int(max(queue) / 10) + 1))
    panel(q_top, q_bottom, top_queue, top_queue / 2, "queue (pkts)")
    ys = [q_bottom - v / top_queue * (q_bottom - q_top) for v in queue]
    out.append(f'<polyline fill="none" stroke="#444" points="{_path(x_of, ys)}"/>')
    for t in range(0, int(duration) + 1, 20):
        x = LEFT + t / duration * (W - LEFT - RIGHT)
        out.append(f'<text x="{x:.1f}" y="{q_bottom + 14}" text-anchor="middle">{t}</text>')
    out.append(
        f'<text x="{(LEFT + W - RIGHT) / 2:.1f}" y="{q_bottom + 28}" text-anchor="middle">'
        "simulated time (s): 10 Mb/s RED bottleneck, 44 ms round trip</text>"
    )
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main() -> None:
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(svg())
    print(f"wrote {OUT.relative_to(ROOT)}")


if __name__ == "__main__":
    sys.exit(main())
