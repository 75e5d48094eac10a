"""`make bench`: ccscope's speed, with ns-2.35 run side by side in the same command.

Writes one record per measurement to out/bench.json (scenario, ccscope's figure, ns-2's figure
when it has one, their ratio, peak resident memory, the goal and whether it holds); the speed
page's table (docs/speed.md) is made from that file by bench/speed_page.py.

- start-up: what `ccscope run` does before the simulation begins (interpreter, imports, the
  command line, reading the scenario) and which heavy modules that loads, against ns-2 building
  the 8-flow dumbbell and stopping after 1 ms of simulated time; and the floor of every run
  (interpreter, command line and the modules of a run) against ns-2's whole 8-flow, 10 Mb/s run.
- whole process: `ccscope run FILE --no-plot -q` against `ns bench/ns2_dumbbell.tcl`, on the
  anchor dumbbell (bench/anchors.py): 8 and 64 TCP SACK flows, 10 and 100 Mb/s, 60 s, DropTail
  at the bandwidth-delay product. Bottleneck packets per wall-second; the record also holds the
  same run's time inside one process (`ccscope.run`), the rest being start-up and writing. The
  goal (3x) is for the rows where ns-2 takes at least a second; the others have none.
- engine: the same dumbbells run for 600 s (10 Mb/s) or 60 s (100 Mb/s), about 750 000
  bottleneck packets, inside one Python process (ccscope.run, result tables included) against
  ns-2's time less its time to build the scenario and stop after 1 ms; the events each
  bottleneck packet takes, and events per second.
- htsim, when the HTSIM variable names its anchor binary (bench/htsim_dumbbell.cpp says how
  to build it from github.com/Broadcom/csg-htsim): the same dumbbells, the engine alone
  (bench_run: no Python, no scenario file) against htsim's event loop, bottleneck packets per
  wall-second.
- per-ACK cost: bench_ack, the CPU time per ACK of one SACK flow with 10 000 packets in flight
  against the 8-flow anchor's.
- scale: bench_scale (100 / 1000 / 10 000 TCP flows at 1 Gb/s, 5 s; best of --repeat rounds):
  CPU time relative to 100 flows, and memory per flow from the peak resident sets; then a
  million flows; and 1000 flows for 1 s against ns-2, whose all-pairs routes make 10 000 flows
  too large for it here.
- round: bench_round, flow-steps per second.

Timings are the best of --repeat runs; the machine is shared, so compare ratios taken here.
Python processes run with its bytecode cache, as an installed ccscope does (a
PYTHONDONTWRITEBYTECODE set around this script is dropped for them).

Usage: python bench/speed.py [--repeat N] [--out out/bench.json] [--quick]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

import anchors

ROOT = Path(__file__).resolve().parents[1]
PYTHON = sys.executable
CCSCOPE = str(Path(PYTHON).with_name("ccscope"))
NS2_SCRIPT = Path(__file__).resolve().parent / "ns2_dumbbell.tcl"
# Simulated time of an ns-2 run that measures its start-up and set-up (0 divides by zero).
SET_UP_ONLY_S = 0.001
# Simulated seconds of the engine comparison per bottleneck Mb/s: about 750 000 bottleneck
# packets, so that start-up is a few percent of ns-2's time.
ENGINE_SECONDS = {10: 600, 100: 60}
GNU_TIME = "/usr/bin/time" if Path("/usr/bin/time").exists() else None
CHILD_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}

# What `ccscope run` does before it calls the engine (python/ccscope/cli.py `run`): typer builds
# the command group at every start.
BEFORE_RUN = """
import sys
import typer
import ccscope.cli
typer.main.get_command(ccscope.cli.app)
from ccscope.controllers import per_flow
from ccscope.engine import run
from ccscope.errors import Interrupted
from ccscope.progress import RunProgress
from ccscope.scenario import load
from ccscope import _core
load(sys.argv[1])
heavy = ("numpy", "pandas", "pyarrow", "matplotlib", "scipy", "rich", "pydantic")
print(",".join(m for m in heavy if m in sys.modules))
"""


def run_child(cmd: list[str], cwd: Path | None = None) -> tuple[float, float | None, str]:
    """Runs `cmd`: (wall seconds, peak resident MB, stdout). The peak comes from GNU time when
    installed: Linux carries a process's peak across exec, so a child forked from this (large)
    Python process would report at least this process's size."""
    wrap = [GNU_TIME, "-f", "%M"] if GNU_TIME else []
    t = time.perf_counter()
    p = subprocess.run(wrap + cmd, cwd=cwd, capture_output=True, text=True, env=CHILD_ENV)
    wall = time.perf_counter() - t
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed: {p.stderr.strip()}")
    rss = int(p.stderr.strip().splitlines()[-1]) / 1024 if GNU_TIME else None
    return wall, rss, p.stdout


