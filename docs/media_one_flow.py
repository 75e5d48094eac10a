"""The media controllers' tables on docs/controllers.md: one flow on a 1 Mb/s, 40 ms path.

    python docs/media_one_flow.py gcc            # GCC's table (and TFRC driving the encoder)
    python docs/media_one_flow.py nada scream scream2    # NADA's, SCReAM's and SCReAMv2's

Each row is one flow of a controller driving RFC 8593's encoder on the page's `one_flow` path
(1 Mb/s, 40 ms bottleneck, 60-packet DropTail, 100 Mb/s 5 ms access links; 70 s after a 10 s
warm-up, seed 1), read from `ccscope.run(...).flows.loc[0]`. The page shows the output between
markers (docs/tables.py), and tests/test_rmcat.py compares it with this script's.
"""

from __future__ import annotations

import sys

import ccscope

#: The rows of each table: (label, source).
ROWS = {
    "gcc": [
        ("`gcc` (the draft's defaults)", {"kind": "rtp", "controller": "gcc"}),
        (
            "`gcc`, `scale_by_groups = 1`",
            {"kind": "rtp", "controller": {"name": "gcc", "scale_by_groups": 1}},
        ),
        ("`gcc`, `trendline = 1`", {"kind": "rtp", "controller": {"name": "gcc", "trendline": 1}}),
        (
            "`tfrc` (rate source, same encoder)",
            {"kind": "rate", "controller": "tfrc", "app": {"kind": "encoder"}},
        ),
    ],
    "nada": [("`nada` (RFC 8698's defaults)", {"kind": "rtp", "controller": "nada"})],
    "scream": [
        ("`scream` (RFC 8298's defaults)", {"kind": "rtp", "controller": "scream"}),
        (
            "`scream`, `compensate = 0`",
            {"kind": "rtp", "controller": {"name": "scream", "compensate": 0}},
        ),
    ],
    "scream2": [
        ("`scream2` (the -03 draft's defaults)", {"kind": "rtp", "controller": "scream2"}),
        (
            "`scream2`, `compensate = 0`",
            {"kind": "rtp", "controller": {"name": "scream2", "compensate": 0}},
        ),
    ],
}


def one_flow(source: dict) -> dict:
    """The page's path with one flow of `source`."""
    return {
        "run": {"duration": "70s", "warmup": "10s", "seed": 1},
        "topology": {
            "kind": "dumbbell",
            "bottleneck": {
                "rate": "1Mbps",
                "delay": "40ms",
                "queue": {"kind": "droptail", "limit": "60pkts"},
            },
            "access": {"rate": "100Mbps", "delay": "5ms"},
        },
        "flows": [{"source": source}],
    }


def loss(x: float) -> str:
    return "0" if x == 0 else f"{100 * x:.3g} %"


def table(keys: list[str]) -> str:
    """The Markdown table of the rows of `keys`."""
    lines = [
        "| controller | throughput | mean one-way delay | loss | frame delay p95 | freezes |",
        "|---|---|---|---|---|---|",
    ]
    for key in keys:
        for label, source in ROWS[key]:
            f = ccscope.run(one_flow(source)).flows.loc[0]
            lines.append(
                f"| {label} | {f['throughput_bps'] / 1e3:.0f} kb/s | "
                f"{f['mean_delay_s'] * 1e3:.1f} ms | {loss(f['loss_rate'])} | "
                f"{f['frame_delay_p95_s'] * 1e3:.1f} ms | {f['video_freezes']:.0f} |"
            )
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    unknown = [k for k in sys.argv[1:] if k not in ROWS]
    if unknown or len(sys.argv) < 2:
        sys.exit(f"rows: one or more of {', '.join(ROWS)} (got {' '.join(sys.argv[1:])})")
    print(table(sys.argv[1:]), end="")
