"""How faithfully the real-time engine (run.engine = "udp") keeps the emulated link's rate and
delay on this machine, and how closely senders keep their pacing.

- rate: a 12 Mb/s CBR flow of 1000-byte datagrams into an emulated 10 Mb/s link (20 ms, 100
  packets of DropTail), so the link is always busy; the rate the receiving host got, by its own
  clock, over the configured rate (goal: within 1%).
- delay: a 5 Mb/s CBR flow over the same link, so nothing queues; how late each datagram
  reached the receiving host after the time the emulated network had it due, 50th and 99th
  percentile (goal: 99th within 0.5 ms at 10 Mb/s).
- pacing: how late the sender's timers fired after their deadlines, i.e. the error of each
  intended send time (50th and 99th percentile).
- ceiling: two TCP flows on emulated links of 10 Mb/s, 100 Mb/s and 1 Gb/s (500 packets of
  DropTail, 10 ms); the bottleneck's utilization shows up to which rate this machine's hosts
  and emulator keep a link busy (the hosts run the senders on one thread and the receivers on
  another, the emulator on a third), and at 1 Gb/s how late the hosts got their datagrams
  (99th percentile, as for delay: a link kept busy by datagrams that came late is a link the
  machine did not emulate in time), how late their data entered the emulated network after it
  was sent (99th percentile: a wait before the network, which its delays do not count) and how
  many datagrams the run's sockets lost (full buffers, outside the emulated network). Also two
  flows of the kernel's own TCP (source.kind =
  "linux", CUBIC, through TUN devices: needs root, else the rows are left out and the output
  says why).
- kernel: the same measures with the bottleneck's rate and queue in the kernel
  (run.emulator = "kernel": tc's tbf on a veth pair between two network namespaces), rate also
  at 100 Mb/s (a 120 Mb/s CBR flow) for both emulators. The kernel rows need root; elsewhere
  they are left out, and the output says why.

Real time depends on the machine's load: run it on a quiet machine, and read the load average
printed beside each measure (over the minute before the measure ended). Writes
out/realnet.json; `--markdown` prints the table of docs/realnet.md's realnet-bench block.

Usage: python bench/realnet_accuracy.py [--seconds S] [--out out/realnet.json] [--markdown]
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

import ccscope
from ccscope.engine import AIM_MS
from ccscope.errors import ScenarioError

ROOT = Path(__file__).resolve().parents[1]


def scenario(
    rate: str, delay: str, limit: int, flow: str, seconds: float, emulator: str = "user"
) -> ccscope.Scenario:
    """A dumbbell run in real time: one bottleneck of `rate`, `delay` and `limit` packets of
    DropTail, and the flows of the TOML table `flow`, its bottleneck queue in user space or in
    the kernel (`emulator`)."""
    return ccscope.loads(f"""
[run]
engine = "udp"
emulator = "{emulator}"
duration = "{seconds}s"
warmup = "1s"

[topology]
kind = "dumbbell"
bottleneck.rate = "{rate}"
bottleneck.delay = "{delay}"
bottleneck.queue = {{ kind = "droptail", limit = "{limit}pkts" }}

