"""The `ccscope` command line.

The annotations here are evaluated where they are written (no ``from __future__ import
annotations``): typer reads every command's parameters from them at each start, and evaluating
them from strings would cost about 10 ms of every command.
"""

import functools
import sys
from pathlib import Path
from typing import Annotated

import typer

from . import __version__
from .errors import CcscopeError, ScenarioError

app = typer.Typer(
    help="ccscope: a laboratory for end-to-end congestion control. Run scenarios at packet "
    "level or in the round model, list the controllers, and check a controller against the "
    "papers' theory.",
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=None,
)


class _Console:
    """A rich console made on first use, so that `ccscope run -q` never loads rich. Pipes and
    CI logs get 120 columns rather than rich's 80, so tables do not wrap. It reads no markup:
    what it prints (a file name, a message with [brackets]) is printed as it is."""

    def __init__(self, stderr: bool = False) -> None:
        self._stderr = stderr
        self._console = None

    def __getattr__(self, name: str):
        if self._console is None:
            from rich.console import Console

            tty = (sys.stderr if self._stderr else sys.stdout).isatty()
            self._console = Console(stderr=self._stderr, width=None if tty else 120, markup=False)
        return getattr(self._console, name)


out = _Console()
err = _Console(stderr=True)


def _bold(text: str, style: str = "bold"):
    from rich.text import Text

    return Text(text, style=style)


def _error(message: str) -> None:
    """One error line on stderr."""
    err.print(_bold("error:", "bold red"), message, highlight=False, soft_wrap=True)


def _fail(message: str) -> typer.Exit:
    """Tells `message` as the error line; the exit (status 2) to raise."""
    _error(message)
    return typer.Exit(code=2)


#: Exit status of a command that met a bug of ccscope's (2 is the user's input, or files).
BUG_EXIT = 1


def _expected(e: Exception) -> str | None:
    """The one line an expected failure (user input, files, stores, user code) is told in,
    or None for a bug of ccscope's."""
    import json

    if isinstance(e, CcscopeError):
        return str(e)
    if isinstance(e, OSError):
        names = " -> ".join(str(f) for f in (e.filename, e.filename2) if f is not None)
        reason = e.strerror or str(e) or type(e).__name__
        return f"{names}: {reason}" if names else reason
    if isinstance(e, MemoryError):
        return f"out of memory{f' ({e})' if str(e) else ''}"
    if isinstance(e, (json.JSONDecodeError, UnicodeDecodeError)):
        return f"cannot read JSON or text: {e}"
    library = type(e).__module__.split(".")[0].lstrip("_")
    if library in ("duckdb", "pyarrow"):
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        return f"{library}: {first}"
    return None


def _click_exceptions() -> tuple[type[BaseException], ...]:
    """What the command line itself raises to end a command: typer's exits and click's
    errors (typer.BadParameter, ...)."""
    click_error = sys.modules[_usage_error().__module__].ClickException
    return (typer.Exit, typer.Abort, click_error)


