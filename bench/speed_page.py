"""Rewrites the speed page's table (docs/speed.md) from out/bench.json (written by bench/speed.py).

The table sits between the lines `<!-- speed:begin -->` and `<!-- speed:end -->`; everything
else on the page is left as it is. With `--group NAME` only that group's rows are rewritten
(the first column; e.g. `queues`, which bench/queue_speed.py measures on its own): the other
rows stay as they are, and the load-average line under the table widens to the new rows' load.

Usage: python bench/speed_page.py [--bench out/bench.json] [--page docs/speed.md] [--group NAME]
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BEGIN, END = "<!-- speed:begin -->", "<!-- speed:end -->"


def number(x: float | None, metric: str = "") -> str:
    """Three significant digits, with k / M / G for large figures."""
    if x is None:
        return "–"
    if "seconds" in metric:
        return f"{x:.3f} s"
    # Figures near their goal: no rounding onto it.
    if "speed-up" in metric or "(KB)" in metric or metric == "events per bottleneck packet":
        return f"{x:.3f}"
    for scale, suffix in ((1e9, " G"), (1e6, " M"), (1e3, " k")):
        if abs(x) >= scale:
            return f"{x / scale:.3g}{suffix}"
    return f"{x:.3g}"


def memory(r: dict) -> str:
    ours, ns2 = r["ccscope_peak_rss_mb"], r["ns2_peak_rss_mb"]
    if ours is None:
        return ""
    return f"{ours:.0f} / {ns2:.0f} MB" if ns2 else f"{ours:.0f} MB"


def table(rows: list[dict]) -> str:
    lines = [
        "| what | scenario | measure | ccscope | ns-2.35 | ratio | peak RSS (ccscope / ns-2) "
        "| goal | holds |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for r in rows:
        extra = ""
        if "ccscope_in_process_s" in r:
            extra = (
                f" ({r['ccscope_wall_s']:.3f} s, {r['ccscope_in_process_s']:.3f} s of it in "
                "`ccscope.run`)"
            )
        elif "events_per_s" in r:
            extra = f" ({number(r['events_per_s'])} events/s)"
        elif "ns2_wall_s" in r:
            extra = f" ({r['ccscope_wall_s']:.2f} s, ns-2 {r['ns2_wall_s']:.0f} s)"
        elif "htsim" in r:
            extra = (
                f" (htsim {number(r['htsim'])}: {r['htsim_ratio']:.2f}×; events a bottleneck "
                f"packet {r['events_per_bn_pkt']:.2f}, htsim {r['htsim_events_per_bn_pkt']:.2f})"
            )
        elif "anchor_ns" in r:
            extra = (
                f" (the anchor's {r['anchor_ns']:.0f} ns: {r['anchor_ratio']:.2f}×; "
                f"{r['mean_in_flight']:,.0f} packets in flight on average)"
            )
        elif "growth" in r:
            extra = f" ({r['growth']:.2f}× the first row)"
        elif "against" in r:
            counted = r["instructions_per_packet"]
            counts = f"; {counted:.0f} instructions" if counted else ""
            extra = (
                f" ({r['against']:.2f}× {r['against_what']}{counts}; load {r['load_avg_1min']:.1f})"
            )
        elif "python_s" in r:
            extra = (
                f" ({r['callbacks']:,} callbacks: {r['python_s']:.3f} s against "
                f"{r['rust_s']:.3f} s in Rust, {r['slowdown']:.2f}× the run)"
            )
        elif "share_cpu" in r:
            extra = (
                f" ({r['plot_wall_s']:.2f} s with it, {r['bare_wall_s']:.2f} s without; "
                f"{r['share_cpu']:.2f} of the CPU time; load {r['load_avg_1min']:.1f} on "
                f"{r['cpus']} CPUs)"
            )
        elif "cpu_s" in r:
            extra = f" (CPU {r['cpu_s']:.2f} s)"
        elif "traced_s" in r:
            extra = (
                f" ({r['traced_s']:.3f} s against {r['constant_s']:.3f} s; "
                f"{r['traced_events']:,} events against {r['constant_events']:,})"
            )
        elif "wall_2_s" in r:
            extra = (
                f"× ({r['wall_1_s']:.1f} s on 1 worker, {r['wall_2_s']:.1f} s on 2; load "
                f"{r['load_avg_5min']:.1f} on {r['cpus']} CPUs)"
            )
        ratio = f"{r['ratio']:.2f}×" if r["ratio"] else ""
        holds = {True: "yes", False: "**no**", None: ""}[r["met"]]
        lines.append(
            f"| {r['group']} | {r['scenario']} | {r['metric']} | "
            f"{number(r['ccscope'], r['metric'])}{extra} | "
            f"{number(r['ns2'], r['metric'])} | {ratio} | {memory(r)} | {r['goal']} | "
            f"{holds} |"
        )
    loads = [r["load_avg_1min"] for r in rows if "load_avg_1min" in r]
    if loads:
        lines += ["", load_line(min(loads), max(loads))]
    return "\n".join(lines)


def load_line(low: float, high: float) -> str:
    return f"Load average (1 min) while the rows were measured: {low:.1f} to {high:.1f}."


LOAD = re.compile(r"Load average \(1 min\) while the rows were measured: ([\d.]+) to ([\d.]+)\.")


def splice(old: str, rows: list[dict], group: str) -> str:
    """The table `old` with the rows of `group` replaced by `rows` (in place of the first of
    them, or after the last row if it had none), and its load line widened to theirs."""
    lines = old.strip("\n").split("\n")
    new = table(rows).split("\n")
    fresh = [line for line in new[2:] if line.startswith("| ")]
    kept, at = [], None
    for line in lines:
        if line.startswith(f"| {group} | "):
            at = len(kept) if at is None else at
            continue
        kept.append(line)
    if at is None:
        at = max(i for i, line in enumerate(kept) if line.startswith("| ")) + 1
    kept[at:at] = fresh
    loads = [r["load_avg_1min"] for r in rows if "load_avg_1min" in r]
    text = "\n".join(kept)
    if loads:
        found = LOAD.search(text)
        if found:
            low, high = float(found[1]), float(found[2])
            text = LOAD.sub(load_line(min(low, *loads), max(high, *loads)), text)
        else:
            text += "\n\n" + load_line(min(loads), max(loads))
    return text


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bench", type=Path, default=ROOT / "out" / "bench.json")
    ap.add_argument("--page", type=Path, default=ROOT / "docs" / "speed.md")
    ap.add_argument("--group", help="rewrite only this group's rows (the first column)")
    args = ap.parse_args()
    rows = json.loads(args.bench.read_text())
    text = args.page.read_text()
    pattern = re.compile(re.escape(BEGIN) + "\n(.*?)" + re.escape(END), re.S)
    found = pattern.search(text)
    if not found:
        raise SystemExit(f"{args.page}: no {BEGIN} ... {END} section to rewrite")
    if args.group:
        rows = [r for r in rows if r["group"] == args.group]
        if not rows:
            raise SystemExit(f"{args.bench}: no rows of group {args.group!r}")
        body = splice(found[1], rows, args.group)
    else:
        body = table(rows)
    args.page.write_text(pattern.sub(lambda _: f"{BEGIN}\n{body}\n{END}", text))
    print(f"rewrote the speed table of {args.page} from {args.bench}")


if __name__ == "__main__":
    main()