def best_of(repeat: int, cmd: list[str], cwd: Path | None = None) -> tuple[float, float, str]:
    """The fastest of `repeat` runs: (wall seconds, its peak resident MB, its stdout)."""
    return min((run_child(cmd, cwd) for _ in range(repeat)), key=lambda r: r[0])


def record(
    group: str,
    scenario: str,
    metric: str,
    ours: float,
    ns2: float | None = None,
    *,
    higher_is_better: bool = True,
    goal: str = "",
    met: bool | None = None,
    rss: float | None = None,
    ns2_rss: float | None = None,
    **extra,
) -> dict:
    ratio = None
    if ns2:
        ratio = ours / ns2 if higher_is_better else ns2 / ours
    return {
        "group": group,
        "scenario": scenario,
        "metric": metric,
        "ccscope": ours,
        "ns2": ns2,
        "ratio": ratio,
        "ccscope_peak_rss_mb": rss,
        "ns2_peak_rss_mb": ns2_rss,
        "goal": goal,
        "met": met,
        "load_avg_1min": os.getloadavg()[0],
        **extra,
    }


def ns2_command(n: int, rate: int, seconds: float) -> list[str]:
    return ["ns", str(NS2_SCRIPT), str(n), str(rate), "20", "DropTail", str(seconds), "1"]


def startup(repeat: int, scenario_file: Path, have_ns2: bool) -> list[dict]:
    bare, _, _ = best_of(repeat, [PYTHON, "-c", "pass"])
    wall, rss, loaded = best_of(repeat, [PYTHON, "-c", BEFORE_RUN, str(scenario_file)])
    ns2 = best_of(repeat, ns2_command(8, 10, SET_UP_ONLY_S)) if have_ns2 else None
    return [
        record(
            "start-up",
            "ccscope run, before the simulation (8 flows, 10 Mb/s)",
            "seconds",
            wall,
            ns2[0] if ns2 else None,
            higher_is_better=False,
            goal="<= 0.1 s, no pandas/matplotlib",
            met=wall <= 0.1 and "pandas" not in loaded and "matplotlib" not in loaded,
            rss=rss,
            ns2_rss=ns2[1] if ns2 else None,
            python_bare_s=bare,
            heavy_modules_loaded=loaded.strip(),
        )
    ]


def process_floor(repeat: int, have_ns2: bool) -> dict:
    """What any `ccscope run` spends outside the engine whatever the scenario: the interpreter,
    the command line (typer) and the modules of a run (ccscope.engine and the extension); against
    ns-2's whole 8-flow, 10 Mb/s anchor run, which takes a fraction of a second: no goal, it
    says why a whole process cannot be several times faster than ns-2 on runs that short."""
    floor, rss, _ = best_of(
        repeat,
        [
            PYTHON,
            "-c",
            "import typer, ccscope.cli, ccscope.engine, "
            "ccscope._core; typer.main.get_command(ccscope.cli.app)",
        ],
    )
    ns2 = best_of(repeat, ns2_command(8, 10, anchors.SECONDS)) if have_ns2 else None
    return record(
        "start-up",
        "python + CLI (typer) + the run's modules, before and after any run",
        "seconds",
        floor,
        ns2[0] if ns2 else None,
        higher_is_better=False,
        goal="",
        met=None,
        rss=rss,
        ns2_rss=ns2[1] if ns2 else None,
    )