def _bounded(fn):
    """`fn` as a command whose every expected failure is one line and exit status 2
    (:func:`_expected`); a bug shows its traceback and asks to be reported (exit 1).
    Ctrl-C, and the command line's own exits, pass through."""

    @functools.wraps(fn)
    def command(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except _click_exceptions():
            raise
        except Exception as e:
            line = _expected(e)
            if line is None:
                import traceback

                traceback.print_exception(e)
                _error(
                    f"this is a bug in ccscope ({type(e).__name__}), not a problem with the "
                    "input: please report it with the command and the traceback above"
                )
                raise typer.Exit(code=BUG_EXIT) from None
            raise _fail(line) from None

    return command


def command(fn):
    """Registers `fn` as a command of the app behind :func:`_bounded`."""
    return app.command()(_bounded(fn))


def _print_notes(sc) -> None:
    """The scenario's notes (an old spelling read as the new one), one line each."""
    for note in sc.notes:
        err.print(f"note: {note}", highlight=False, soft_wrap=True)


def _si(x: float, unit: str) -> str:
    for scale, prefix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(x) >= scale:
            return f"{x / scale:.3f} {prefix}{unit}"
    return f"{x:.3f} {unit}"


def _print_summary(result) -> None:
    """The run's tables, from its plain rows (summary.json's), so that printing them loads
    no pandas."""
    from rich.table import Table

    rows = result.flow_records()
    flows = Table(title=f"flows (measured over {result.measured_s:g} s)", title_justify="left")
    for col in ("flow", "source", "throughput", "send rate", "loss rate", "mean delay"):
        flows.add_column(col, justify="right" if col != "source" else "left")
    for i, f in enumerate(rows):
        flows.add_row(
            str(i),
            f["label"],
            _si(f["throughput_bps"], "b/s"),
            _si(f["send_rate_bps"], "b/s"),
            f"{f['loss_rate']:.4%}",
            f"{f['mean_delay_s'] * 1e3:.2f} ms",
        )
    out.print(flows)
    links = Table(title="bottleneck links", title_justify="left")
    for col in (
        "link",
        "capacity",
        "util",
        "mean q",
        "max q",
        "p99 wait",
        "drops",
        "marks",
        "losses",
        "drop rate",
    ):
        links.add_column(col, justify="right" if col != "link" else "left")
    for link in result.link_records():
        links.add_row(
            link["name"],
            _si(link["rate_bps"], "b/s").replace(".000", ""),
            f"{link['utilization']:.1%}",
            f"{link['mean_queue_pkts']:.1f}",
            str(link["max_queue_pkts"]),
            f"{link['sojourn_p99_s'] * 1e3:.2f} ms" if "sojourn_p99_s" in link else "-",
            str(link["drops"]),
            str(link["marks"]),
            str(link["losses"]),
            f"{link['drop_rate']:.2%}",
        )
    out.print(links)
    timing = result.timing()
    if timing is not None:
        from .engine import AIM_MS, RATE_AIM

        out.print(
            f"timing: datagrams up to {timing['delay_late_p99_ms']:.3g} ms late out of the "
            f"network and {timing['entry_late_p99_ms']:.3g} ms into it"
            + (
                f", packets {timing['release_late_p99_ms']:.3g} ms out of the kernel's queue"
                if "release_late_p99_ms" in timing
                else ""
            )
            + f" (p99; goal at most {AIM_MS:g} ms), hosts' rates within "
            f"{timing['rate_error']:.2%} of the network's (goal {RATE_AIM:.0%})"
            + (
                f", {timing['socket_drops']} lost outside the emulated network (goal none)"
                if timing["socket_drops"]
                else ""
            )
            + ": "
            + ("goals met" if not timing["missed"] else "MISSED, see the note above"),
            highlight=False,
            soft_wrap=True,
        )
    _print_media(rows)
    _print_frames(rows)
    classes = result.fairness_by_class()
    out.print(
        "fairness per class: "
        + ", ".join(
            f"{c} ({f['flows']}) Jain {f['jain']:.4f}, min/max {f['min_max']:.4f}"
            for c, f in classes.items()
        ),
        highlight=False,
    )
    if len(classes) > 1:
        fair = result.fairness()
        out.print(
            f"all flows together: Jain {fair['jain']:.4f}, min/max {fair['min_max']:.4f}",
            highlight=False,
        )
    out.print(f"events: {result.events:,}   seed: {result.seed}")


def _print_media(flows: list[dict]) -> None:
    """The playback receivers' table, when the run has any (`flows`: its flow records)."""
    from rich.table import Table

    media = [(i, f) for i, f in enumerate(flows) if "interruptions" in f]
    if not media:
        return
    table = Table(title="media flows (playback receivers)", title_justify="left")
    video = any("freeze_fraction" in f for _, f in media)
    resent = any("retransmissions_sent" in f for _, f in media)
    for col in (
        "flow",
        "source",
        "playback rate",
        "interruptions",
        "frozen",
        "max rx queue",
        "VDI",
        "delayed",
        *(["freeze frames"] if video else []),
        *(["resent (useful)"] if resent else []),
    ):
        table.add_column(col, justify="right" if col != "source" else "left")
    for i, f in media:
        frames = []
        if video:
            frames = [
                "-"
                if "freeze_fraction" not in f
                else f"{f['freeze_frames']:.0f}/{f['frames']:.0f} ({f['freeze_fraction']:.1%})"
            ]
        if resent:
            frames.append(
                "-"
                if "retransmissions_sent" not in f
                else f"{f['retransmissions_sent']:.0f} ({f['retransmissions_useful']:.0f})"
            )
        table.add_row(
            str(i),
            f["label"],
            _si(f["playback_rate_bps"], "b/s"),
            f"{f['interruptions']:.0f}",
            f"{f['frozen_s']:.2f} s ({f['frozen_fraction']:.1%})",
            _si(f["max_receiver_queue_bytes"], "B"),
            f"{f['vdi']:.4f}",
            f"{f['delayed_pkt_rate']:.2%}",
            *frames,
        )
    out.print(table)


def _print_frames(flows: list[dict]) -> None:
    """The video frames' table of the flows that carry an encoder (their receivers measure
    frame delay and freezes), when the run has any."""
    from rich.table import Table

    video = [(i, f) for i, f in enumerate(flows) if "frames_rendered" in f]
    if not video:
        return
    table = Table(title="video frames (capture to complete frame)", title_justify="left")
    for col in ("flow", "source", "rendered", "delay p50", "delay p95", "freezes"):
        table.add_column(col, justify="right" if col != "source" else "left")
    for i, f in video:
        table.add_row(
            str(i),
            f["label"],
            f"{f['frames_rendered']:.0f}/{f['frames_captured']:.0f}",
            f"{f['frame_delay_p50_s'] * 1e3:.1f} ms",
            f"{f['frame_delay_p95_s'] * 1e3:.1f} ms",
            f"{f['video_freezes']:.0f} ({f['video_frozen_s']:.2f} s)",
        )
    out.print(table)


def _print_round_summary(result) -> None:
    from rich.table import Table

    flows = Table(
        title=f"round model: {result.n_flows} flows, {result.measured_steps} steps measured",
        title_justify="left",
    )
    for col in ("flow", "controller", "mean load", "mean rate"):
        flows.add_column(col, justify="right" if col != "controller" else "left")
    for _, f in result.flows.head(20).iterrows():
        flows.add_row(
            str(f.flow), f["name"], f"{f.mean_load_pkts:.3f} pkts/RTT", _si(f.mean_rate_bps, "b/s")
        )
    out.print(flows)
    if result.n_flows > 20:
        out.print(f"... and {result.n_flows - 20} more flows (see summary.json)")
    fair = result.fairness()
    out.print(
        f"loss rate {result.loss_rate:.4%}   utilization {result.utilization:.4%}   "
        f"Jain {fair['jain']:.4f}, min/max {fair['min_max']:.4f}   seed {result.seed}"
    )


FORCE_HELP = "Run even when the estimated cost (events, memory) is beyond what runs by default."
SET_HELP = (
    "Override one setting as if the file had it written so, e.g. "
    "topology.bottleneck.rate=20Mbps or flows[1].count=4 (VALUE is read as TOML, or as text); "
    "repeatable."
)
Settings = Annotated[list[str] | None, typer.Option("--set", metavar="PATH=VALUE", help=SET_HELP)]


def _settings(items: list[str] | None) -> dict:
    """The ``--set PATH=VALUE`` options as ``{path: value}``, the last of a path winning."""
    from .scenario import parse_setting

    return dict(parse_setting(item) for item in items or ())


@command
def run(
    scenario: Annotated[
        Path,
        typer.Argument(
            help="Scenario TOML file (packet model, or "
            'the round model with run.engine = "round"), '
            "or a run's summary.json to run it again."
        ),
    ],
    out_dir: Annotated[
        Path,
        typer.Option(
            "--out",
            "-o",
            help="Directory for summary.json, "
            "traces (Parquet) and the plot; a previous run "
            "there is replaced whole.",
        ),
    ] = Path("out"),
    seed: Annotated[int | None, typer.Option(help="Override run.seed.", min=0)] = None,
    plot: Annotated[bool, typer.Option(help="Write overview.png when the run is traced.")] = True,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No summary table.")] = False,
    force: Annotated[bool, typer.Option("--force", help=FORCE_HELP)] = False,
    settings: Settings = None,
) -> None:
    """Run a scenario, print a summary table, and write DIR/summary.json and the traces.
    The destination is checked, and held against other writers, before the run; the files
    appear together when it ends. SCENARIO may name a scenario ccscope ships (dumbbell-mix)."""
    from .engine import run as run_scenario
    from .errors import ControllerError, Interrupted
    from .output import claimed, moved, output_dir
    from .progress import RunProgress
    from .scenario import load

    sc = load(scenario, _settings(settings))
    if seed is not None:
        sc = sc.with_seed(seed)
    # The destination as it is now: a controller that changes the working directory does not
    # move it.
    with claimed(out_dir) as dest:
        progress = (
            False if quiet else RunProgress("steps" if sc.engine == "round" else "s", delay=2.0)
        )
        _print_notes(sc)
        warm = None
        if plot and sc.engine != "round" and "trace" in sc.table:
            from .report import warm_up

            warm = warm_up()
        try:
            result = run_scenario(sc, progress=progress, force=force)
        except ControllerError as e:
            partial = getattr(e, "result", None)
            if partial is None:
                raise
            written = moved(partial.write(dest), dest, out_dir)
            _error(str(e))
            err.print(
                "wrote what was measured until then, marked partial: "
                + ", ".join(map(str, written)),
                highlight=False,
                soft_wrap=True,
            )
            raise typer.Exit(code=2) from None
        except Interrupted as e:
            written = moved(e.result.write(dest), dest, out_dir)
            err.print(
                "interrupted: wrote what was measured so far, marked partial: "
                + ", ".join(map(str, written)),
                highlight=False,
            )
            raise typer.Exit(code=130) from None
        with output_dir(dest) as tmp:
            written = result.write_files(tmp)
            if plot and sc.engine != "round":
                from . import report

                if warm is not None:
                    warm.join()

                for png in (
                    report.overview(result, tmp / "overview.png"),
                    report.playback(result, tmp / "playback.png"),
                ):
                    if png is not None:
                        written.append(png)
    written = moved(written, tmp, out_dir)
    for note in getattr(result, "notes", []):
        err.print(f"note: {note}", highlight=False, soft_wrap=True)
    if quiet:
        return
    if sc.engine == "round":
        _print_round_summary(result)
    else:
        _print_summary(result)
    out.print("wrote " + ", ".join(str(p) for p in written), highlight=False)


@command
def validate(
    scenario: Annotated[Path, typer.Argument(help="Scenario TOML file.")],
    force: Annotated[bool, typer.Option("--force", help=FORCE_HELP)] = False,
    settings: Settings = None,
) -> None:
    """Check a scenario file without running it, what running it would cost included; exit 2
    with the first problem found."""
    from .scenario import cost, load
    from .scenario import validate as check_scenario

    sc = check_scenario(load(scenario, _settings(settings)), force=force)
    _print_notes(sc)
    if sc.engine == "round":
        summary = f"{sc.n_flows} flows, round model"
    else:
        summary = (
            f"{sc.n_flows} flows, {sc.table['topology']['kind']} topology, "
            f"{sc.table['run']['duration']}"
        )
    summary += f"; {cost(sc)['text']}"
    out.print(f"{scenario}: ok ({summary})", highlight=False)


@command
def schema(
    engine: Annotated[
        str, typer.Argument(help="Which scenario files: packet or round.")
    ] = "packet",
) -> None:
    """Print the JSON Schema of scenario files (packet model or round model), for editors and
    documentation. It is derived from the core's own scenario types."""
    import json

    from .scenario import schema as scenario_schema

    print(json.dumps(scenario_schema(engine), indent=2))


def _params(items: list[str] | None, controller: str | None = None) -> dict:
    """--param NAME=VALUE options as a dict: numbers, and for a controller written in Python
    (``python:...``) also text, which its class reads as a scenario's parameters are read
    (``target=20ms``)."""
    python = bool(controller and controller.startswith("python:"))
    params: dict = {}
    for item in items or []:
        name, eq, value = item.partition("=")
        name = name.strip()
        if not eq or not name:
            raise ScenarioError.at("--param", item, "NAME=VALUE")
        if name in params:
            raise ScenarioError.at("--param", item, f"{name} given once (it was given twice)")
        try:
            params[name] = float(value)
        except ValueError:
            if not python:
                raise ScenarioError.at("--param", item, "NAME=VALUE with a number") from None
            params[name] = value.strip()
    return params


@command
def trace(
    kind: Annotated[str, typer.Argument(help="step (a table) or cellular (mahimahi's format).")],
    out_file: Annotated[
        Path | None, typer.Option("--out", "-o", help="Write here (default: standard output).")
    ] = None,
    seed: Annotated[int, typer.Option(help="The cellular trace's seed.", min=0)] = 1,
    duration: Annotated[float, typer.Option(help="The cellular trace's length (seconds).")] = 10.0,
) -> None:
    """Write a synthetic link capacity trace for a link's capacity_trace: a step pattern (a
    table of time and rate rows) or a variable cellular-like link (mahimahi's format). With
    the defaults they are the files under scenarios/traces/, byte for byte."""
    from . import traces

    if kind not in traces.GENERATORS:
        raise ScenarioError.at("kind", kind, "step or cellular")
    text = traces.step() if kind == "step" else traces.cellular(seed, duration)
    if out_file is None:
        sys.stdout.write(text)
        return
    try:
        out_file.write_text(text, encoding="utf-8")
    except OSError as e:
        raise _fail(f"{out_file}: cannot write ({e.strerror or e})") from None
    out.print(f"wrote {out_file}", highlight=False)


@command
def check(
    controller: Annotated[
        str | None,
        typer.Argument(
            help="A controller of `ccscope controllers` (e.g. tcp, gaimd, cubic, tfrc), or "
            "python:module:Object (a class or factory in module.py here)."
        ),
    ] = None,
    param: Annotated[
        list[str] | None,
        typer.Option("--param", "-p", help="Controller parameter NAME=VALUE (repeatable)."),
    ] = None,
    binomial: Annotated[
        str | None,
        typer.Option(
            help="Check a binomial control k,l,alpha,beta instead of a name: w <- w + alpha/w^k "
            "per RTT, w <- w - beta*w^l on congestion (beta removed, 0 < beta < 1)."
        ),
    ] = None,
    x_min: Annotated[float, typer.Option(help="Low end of the rate range checked.")] = 1.0,
    x_max: Annotated[float, typer.Option(help="High end of the rate range checked.")] = 1000.0,
    window: Annotated[
        float, typer.Option(help="Link capacity W (packets per RTT) for the efficiency estimate.")
    ] = 100.0,
    flows: Annotated[int, typer.Option(help="Flows n for efficiency and loss.", min=1)] = 1,
    measure: Annotated[
        bool,
        typer.Option(
            "--measure",
            help="Also measure convergence and friendliness against TCP in the round model "
            "(always done for a controller without a binomial form).",
        ),
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
) -> None:
    """Analyse a controller with the papers' theory: monotonic convergence (Loguinov (15),
    (19), (21), (22)), convergence iff k + l > 0, TCP-friendliness, the packet-loss scalability
    exponent l + 2k + 1, efficiency at n flows (28) and ideal scalability (38). A name is
    resolved by the core to the binomial it runs. A controller without a binomial form (CUBIC,
    Vegas, SIMD, a rate controller, a ccscope.Controller) is measured in the round model
    instead: convergence to fairness from Jin et al.'s starting points, and its throughput
    against TCP's."""
    import json

    from .check import check as run_check
    from .check import format_report, parse_binomial

    try:
        if binomial is not None:
            if controller is not None or param:
                raise ScenarioError(
                    "give either a CONTROLLER name (with --param) or "
                    "--binomial k,l,alpha,beta, not both"
                )
            target: object = parse_binomial(binomial)
        elif controller is not None:
            target = controller
        else:
            raise ScenarioError("give a CONTROLLER name or --binomial k,l,alpha,beta")
        report = run_check(
            target,
            _params(param, controller),
            x_min=x_min,
            x_max=x_max,
            window=window,
            flows=flows,
            measure=measure,
        )
    except ValueError as e:  # the theory's functions refuse values outside their domain
        raise _fail(str(e)) from None
    if as_json:
        print(json.dumps(report, indent=2))
    else:
        out.print(format_report(report), highlight=False)


@command
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
        out.print(_bold(e["name"]), f"({e['family']})  {e['summary']}", highlight=False)
        out.print(f"  convention: {e['convention']}", highlight=False)
        out.print(f"  source: {e['paper']}", highlight=False)
        for p in e["params"]:
            default = (
                "required"
                if p["required"]
                else "derived"
                if p["default"] is None
                else f"default {p['default']:g}"
            )
            out.print(
                f"    {p['name']:<6} [{p['min']:g}, {p['max']:g}]  {default:<14} {p['meaning']}",
                highlight=False,
            )
    out.print(
        'Use in a scenario: window controllers in TCP sources, source = { kind = "tcp", '
        'controller = { name = "gaimd", beta = 0.875 } }; rate controllers in rate '
        'sources, source = { kind = "rate", controller = "tfrc" }; controllers written in '
        'Python as "python:module:Object", with parameters as { name = "python:module:Object", '
        "alpha = 2 }.",
        highlight=False,
    )


@command
def sweep(
    file: Annotated[
        Path,
        typer.Argument(
            help="Sweep file: a base scenario, [axes] (dotted path = [values]) and seeds."
        ),
    ],
    store: Annotated[Path, typer.Option(help="DuckDB results store (created if missing).")],
    jobs: Annotated[
        int | None, typer.Option("--jobs", "-j", min=1, help="Parallel runs (default: the cores).")
    ] = None,
    executor: Annotated[str, typer.Option(help="local (processes) or ray.")] = "local",
    address: Annotated[
        str | None, typer.Option(help="Ray cluster address (default: a local Ray instance).")
    ] = None,
    show: Annotated[
        bool, typer.Option(help="Print mean and 95% CI over seeds per point instead of running.")
    ] = False,
    per_class: Annotated[
        bool,
        typer.Option(
            "--per-class",
            help="With --show: per point and class (the flows of one label): share of the "
            "bottleneck, throughput, loss, delay.",
        ),
    ] = False,
    metric: Annotated[
        list[str] | None,
        typer.Option("--metric", "-m", help="Metric(s) to show or plot (repeatable)."),
    ] = None,
    axis: Annotated[str | None, typer.Option(help="Axis to plot against.")] = None,
    plot: Annotated[
        Path | None,
        typer.Option(help="With --show: write a PNG of the first --metric against --axis."),
    ] = None,
    progress: Annotated[bool, typer.Option(help="Show a progress bar.")] = True,
    time_limit: Annotated[
        float | None,
        typer.Option(
            help="Seconds one run may take before it is stopped and recorded as failed "
            "(default: from the run's cost estimate, see docs/cli.md).",
            min=0.001,
        ),
    ] = None,
    force: Annotated[
        bool,
        typer.Option(
            "--force", help="Run a sweep of more runs than run by default (see docs/cli.md)."
        ),
    ] = False,
    settings: Settings = None,
) -> None:
    """Run a sweep into a DuckDB store: runs already in the store are skipped, a failed run is
    recorded with its error; --show summarizes the sweep's runs over seeds. --set overrides an
    entry of the sweep file (seeds=[1,2]; base.run.duration=10s also when base names a file).
    Exit status 1 when some runs failed, 2 when every run failed or the sweep could not start."""
    from . import sweep as sweeps

    if per_class and plot is not None:
        raise ScenarioError.at(
            "--plot",
            str(plot),
            "not with --per-class (ccscope report STORE draws each class against every axis)",
        )
    spec = sweeps.load_sweep(file, _settings(settings))
    if show:
        ids = [t.run_id for t in spec.tasks(force=force, progress=progress)]
        table = (sweeps.summarize_classes if per_class else sweeps.summarize)(store, metric, ids)
        if table.empty:
            out.print(f"{store} holds no finished run of {file}", highlight=False)
            return
        out.print(sweeps.summary_table(table))
        if plot is not None:
            first = metric[0] if metric else "throughput_bps"
            out.print(f"wrote {sweeps.plot(store, first, axis, plot, ids)}", highlight=False)
        return
    done = sweeps.run(
        spec,
        store,
        jobs,
        executor,
        address,
        progress=progress,
        time_limit_s=time_limit,
        force=force,
    )
    out.print(
        f"{done.total} runs: {done.ran} run, {done.skipped} already in {store}, "
        f"{done.failed} failed",
        highlight=False,
    )
    for run_id, error in list(done.errors.items())[:5]:
        out.print(f"  {run_id}: {error}", highlight=False)
    if done.notes:
        n = len(done.notes)
        err.print(
            f"note: {'1 run has' if n == 1 else f'{n} runs have'} notes (the store's notes "
            "column), such as "
            + "; ".join(f"{run_id}: {notes[0]}" for run_id, notes in list(done.notes.items())[:3]),
            highlight=False,
            soft_wrap=True,
        )
    if done.stopped:
        _error(done.stopped)
        raise typer.Exit(code=2)
    if done.failed:
        every = done.failed == done.ran
        _error(
            ("every run failed" if every else f"{done.failed} of {done.ran} runs failed")
            + f" (recorded in {store} with their errors, and run again by the same command)"
        )
        raise typer.Exit(code=2 if every else 1)


@command
def reproduce(
    id: Annotated[str | None, typer.Argument(help="A reproduction id (see --list).")] = None,  # noqa: A002
    list_: Annotated[bool, typer.Option("--list", help="List the reproductions.")] = False,
    all_: Annotated[bool, typer.Option("--all", help="Run every reproduction.")] = False,
    real_time: Annotated[
        bool,
        typer.Option(
            help="With --all, also the real-time ones on "
            "real packets (their numbers vary run to run)."
        ),
    ] = False,
    quick: Annotated[bool, typer.Option(help="The short version of each (seconds).")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
    markdown: Annotated[
        bool, typer.Option(help="One Markdown table (the docs' validation page).")
    ] = False,
    failing: Annotated[
        bool,
        typer.Option(help="With --markdown: only the claims that do not hold, each with why."),
    ] = False,
    figures: Annotated[
        Path | None,
        typer.Option(help="Draw the papers' figures with ccscope's curves into this folder."),
    ] = None,
    explore: Annotated[
        list[str] | None,
        typer.Option(
            help="NAME=LOW:HIGH[:N]: sweep a set-up parameter the paper does not print (N "
            "values, 5 by default; repeat for a grid) and show where each claim holds."
        ),
    ] = None,
    jobs: Annotated[
        int | None, typer.Option("--jobs", "-j", help="With --explore: points run at once.")
    ] = None,
    store: Annotated[
        Path | None,
        typer.Option(help="With --explore: the DuckDB file to store the points in."),
    ] = None,
    stored: Annotated[
        bool,
        typer.Option(
            help="linux-reno, linux-cubic, linux-bbr: Linux's side from its stored runs "
            "(ccscope/linuxruns.json) instead of running it; the model still runs."
        ),
    ] = False,
) -> None:
    """Reproduce the papers' results: for each quantity the published value, ccscope's, the
    tolerance and whether it holds, and where it does not, why."""
    import json

    from . import reproduce as reproductions
    from .output import writable_folder

    if explore:
        from . import explore as exploring
        from .progress import RunProgress

        if id is None or all_:
            raise ScenarioError("--explore takes one reproduction ID")
        r = reproductions.get(id)
        axes = [exploring.parse(spec, r.knob_table()) for spec in explore]
        table = exploring.run(
            r.id, axes, quick, jobs, store, RunProgress("points", delay=2.0, label="explored")
        )
        if as_json:
            print(json.dumps(exploring.regions(table), indent=2, ensure_ascii=False))
        elif markdown:
            print(exploring.markdown(r.id, table), end="")
        else:
            out.print(exploring.rich_table(r.id, table))
            out.print(exploring.markdown(r.id, table), highlight=False)
        return

    if list_:
        entries = reproductions.listing()
        if as_json:
            print(json.dumps(entries, indent=2))
        for e in [] if as_json else entries:
            out.print(_bold(f"{e['id']:<16}"), f"{e['title']} ({e['source']})", highlight=False)
            for name, meaning in e["knobs"].items():
                out.print(f"    --explore {name}: {meaning}", highlight=False)
        return
    if all_ == (id is not None):
        raise ScenarioError("give one reproduction ID, --all or --list")
    if failing and not markdown:
        raise ScenarioError("--failing goes with --markdown")
    ids = reproductions.ids(real_time) if all_ else [reproductions.get(id).id]
    if figures is not None:
        writable_folder(figures, "--figures")
    reports = []
    for rid in ids:
        if all_ and not as_json and not markdown:
            err.print(f"running {rid} ...", highlight=False)
        # With --all, --stored applies to the reproductions that have stored runs.
        here = stored and (not all_ or reproductions.get(rid).stored)
        reports.append(reproductions.run(rid, quick=quick, figures=figures, stored=here))
    if as_json:
        print(json.dumps(reports if all_ else reports[0], indent=2, ensure_ascii=False))
    elif markdown:
        print(reproductions.markdown(reports, failing), end="")
    else:
        for report in reports:
            out.print(reproductions.table(report))
            if "figure" in report:
                out.print(f"wrote {report['figure']}", highlight=False)


@command
def report(
    path: Annotated[
        Path,
        typer.Argument(help="A run directory (ccscope run --out DIR) or a sweep store (.duckdb)."),
    ],
    output: Annotated[Path, typer.Option("--output", "-o", help="The HTML file to write.")] = Path(
        "report.html"
    ),
) -> None:
    """Write a self-contained HTML report: scenario, provenance, summary tables and figures
    (for a sweep, every metric against each axis with its 95% band)."""
    from .htmlreport import write

    out.print(f"wrote {write(path, output)}", highlight=False)


#: The options the scorecard commands share.
Quick = Annotated[bool, typer.Option(help="Shorter runs, fewer seeds.")]
ScorecardStore = Annotated[
    Path | None,
    typer.Option(
        help="Store caching the packet runs (default: ~/.cache/ccscope/scorecard-model<N>.duckdb)."
    ),
]
ScorecardJobs = Annotated[
    int | None, typer.Option("--jobs", "-j", min=1, help="Parallel runs (default: the cores).")
]
AsJson = Annotated[bool, typer.Option("--json", help="Machine-readable output.")]


@command
def scorecard(
    controller: Annotated[
        str,
        typer.Argument(
            help="A controller of `ccscope controllers` "
            "(e.g. gaimd, tfrc), or python:module:object."
        ),
    ],
    param: Annotated[
        list[str] | None,
        typer.Option("--param", "-p", help="Controller parameter NAME=VALUE (repeatable)."),
    ] = None,
    quick: Quick = False,
    store: ScorecardStore = None,
    jobs: ScorecardJobs = None,
    as_json: AsJson = False,
) -> None:
    """One table for one controller beside TCP and beside theory: the theory's verdicts, the
    round model's efficiency, loss scalability and convergence, and the packet model's
    TCP-friendliness, smoothness and aggressiveness (mean and 95% CI over seeds)."""
    import json

    from .scorecard import scorecard as make
    from .scorecard import table

    card = make(controller, _params(param), quick=quick, store=store, jobs=jobs)
    if as_json:
        print(json.dumps(card, indent=2, ensure_ascii=False))
    else:
        out.print(table(card))


def scorecard_table(
    controllers: Annotated[
        list[str] | None,
        typer.Argument(
            help="Controllers of `ccscope controllers` at their defaults (default: the seed "
            "papers' controllers, CUBIC, BBR v1, BBR v3, Copa, GCC, NADA and SCReAM)."
        ),
    ] = None,
    quick: Quick = False,
    store: ScorecardStore = None,
    jobs: ScorecardJobs = None,
    as_json: AsJson = False,
) -> None:
    """One table in Markdown (the docs' controllers page), one row per controller: its
    friendliness against TCP (Reno) and against CUBIC on DropTail and RED, and Yang et al.'s
    smoothness, responsiveness and aggressiveness (mean over seeds and 95% CI), in the
    scorecard's packet set-ups."""
    import json

    from .scorecard import COMPARED, compare, compare_markdown

    chosen = COMPARED if not controllers else tuple((c, {}) for c in controllers)
    table_ = compare(chosen, quick=quick, store=store, jobs=jobs)
    if as_json:
        print(json.dumps(table_, indent=2, ensure_ascii=False))
    else:
        print(compare_markdown(table_), end="")


app.command("scorecard-table")(_bounded(scorecard_table))

RmcatStore = Annotated[
    Path | None,
    typer.Option(help="Store of the runs (default: ~/.cache/ccscope/rmcat-model<N>.duckdb)."),
]
RmcatEngine = Annotated[str, typer.Option(help="packet (simulated) or udp (real packets).")]
RmcatTcp = Annotated[str, typer.Option(help="The TCP competitor: reno, newreno or cubic.")]


@command
def rmcat(
    controller: Annotated[
        str,
        typer.Argument(
            help="A controller of `ccscope controllers` (e.g. tfrc), or python:module:object."
        ),
    ],
    param: Annotated[
        list[str] | None,
        typer.Option("--param", "-p", help="Controller parameter NAME=VALUE (repeatable)."),
    ] = None,
    case: Annotated[
        list[str] | None,
        typer.Option("--case", "-c", help="Run only this case (repeatable; e.g. 5.1, 6.2)."),
    ] = None,
    engine: RmcatEngine = "packet",
    tcp: RmcatTcp = "reno",
    seed: Annotated[int, typer.Option(min=0, help="The runs' seed.")] = 1,
    scale: Annotated[
        float,
        typer.Option(help="Shrink every time of the cases by this factor (a smoke test)."),
    ] = 1.0,
    jitter: Annotated[
        str | None,
        typer.Option(
            help="The path's largest jitter, e.g. 30ms (RFC 8867's): RFC 8868's truncated "
            "Gaussian on the bottleneck each way, no reordering. Default: none."
        ),
    ] = None,
    store: RmcatStore = None,
    jobs: ScorecardJobs = None,
    as_json: AsJson = False,
) -> None:
    """The test cases of RFC 8867 with media flows of one controller, measured as RFC 8868
    says: rate against capacity, one-way delay percentiles, loss, feedback, convergence and
    fairness, one row per case. `ccscope report STORE` draws them case by case."""
    import json

    from .rmcat import run, table

    suite = run(
        controller, _params(param, controller), case, engine, tcp, seed, store, jobs, scale, jitter
    )
    if as_json:
        print(json.dumps(suite, indent=2, ensure_ascii=False))
    else:
        out.print(table(suite))


def rmcat_table(
    controllers: Annotated[
        list[str] | None,
        typer.Argument(
            help="Controllers of `ccscope controllers` at their defaults (default: the seed "
            "papers' media and rate controllers, TCP, GCC, NADA and SCReAM)."
        ),
    ] = None,
    engine: RmcatEngine = "packet",
    tcp: RmcatTcp = "reno",
    store: RmcatStore = None,
    jobs: ScorecardJobs = None,
    as_json: AsJson = False,
) -> None:
    """One table in Markdown (the docs' RMCAT page), one row per controller through the RFC 8867
    cases: rate over capacity, 95th-percentile delay, loss, frozen bins and 95th-percentile
    frame delay of case 5.1, fairness among media flows (5.2, 5.4) and against TCP (5.6)."""
    import json

    from .rmcat import HEADLINE, headline, headline_markdown

    chosen = HEADLINE if not controllers else tuple((c, {}) for c in controllers)
    table_ = headline(chosen, engine, tcp, store, jobs)
    if as_json:
        print(json.dumps(table_, indent=2, ensure_ascii=False))
    else:
        print(headline_markdown(table_), end="")


app.command("rmcat-table")(_bounded(rmcat_table))


@command
def version() -> None:
    """Print the ccscope version, its model version (the same scenario, seed and model
    version give the same results) and the commit it was built from ("unknown" when it was
    built outside a git checkout, as from an sdist)."""
    from .output import provenance

    p = provenance()
    dirty = " with uncommitted changes" if p["git_dirty"] else ""
    unknown = " (built outside a git checkout)" if p["git_commit"] == "unknown" else ""
    out.print(
        f"ccscope {__version__}, model version {p['model_version']}, "
        f"commit {p['git_commit']}{dirty}{unknown}",
        highlight=False,
    )


def _print_version(asked: bool) -> None:
    if asked:
        version()
        raise typer.Exit()


@app.callback()
def _options(
    _version: Annotated[
        bool,
        typer.Option(
            "--version",
            is_eager=True,
            callback=_print_version,
            help="Print the version, model version and commit (as `ccscope version`), and exit.",
        ),
    ] = False,
) -> None:
    """ccscope: a laboratory for end-to-end congestion control."""


def _usage_error() -> type[Exception]:
    """Click's UsageError: typer vendors click from 0.17 on, depends on it before."""
    try:
        from typer._click.exceptions import UsageError
    except ImportError:
        from click.exceptions import UsageError
    return UsageError


def main() -> None:
    usage_error = _usage_error()
    try:
        code = app(standalone_mode=False)
    except usage_error as e:
        if type(e).__name__ == "NoArgsIsHelpError":  # `ccscope` alone: the help
            print(e.format_message())
            sys.exit(0)
        # One line: what was wrong, and where help is.
        ctx = getattr(e, "ctx", None)
        command = ctx.command_path if ctx else "ccscope"
        _error(f"{e.format_message()} (see '{command} --help')")
        sys.exit(2)
    except typer.Abort:
        sys.exit(130)
    except KeyboardInterrupt:
        sys.exit(130)
    if isinstance(code, int):
        sys.exit(code)