[[flows]]
{flow}
""")


def cbr(
    mbps: float, seconds: float, emulator: str = "user", link_mbps: int = 10
) -> ccscope.Scenario:
    flow = f'source = {{ kind = "cbr", rate = "{mbps}Mbps", packet_size = "1000B" }}'
    return scenario(f"{link_mbps}Mbps", "20ms", 100, flow, seconds, emulator)


def two_tcp(rate: str, seconds: float, emulator: str = "user") -> ccscope.Scenario:
    return scenario(rate, "10ms", 500, 'source = { kind = "tcp" }\ncount = 2', seconds, emulator)


def two_linux(rate: str, seconds: float, emulator: str = "user") -> ccscope.Scenario:
    flow = 'source = { kind = "linux", cc = "cubic" }\ncount = 2'
    return scenario(rate, "10ms", 500, flow, seconds, emulator)


def ceiling(emulator: str, who: str, make, seconds: float) -> list[dict]:
    """Bottleneck utilization of two flows made by `make(rate, seconds)` at 10 Mb/s, 100 Mb/s
    and 1 Gb/s, and the most they carried."""
    records, sustained = [], 0.0
    for rate, bps in (("10Mbps", 10e6), ("100Mbps", 100e6), ("1Gbps", 1e9)):
        result = ccscope.run(make(rate, min(seconds, 5.0)))
        utilization = result.links.set_index("name").loc["bottleneck", "utilization"]
        measure = f"{emulator}: ceiling: bottleneck utilization, 2 {who} flows, {rate}"
        records.append(record(measure, utilization))
        sustained = max(sustained, utilization * bps)
        # Whether the hosts still got their datagrams on time at the fastest rate (the kernel's
        # TCP flows hand the hosts none).
        if bps == 1e9 and any(result.flows["host_rx_bps"] > 0):
            timing = result.timing()
            for what, late in (
                ("delay lateness", timing["delay_late_p99_ms"]),
                ("entry lateness", timing["entry_late_p99_ms"]),
            ):
                records.append(
                    record(
                        f"{emulator}: ceiling: {what} p99 (ms), 2 {who} flows, {rate}",
                        late,
                        f"at most {AIM_MS:g} ms",
                        late <= AIM_MS,
                    )
                )
            lost = timing["socket_drops"]
            records.append(
                record(
                    f"{emulator}: ceiling: datagrams lost in socket buffers, 2 {who} flows, {rate}",
                    lost,
                    "none",
                    lost == 0,
                )
            )
    records.append(
        record(f"{emulator}: ceiling: most carried by 2 {who} flows (Mb/s)", sustained / 1e6)
    )
    return records


def record(measure: str, value: float, goal: str = "", holds: bool | None = None) -> dict:
    """One measure, with the load average over the minute before it was taken."""
    return {
        "measure": measure,
        "value": float(value),
        "goal": goal,
        "holds": holds,
        "load": os.getloadavg()[0],
    }


def cell(value: float, measure: str = "") -> str:
    """A count of datagrams whole, a rate or ratio to four decimals, a rate in Mb/s to one."""
    if measure.startswith("ceiling: datagrams"):
        return f"{value:.0f}"
    return f"{value:.1f}" if abs(value) >= 10 else f"{value:.4f}"


def markdown(records: list[dict]) -> str:
    """The measures as docs/realnet.md's table: one row per measure, the user-space and the
    kernel emulator side by side, then the range of load averages they were taken at."""
    rows: dict[str, dict[str, dict]] = {}
    for r in records:
        emulator, measure = r["measure"].split(": ", 1)
        rows.setdefault(measure, {})[emulator] = r
    lines = ["| measure | user space | kernel | goal |", "|---|---:|---:|---|"]
    for measure, by in rows.items():
        cells = [cell(by[e]["value"], measure) if e in by else "" for e in ("user", "kernel")]
        goal = next(iter(by.values()))["goal"]
        lines.append(f"| {measure} | {cells[0]} | {cells[1]} | {goal} |")
    loads = [r["load"] for r in records]
    lines.append("")
    lines.append(
        f"Load average over the last minute: {min(loads):.1f}-{max(loads):.1f} while the rows "
        f"were measured, on {os.cpu_count()} cores."
    )
    return "\n".join(lines)


def emulator_records(emulator: str, seconds: float) -> list[dict]:
    """Rate at 10 and 100 Mb/s, delay, pacing and ceiling with the bottleneck queue of
    `emulator` ("user" or "kernel")."""
    full = ccscope.run(cbr(12, seconds, emulator)).flows.iloc[0]
    fast = ccscope.run(cbr(120, seconds, emulator, link_mbps=100)).flows.iloc[0]
    light = ccscope.run(cbr(5, seconds, emulator)).flows.iloc[0]
    records = []
    for measure, achieved in (
        ("10 Mb/s", full["host_rx_bps"] / 10e6),
        ("100 Mb/s", fast["host_rx_bps"] / 100e6),
    ):
        records.append(
            record(
                f"{emulator}: rate: achieved / configured, {measure} link",
                achieved,
                "within 1%",
                bool(abs(achieved - 1) <= 0.01),
            )
        )
    late_p99 = light["arrival_late_p99_ms"]
    records += [
        record(f"{emulator}: delay: lateness p50 (ms)", light["arrival_late_p50_ms"]),
        record(
            f"{emulator}: delay: lateness p99 (ms)",
            late_p99,
            "at most 0.5 ms",
            bool(late_p99 <= 0.5),
        ),
        record(f"{emulator}: pacing: timer lateness p50 (ms)", light["timer_late_p50_ms"]),
        record(f"{emulator}: pacing: timer lateness p99 (ms)", light["timer_late_p99_ms"]),
    ]
    records += ceiling(emulator, "TCP", lambda r, s: two_tcp(r, s, emulator), seconds)
    try:
        records += ceiling(emulator, "Linux TCP", lambda r, s: two_linux(r, s, emulator), seconds)
    except ScenarioError as e:
        print(f"{emulator}: Linux TCP rows left out: {e}")
    return records


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--out", type=Path, default=ROOT / "out" / "realnet.json")
    ap.add_argument("--markdown", action="store_true", help="print docs/realnet.md's table")
    args = ap.parse_args()
    records = emulator_records("user", args.seconds)
    try:
        records += emulator_records("kernel", args.seconds)
    except ScenarioError as e:
        if e.path != "run.emulator":
            raise
        print(f"kernel rows left out: {e}")
    load = os.getloadavg()[0]
    if args.markdown:
        print(markdown(records))
    else:
        for r in records:
            holds = "" if r["holds"] is None else ("holds" if r["holds"] else "MISSES")
            print(
                f"{r['measure']:64s} {r['value']:10.4f}  {r['goal']:15s} {holds:6s}"
                f" load {r['load']:.2f}"
            )
        print(f"load average over the last minute: {load:.2f} on {os.cpu_count()} cores")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    summary = {"load": load, "seconds": args.seconds, "records": records}
    args.out.write_text(json.dumps(summary, indent=1))


if __name__ == "__main__":
    main()