def anchor_runs(repeat: int, files: dict, have_ns2: bool) -> list[dict]:
    import ccscope

    rows = []
    ccscope.run(ccscope.load(files[(8, 10)]))  # load the extension before timing in-process
    for (n, rate), path in files.items():
        name = f"{n} TCP SACK flows, {rate} Mb/s, 60 s, DropTail (BDP)"
        with tempfile.TemporaryDirectory() as out:
            wall, rss, _ = best_of(
                repeat, [CCSCOPE, "run", str(path), "--out", out, "--no-plot", "-q"]
            )
            summary = json.loads((Path(out) / "summary.json").read_text())
        pkts = next(x["departures"] for x in summary["links"] if x["name"] == "bottleneck")
        inside, _ = in_process(repeat, ccscope.load(path))
        ns2 = best_of(repeat, ns2_command(n, rate, anchors.SECONDS)) if have_ns2 else None
        ns2_pkts = json.loads(ns2[2].strip().splitlines()[-1])["departures"] if ns2 else 0
        whole = record(
            "whole process",
            name,
            "bottleneck packets per wall-second",
            pkts / wall,
            ns2_pkts / ns2[0] if ns2 else None,
            goal=">= 3x ns-2 where ns-2 takes >= 1 s",
            rss=rss,
            ns2_rss=ns2[1] if ns2 else None,
            ccscope_wall_s=wall,
            ccscope_in_process_s=inside,
            ns2_wall_s=ns2[0] if ns2 else None,
        )
        if ns2 and ns2[0] < 1:
            whole["goal"], whole["met"] = "none (ns-2 under 1 s)", None
        else:
            whole["met"] = whole["ratio"] is not None and whole["ratio"] >= 3
        engine = engine_run(n, rate, repeat, have_ns2)
        rows += [whole, engine, events_per_packet(engine)]
    return rows


def in_process(repeat: int, scenario):
    """The best wall time of `ccscope.run(scenario)` in this process (the engine, its result
    handed to Python included), and the result."""
    import ccscope

    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        result = ccscope.run(scenario)
        best = min(best, time.perf_counter() - t)
    return best, result


def engine_run(n: int, rate: int, repeat: int, have_ns2: bool) -> dict:
    """The anchor run long enough for start-up not to count, inside one process for ccscope and
    less its start-up and set-up time for ns-2."""
    import ccscope

    seconds = ENGINE_SECONDS[rate]
    sc = ccscope.loads(anchors.scenario_toml(n, rate, "DropTail", seconds=seconds))
    engine, result = in_process(repeat, sc)
    pkts = int(result.bottlenecks.departures.iloc[0])
    ns2_engine = ns2_pkts = None
    if have_ns2:
        wall, _, out = best_of(repeat, ns2_command(n, rate, seconds))
        ns2_engine = wall - best_of(repeat, ns2_command(n, rate, SET_UP_ONLY_S))[0]
        ns2_pkts = json.loads(out.strip().splitlines()[-1])["departures"] / ns2_engine
    inside = record(
        "engine",
        f"{n} TCP SACK flows, {rate} Mb/s, {seconds} s, DropTail (BDP)",
        "bottleneck packets per wall-second",
        pkts / engine,
        ns2_pkts,
        goal=">= 5x ns-2",
        events=result.events,
        events_per_s=result.events / engine,
        ccscope_wall_s=engine,
        ns2_wall_s=ns2_engine,
    )
    inside["met"] = inside["ratio"] is not None and inside["ratio"] >= 5
    inside["bottleneck_pkts"] = pkts
    return inside


def events_per_packet(engine: dict) -> dict:
    """The events the engine row's run took per bottleneck packet."""
    per = engine["events"] / engine["bottleneck_pkts"]
    return record(
        "events",
        engine["scenario"],
        "events per bottleneck packet",
        per,
        higher_is_better=False,
        goal="<= 6",
        met=per <= 6,
    )


def htsim_runs(repeat: int) -> list[dict]:
    """The engine alone (bench_run) against htsim's anchor binary ($HTSIM, N RATE SECONDS) on
    the same dumbbells: bottleneck packets per wall-second of each one's event loop. htsim
    models less (NewReno without SACK; a reverse path of delay only)."""
    htsim = os.environ.get("HTSIM")
    if not htsim:
        print("HTSIM not set (bench/htsim_dumbbell.cpp): no htsim rows", file=sys.stderr)
        return []
    rows = []
    for rate in (10, 100):
        for n in (8, 64):
            seconds = ENGINE_SECONDS[rate]
            with tempfile.NamedTemporaryFile("w", suffix=".json") as f:
                json.dump(
                    tomllib.loads(anchors.scenario_toml(n, rate, "DropTail", seconds=seconds)), f
                )
                f.flush()
                [ours] = cargo_example(
                    "bench_run", f.name, "--repeat", str(repeat), json_flag=False
                )
            theirs = min(
                (
                    htsim_line(run_child([htsim, str(n), str(rate), str(seconds)])[2])
                    for _ in range(repeat)
                ),
                key=lambda r: r["wall_s"],
            )
            ours_pps = ours["bottleneck_pkts"] / ours["wall_s"]
            theirs_pps = theirs["bn_pkts_est"] / theirs["wall_s"]
            row = record(
                "htsim",
                f"{n} TCP flows, {rate} Mb/s, {seconds} s, DropTail (BDP): event loops",
                "bottleneck packets per wall-second",
                ours_pps,
                goal=">= 1x htsim",
                met=ours_pps >= theirs_pps,
                htsim=theirs_pps,
                htsim_ratio=ours_pps / theirs_pps,
                events_per_bn_pkt=ours["events"] / ours["bottleneck_pkts"],
                htsim_events_per_bn_pkt=theirs["events_per_bn_pkt"],
            )
            rows.append(row)
    return rows


