"""The `ccscope` command line."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from . import __version__
from .errors import ScenarioError

app = typer.Typer(
    help="ccscope: a laboratory for end-to-end congestion control. Run scenarios at packet "
    "level and get throughput, loss, fairness and queue numbers.",
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=None,
)
out = Console()
err = Console(stderr=True)


def _fail(e: Exception) -> typer.Exit:
    err.print(f"[bold red]error:[/] {e}", highlight=False, soft_wrap=True)
    return typer.Exit(code=2)


def _si(x: float, unit: str) -> str:
    for scale, prefix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(x) >= scale:
            return f"{x / scale:.3f} {prefix}{unit}"
    return f"{x:.3f} {unit}"


def _print_summary(result) -> None:
    flows = Table(title=f"flows (measured over {result.measured_s:g} s)", title_justify="left")
    for col in ("flow", "source", "throughput", "send rate", "loss rate", "mean delay"):
        flows.add_column(col, justify="right" if col != "source" else "left")
    for _, f in result.flows.iterrows():
        flows.add_row(str(f.flow), f.label, _si(f.throughput_bps, "b/s"),
                      _si(f.send_rate_bps, "b/s"), f"{f.loss_rate:.4%}",
                      f"{f.mean_delay_s * 1e3:.2f} ms")
    out.print(flows)
    links = Table(title="bottleneck links", title_justify="left")
    for col in ("link", "capacity", "utilization", "mean queue", "max queue", "drops",
                "marks", "losses", "drop rate"):
        links.add_column(col, justify="right" if col != "link" else "left")
    for _, link in result.bottlenecks.iterrows():
        links.add_row(link["name"], _si(link.rate_bps, "b/s"), f"{link.utilization:.2%}",
                      f"{link.mean_queue_pkts:.2f} pkts", str(link.max_queue_pkts),
                      str(link.drops), str(link.marks), str(link.losses),
                      f"{link.drop_rate:.4%}")
    out.print(links)
    fair = result.fairness()
    out.print(f"fairness: Jain {fair['jain']:.4f}, min/max {fair['min_max']:.4f}   "
              f"events: {result.events:,}   seed: {result.seed}")


@app.command()
def run(
    scenario: Annotated[Path, typer.Argument(help="Scenario TOML file.")],
    out_dir: Annotated[Path, typer.Option("--out", "-o", help="Directory for summary.json, "
                                          "traces (Parquet) and the plot.")] = Path("out"),
    seed: Annotated[int | None, typer.Option(help="Override run.seed.", min=0)] = None,
    plot: Annotated[bool, typer.Option(help="Write overview.png when the run is traced.")] = True,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No summary table.")] = False,
) -> None:
    """Run a scenario, print a summary table, and write DIR/summary.json and the traces."""
    from .engine import run as run_scenario
    from .scenario import load

    try:
        sc = load(scenario)
        if seed is not None:
            sc = sc.model_copy(update={"run": sc.run.model_copy(update={"seed": seed})})
        result = run_scenario(sc)
    except ScenarioError as e:
        raise _fail(e) from None
    written = result.write(out_dir)
    if plot:
        from .report import plot_run

        png = plot_run(result, out_dir / "overview.png")
        if png is not None:
            written.append(png)
    if not quiet:
        _print_summary(result)
        out.print("wrote " + ", ".join(str(p) for p in written), highlight=False)


@app.command()
def validate(scenario: Annotated[Path, typer.Argument(help="Scenario TOML file.")]) -> None:
    """Check a scenario file without running it; exit 2 with the first problem found."""
    from . import _core
    from .scenario import load

    try:
        sc = load(scenario)
        _core.validate_packet(sc.to_core_json())
    except ScenarioError as e:
        raise _fail(e) from None
    except _core.CoreError as e:
        raise _fail(ScenarioError(f"{scenario}: {e}")) from None
    out.print(f"{scenario}: ok ({sum(f.count for f in sc.flows)} flows, "
              f"{sc.topology.kind} topology, {sc.run.duration})", highlight=False)


@app.command()
def controllers(
    as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
) -> None:
    """List every controller: parameters, their ranges and defaults, the beta convention and
    the source paper. Scenario files name them in a TCP source's `controller`."""
    import json

    from .controllers import catalogue

    entries = catalogue()
    if as_json:
        print(json.dumps(entries, indent=2))
        return
    for e in entries:
        out.print(f"[bold]{e['name']}[/]  {e['summary']}", highlight=False)
        out.print(f"  convention: {e['convention']}", highlight=False)
        out.print(f"  source: {e['paper']}", highlight=False)
        for p in e["params"]:
            default = ("required" if p["required"] else
                       "derived" if p["default"] is None else f"default {p['default']:g}")
            out.print(f"    {p['name']:<6} [{p['min']:g}, {p['max']:g}]  {default:<14} "
                      f"{p['meaning']}", highlight=False)
    out.print('Use in a scenario: source = { kind = "tcp", controller = { name = "gaimd", '
              'beta = 0.875 } }; Python controllers as "python:NAME".', highlight=False)


@app.command()
def version() -> None:
    """Print the ccscope version."""
    out.print(f"ccscope {__version__}")


def main() -> None:
    try:
        app()
    except KeyboardInterrupt:
        sys.exit(130)
