"""A self-contained HTML page for a run directory (what ``ccscope run --out DIR`` wrote) or a
sweep store (a DuckDB file): the scenario, provenance, summary tables and figures, every
figure a PNG inlined in the page, so the file can be mailed or archived alone.

>>> ccscope.htmlreport.write("out/main", "report.html")
"""

from __future__ import annotations

import base64
import html
import io
import json
from pathlib import Path

import pandas as pd

from .errors import CcscopeError

STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 1100px; color: #222; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; margin-top: 2em; }
table { border-collapse: collapse; font-size: 0.85em; margin: 0.5em 0; }
th, td { border: 1px solid #ccc; padding: 0.2em 0.5em; text-align: right; }
th { background: #f3f3f3; } td:first-child, th:first-child { text-align: left; }
pre { background: #f7f7f7; padding: 0.8em; overflow-x: auto; font-size: 0.8em; }
figure { margin: 1em 0; } figcaption { font-size: 0.85em; color: #555; }
img { max-width: 100%; }
.partial { color: #a00; font-weight: bold; }
"""


class ReportError(CcscopeError, ValueError):
    """A path that is not a run directory nor a sweep store, named with what was found."""


def _figure(fig, caption: str) -> str:
    import matplotlib.pyplot as plt

    buf = io.BytesIO()
    fig.tight_layout()
    fig.savefig(buf, format="png", dpi=100)
    plt.close(fig)
    data = base64.b64encode(buf.getvalue()).decode()
    return (
        f'<figure><img alt="{html.escape(caption)}" src="data:image/png;base64,{data}">'
        f"<figcaption>{html.escape(caption)}</figcaption></figure>"
    )


def _table(frame: pd.DataFrame, digits: int = 4) -> str:
    def fmt(x) -> str:
        if isinstance(x, float):
            return f"{x:.{digits}g}"
        if isinstance(x, (dict, list)):
            return json.dumps(x)
        return str(x)

    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in frame.columns)
    rows = "".join(
        "<tr>" + "".join(f"<td>{html.escape(fmt(v))}</td>" for v in row) + "</tr>"
        for row in frame.itertuples(index=False)
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>"


def _plots():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _lines(curves: list[tuple], xlabel: str, ylabel: str, caption: str, step: bool = False) -> str:
    """One figure of (x, y, label) curves."""
    plt = _plots()
    fig, ax = plt.subplots(figsize=(9, 3.2))
    for x, y, label in curves:
        if step:
            ax.step(x, y, where="post", lw=0.8, label=label)
        else:
            ax.plot(x, y, lw=0.8, label=label)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, ncol=4)
    return _figure(fig, caption)


def _series_figures(out: Path) -> list[str]:
    """The figures of a run directory's traces: throughput, window and rate per flow, queue,
    playback buffers of media flows; for the round model utilization, loss and the flows' load
    (at most 16 flows drawn)."""
    figures = []
    flows = out / "trace_flows.parquet"
    if flows.exists():
        trace = pd.read_parquet(flows)
        for column, label, scale in (
            ("throughput_bps", "throughput (Mb/s)", 1e-6),
            ("window_pkts", "window (packets)", 1.0),
            ("rate_bps", "sending rate (Mb/s)", 1e-6),
        ):
            if column in trace and trace[column].notna().any():
                curves = [
                    (f["time_s"], f[column] * scale, f"flow {flow}")
                    for flow, f in list(trace.groupby("flow"))[:16]
                ]
                figures.append(_lines(curves, "time (s)", label, f"{label} per flow"))
    queues = out / "trace_queues.parquet"
    if queues.exists():
        curves = [
            (q["time_s"], q["queue_pkts"], name)
            for name, q in pd.read_parquet(queues).groupby("name", sort=False)
        ]
        figures.append(
            _lines(
                curves, "time (s)", "packets", "queue length at the end of each interval", step=True
            )
        )
    playback = out / "playback.parquet"
    if playback.exists():
        curves = [
            (f["time_s"], f["buffer_bytes"] * 1e-3, f"flow {flow}")
            for flow, f in list(pd.read_parquet(playback).groupby("flow"))[:16]
        ]
        figures.append(
            _lines(
                curves,
                "time (s)",
                "receiver buffer (kB)",
                "playback buffer per media flow (an interruption each time it runs dry)",
                step=True,
            )
        )
    series = out / "round_series.parquet"
    if series.exists():
        s = pd.read_parquet(series)
        figures.append(
            _lines(
                [(s["step"], s[c], c.replace("_", " ")) for c in ("utilization", "loss_fraction")],
                "step",
                "",
                "round model: utilization and loss per step",
            )
        )
    loads = out / "round_flows.parquet"
    if loads.exists():
        table = pd.read_parquet(loads).set_index("step")
        figures.append(
            _lines(
                [(table.index, table[c], f"flow {c}") for c in table.columns[:16]],
                "step",
                "load (packets per control interval)",
                "round model: each flow's load",
            )
        )
    return figures


def _summary(out: Path) -> dict:
    """The summary.json of a run directory; :class:`ReportError` when `out` is not one."""
    path = out / "summary.json"
    try:
        summary = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ReportError(f"{out}: no summary.json (not a folder `ccscope run` wrote)") from None
    except (OSError, ValueError) as e:
        raise ReportError(f"{path}: cannot be read as JSON ({e})") from None
    if not (isinstance(summary, dict) and "ccscope_version" in summary):
        raise ReportError(f"{path}: not the summary.json of a ccscope run (no ccscope_version)")
    return summary


def run_page(out: Path) -> tuple[str, str]:
    """The title and body of the page of a run directory."""
    summary = _summary(out)
    provenance = {
        k: summary.get(k)
        for k in (
            "ccscope_version",
            "model_version",
            "git_commit",
            "seed",
            "engine",
            "duration_s",
            "warmup_s",
            "steps",
            "events",
        )
        if k in summary
    }
    parts = ["<h2>Provenance</h2>", _table(pd.DataFrame([provenance]))]
    if summary.get("partial"):
        parts.append(
            '<p class="partial">Partial: the run was interrupted; the numbers cover '
            "the time it had reached.</p>"
        )
    if "fairness" in summary:
        parts.append(
            f"<p>Jain's index {summary['fairness']['jain']:.4f}, min/max "
            f"{summary['fairness']['min_max']:.4f}</p>"
        )
    for key, title in (("flows", "Flows"), ("links", "Bottleneck links")):
        if summary.get(key):
            parts += [f"<h2>{title}</h2>", _table(pd.DataFrame(summary[key]))]
    try:
        figures = _series_figures(out)
    except (OSError, ValueError, KeyError) as e:  # pyarrow's errors are ValueErrors
        raise ReportError(f"{out}: a trace cannot be read ({e})") from None
    if figures:
        parts += ["<h2>Figures</h2>", *figures]
    parts += [
        "<h2>Scenario</h2>",
        f"<pre>{html.escape(json.dumps(summary.get('scenario', {}), indent=2))}</pre>",
    ]
    return f"ccscope run: {out.name}", "\n".join(parts)


def sweep_page(store: Path) -> tuple[str, str]:
    """The title and body of the page of a sweep store."""
    from . import sweep
    from .store import Store

    with Store(store, read_only=True) as db:
        runs = db.table("runs")
        axes = db.axes()
        held_models = db.model_versions()
    ok = runs[runs["status"] == "ok"]
    versions = ", ".join(sorted(runs["ccscope_version"].dropna().unique()))
    models = ", ".join(map(str, sorted(held_models)))
    parts = [
        "<h2>Runs</h2>",
        f"<p>{len(runs)} runs: {len(ok)} finished, {len(runs) - len(ok)} failed; "
        f"seeds {', '.join(map(str, sorted(runs['seed'].unique())))}; ccscope "
        f"{html.escape(versions)}, model version {models}.</p>",
    ]
    failed = runs[runs["status"] != "ok"]
    if not failed.empty:
        parts += ["<h3>Failed runs</h3>", _table(failed[["run_id", "seed", *axes, "error"]])]
    if ok.empty:
        return f"ccscope sweep: {store.name}", "\n".join(parts)
    from .rmcat import report_section

    rmcat = report_section(store)
    if rmcat and not axes:
        # ccscope rmcat's runs have no axes: their mean over the whole store means nothing.
        parts.append(rmcat)
        return f"ccscope rmcat: {store.name}", "\n".join(parts)
    table = sweep.summarize(store)
    parts += [
        "<h2>Mean and 95% confidence interval over seeds</h2>",
        "<p>Over the n seeds of each row: Student's t, cut to the metric's range.</p>",
        _table(table),
    ]
    plotted = [a for a in axes if ok[a].nunique() > 1 and pd.api.types.is_numeric_dtype(ok[a])]
    if plotted:
        parts.append("<h2>Metrics against the axes</h2>")
        plt = _plots()
        for metric in sweep.metric_columns(ok, axes):
            for axis in plotted:
                fig, ax = plt.subplots(figsize=(7, 3.2))
                _band(ax, table[table["metric"] == metric], axis, axes)
                ax.set_xlabel(axis)
                ax.set_ylabel(metric)
                ax.grid(alpha=0.3)
                parts.append(_figure(fig, f"{metric} against {axis}: mean and 95% CI"))
    parts.append(rmcat)
    scenario = json.loads(ok["scenario"].iloc[0])
    parts += [
        "<h2>Scenario of the first run</h2>",
        f"<pre>{html.escape(json.dumps(scenario, indent=2))}</pre>",
    ]
    return f"ccscope sweep: {store.name}", "\n".join(parts)


def explore_page(store: Path) -> tuple[str, str]:
    """The title and body of the page of an exploration store (``ccscope reproduce ID
    --explore``): per claim, where it holds, as a table and a figure over the knobs."""
    from . import explore

    meta, table = explore.load(store)
    knobs = explore.knob_names(table)
    regions = pd.DataFrame(
        [
            {
                "claim": r["quantity"],
                "holds at": f"{r['holds_at']} of {r['points']} points",
                **{f"{k} where it holds": explore._values(r["where"][k]) for k in knobs},
            }
            for r in explore.regions(table)
        ]
    )
    provenance = json.loads(meta["provenance"])
    version = html.escape(str(provenance.get("ccscope_version")))
    parts = [
        f"<p>Reproduction <code>{html.escape(meta['id'])}</code>"
        f"{' (quick)' if meta['quick'] else ''} at {table.groupby(knobs).ngroups} points of "
        f"{html.escape(', '.join(knobs))}; ccscope {version}"
        f", commit {html.escape(str(provenance.get('git_commit')))}.</p>",
        "<h2>Where each claim holds</h2>",
        _table(regions),
        "<h2>Each claim over the knobs</h2>",
    ]
    plt = _plots()
    x, y = knobs[0], knobs[1] if len(knobs) > 1 else None
    for quantity, rows in table.groupby("quantity", sort=False):
        fig, ax = plt.subplots(figsize=(7, 3.2))
        held, failed = rows[rows["holds"]], rows[~rows["holds"]]
        for part, marker, color, label in (
            (held, "o", "tab:green", "holds"),
            (failed, "x", "tab:red", "does not hold"),
        ):
            ax.scatter(
                part[x],
                part[y] if y else part["holds"].astype(float),
                marker=marker,
                color=color,
                label=f"{label} ({len(part)})",
            )
        ax.set_xlabel(x)
        ax.set_ylabel(y or "holds (1) or not (0)")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
        parts.append(_figure(fig, quantity))
    return f"ccscope explore: {meta['id']}", "\n".join(parts)


def _band(ax, table: pd.DataFrame, axis: str, axes: list[str]) -> None:
    others = [a for a in axes if a != axis and a in table]
    for key, group in table.groupby(others, dropna=False) if others else [((), table)]:
        key = key if isinstance(key, tuple) else (key,)
        group = group.sort_values(axis)
        label = ", ".join(f"{a} = {v}" for a, v in zip(others, key, strict=True))
        (line,) = ax.plot(group[axis], group["mean"], marker="o", lw=1.2, label=label or None)
        ax.fill_between(
            group[axis], group["ci_low"], group["ci_high"], alpha=0.2, color=line.get_color()
        )
    if others:
        ax.legend(fontsize=7)


def render(path: str | Path) -> str:
    """The HTML page of a run directory, a sweep store or an exploration store;
    :class:`ReportError` (or :class:`ccscope.errors.StoreError`) naming what was found when
    `path` is none of them."""
    p = Path(path)
    if not p.exists():
        raise ReportError(f"{p}: no such run directory or sweep store")
    if p.is_dir():
        title, body = run_page(p)
    else:
        from .explore import is_store

        title, body = explore_page(p) if is_store(p) else sweep_page(p)
    return (
        f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{html.escape(title)}</title><style>{STYLE}</style></head>\n"
        f"<body><h1>{html.escape(title)}</h1>\n{body}\n</body></html>\n"
    )


def write(path: str | Path, out: str | Path) -> Path:
    """Writes the page of `path` (a run directory or a sweep store) to `out` (checked first:
    :class:`ccscope.output.OutputError`)."""
    from .output import writable_file

    target = writable_file(out, "--output")
    target.write_text(render(path), encoding="utf-8")
    return target