def htsim_line(out: str) -> dict:
    """htsim's `htsim n=... wall_s=... bn_pkts_est=...` line as numbers."""
    line = next(x for x in out.splitlines() if x.startswith("htsim "))
    return {k: float(v) for k, v in (kv.split("=") for kv in line.split()[1:])}


def per_ack() -> dict:
    """bench_ack: CPU per ACK of one SACK flow with 10 000 packets in flight (receiver window)
    against the 8-flow anchor's, whose flows have a dozen each."""
    anchor, wide = cargo_example("bench_ack")
    per = {r["run"]: r["cpu_s"] / r["acks"] for r in (anchor, wide)}
    growth = per["wide"] / per["anchor"]
    return record(
        "per-ACK cost",
        "1 SACK flow, 10 Gb/s, 100 ms, loss 1e-4, 10 000 packets in flight, against 8 "
        "anchor flows (10 Mb/s)",
        "CPU per ACK (ns)",
        per["wide"] * 1e9,
        higher_is_better=False,
        goal="<= 1.5x the anchor's",
        met=growth <= 1.5,
        anchor_ratio=growth,
        anchor_ns=per["anchor"] * 1e9,
        mean_in_flight=wide["in_flight_per_flow"],
    )


def cargo_example(name: str, *args: str, json_flag: bool = True) -> list[dict]:
    out = subprocess.run(
        [
            "cargo",
            "run",
            "--release",
            "--quiet",
            "-p",
            "ccscope-core",
            "--example",
            name,
            "--",
            *(["--json"] if json_flag else []),
            *args,
        ],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return [json.loads(line) for line in out.splitlines() if line.startswith("{")]


def scale(counts: list[str], repeat: int) -> list[dict]:
    # Rounds over every count in turn, so that a busy spell of the machine hits them alike; per
    # count the round with the least CPU time.
    rounds = [cargo_example("bench_scale", *counts) for _ in range(repeat)]
    runs = [min(same, key=lambda r: r["cpu_s"]) for same in zip(*rounds, strict=True)]
    base = runs[0]
    rows = []
    for r in runs:
        growth = r["cpu_s"] / base["cpu_s"]
        row = record(
            "scale",
            f"{r['flows']} TCP flows, 1 Gb/s, 5 s",
            "CPU seconds",
            r["cpu_s"],
            goal=f"<= 2.5x the {base['flows']}-flow run",
            met=growth <= 2.5,
            rss=r["peak_rss_kb"] / 1024,
            growth=growth,
            wall_s=r["wall_s"],
            events=r["events"],
            bottleneck_pkts=r["bottleneck_pkts"],
        )
        rows.append(row)
    top = runs[-1]
    per_flow = (top["peak_rss_kb"] - base["peak_rss_kb"]) / (top["flows"] - base["flows"])
    rows.append(
        record(
            "scale",
            f"{base['flows']} -> {top['flows']} TCP flows",
            "peak RSS per added flow (KB)",
            per_flow,
            higher_is_better=False,
            rss=top["peak_rss_kb"] / 1024,
        )
    )
    return rows


def scale_limit(flows: int) -> dict:
    """That `flows` TCP flows run at all on this machine, in how long and how much memory."""
    [r] = cargo_example("bench_scale", str(flows))
    return record(
        "scale",
        f"{flows} TCP flows, 1 Gb/s, 5 s",
        "CPU seconds",
        r["cpu_s"],
        goal="completes",
        met=True,
        rss=r["peak_rss_kb"] / 1024,
        wall_s=r["wall_s"],
        events=r["events"],
        bottleneck_pkts=r["bottleneck_pkts"],
    )


def scale_ns2(repeat: int, have_ns2: bool) -> dict | None:
    """1000 TCP flows on the 1 Gb/s anchor dumbbell for 1 s, whole process against ns-2's. ns-2
    computes routes between every pair of nodes: at 1000 flows (2002 nodes) that takes about a
    minute and half a gigabyte, at 2000 four times as long and 1.9 GB, so 10 000 flows would
    need about 50 GB, more than this machine has: this is the largest run both can do here."""
    if not have_ns2:
        return None
    n, rate, seconds = 1000, 1000, 1
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "wide.toml"
        path.write_text(anchors.scenario_toml(n, rate, "DropTail", seconds=seconds))
        wall, rss, _ = best_of(
            repeat, [CCSCOPE, "run", str(path), "--out", tmp + "/o", "--no-plot", "-q"]
        )
        summary = json.loads((Path(tmp) / "o" / "summary.json").read_text())
    pkts = next(x["departures"] for x in summary["links"] if x["name"] == "bottleneck")
    ns2_wall, ns2_rss, out = best_of(1, ns2_command(n, rate, seconds))
    ns2_pkts = json.loads(out.strip().splitlines()[-1])["departures"]
    row = record(
        "scale",
        f"{n} TCP SACK flows, {rate} Mb/s, {seconds} s, whole process (10 000: too big for ns-2)",
        "bottleneck packets per wall-second",
        pkts / wall,
        ns2_pkts / ns2_wall,
        goal=">= 10x ns-2",
        rss=rss,
        ns2_rss=ns2_rss,
        ccscope_wall_s=wall,
        ns2_wall_s=ns2_wall,
    )
    row["met"] = row["ratio"] >= 10
    return row


def engine_cbr() -> list[dict]:
    return [
        record(
            "engine",
            f"CBR dumbbell, {r['flows']} flows, {r['rate_mbps']} Mb/s, 60 s",
            "events per wall-second",
            r["events"] / r["wall_s"],
            events=r["events"],
            bottleneck_pkts_per_s=r["bottleneck_pkts"] / r["wall_s"],
        )
        for r in cargo_example("bench_engine")
        if r["load"] == "CBR"
    ]


def round_model() -> list[dict]:
    goals = {"synchronized": 2e8, "proportional": 1e8}
    rows = []
    for r in cargo_example("bench_round"):
        rate = r["flow_steps"] / r["wall_s"]
        goal = goals[r["feedback"]] if r["flows"] >= 100_000 else None
        rows.append(
            record(
                "round",
                f"{r['flows']} TCP flows, {r['feedback']} feedback",
                "flow-steps per wall-second",
                rate,
                goal=f">= {goal:.0e}" if goal else "",
                met=rate >= goal if goal else None,
            )
        )
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3, help="best of N runs (default 3)")
    ap.add_argument("--out", type=Path, default=ROOT / "out" / "bench.json")
    ap.add_argument(
        "--quick",
        action="store_true",
        help="scale at 100 and 1000 flows only (not 10 000, a million, and against ns-2), and "
        "skip the round model",
    )
    args = ap.parse_args()
    have_ns2 = shutil.which("ns") is not None
    if not have_ns2:
        print("ns-2 not found (apt-get install -y ns2): ccscope figures only", file=sys.stderr)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        files = {}
        for rate in (10, 100):
            for n in (8, 64):
                files[(n, rate)] = Path(tmp) / f"anchor-{n}x{rate}.toml"
                files[(n, rate)].write_text(anchors.scenario_toml(n, rate, "DropTail"))
        rows += startup(args.repeat * 2, files[(8, 10)], have_ns2)
        rows.append(process_floor(args.repeat * 2, have_ns2))
        rows += anchor_runs(args.repeat, files, have_ns2)
    rows += htsim_runs(args.repeat)
    rows.append(per_ack())
    rows += engine_cbr()
    rows += scale(["100", "1000"] if args.quick else ["100", "1000", "10000"], args.repeat)
    if not args.quick:
        rows.append(scale_limit(1_000_000))
        rows += [r for r in [scale_ns2(1, have_ns2)] if r]
        rows += round_model()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(rows, indent=1) + "\n")
    for r in rows:
        ns2 = f"{r['ns2']:.4g}" if r["ns2"] else "-"
        ratio = f"{r['ratio']:.2f}x" if r["ratio"] else ""
        met = {True: "yes", False: "NO", None: ""}[r["met"]]
        print(
            f"{r['group']:<13} {r['scenario']:<52} {r['ccscope']:>11.4g} {ns2:>10} "
            f"{ratio:>7} {r['goal']:<24} {met}"
        )
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
