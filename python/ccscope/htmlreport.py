"""A self-contained HTML page for a run directory (what ``ccscope run --out DIR`` wrote), a
sweep store or an exploration store (DuckDB files): the figures first, interactive (zoom, hover
values, flows toggled from the legend), then the tables, provenance and the scenario.

The figures are drawn by plotly.js, inlined whole in the page from the ``plotly`` package, so the
file opens with no network and can be mailed or archived alone. Plotly rather than Vega-Lite
through Altair: zoom, hover, legend toggling of a flow across panels (legend groups) and
panels of their own units come with its figure description, and its script ships inside the
Python wheel, where inlining Vega needs a separate native package (vl-convert). The figures
are written as plotly.js's JSON directly (:mod:`ccscope.views` says what each draws), so writing
a page costs no Python plotting at all.

>>> ccscope.htmlreport.write("out/main", "report.html")
"""

from __future__ import annotations

import html
import importlib.util
import json
import math
from pathlib import Path

import pandas as pd

from . import views
from .errors import CcscopeError

STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 1200px; color: #222; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; margin-top: 2em; }
table { border-collapse: collapse; font-size: 0.85em; margin: 0.5em 0; }
th, td { border: 1px solid #ccc; padding: 0.2em 0.5em; text-align: right; }
th { background: #f3f3f3; } td:first-child, th:first-child { text-align: left; }
pre { background: #f7f7f7; padding: 0.8em; overflow-x: auto; font-size: 0.8em; }
figure { margin: 1em 0; } figcaption { font-size: 0.85em; color: #555; }
summary { cursor: pointer; font-weight: bold; margin: 1em 0 0.5em; }
.partial { color: #a00; font-weight: bold; }
.wide { overflow-x: auto; }
"""

#: Line colours by legend group (matplotlib's tab10, which the PNG figures use too).
COLORS = (
    "#1f77b4",
    "#ff7f0e",
    "#2ca02c",
    "#d62728",
    "#9467bd",
    "#8c564b",
    "#e377c2",
    "#7f7f7f",
    "#bcbd22",
    "#17becf",
)

#: Height of one panel and the gap above each (room for its title), pixels.
PANEL_PX, GAP_PX = 190, 48


class ReportError(CcscopeError, ValueError):
    """A path that is not a run directory nor a sweep store, named with what was found."""


def plotly_js() -> str:
    """plotly.js as the ``plotly`` package ships it (package data, read without importing
    the Python package)."""
    spec = importlib.util.find_spec("plotly")
    if spec is None or not spec.submodule_search_locations:
        raise ReportError("the plotly package is missing: pip install plotly")
    path = Path(spec.submodule_search_locations[0]) / "package_data" / "plotly.min.js"
    return path.read_text(encoding="utf-8")


def _finite(values: list) -> list:
    """`values` with NaN and infinities as null (a gap), as JSON holds them."""
    return [v if not isinstance(v, float) or math.isfinite(v) else None for v in values]


def _rgba(color: str, alpha: float) -> str:
    r, g, b = (int(color[i : i + 2], 16) for i in (1, 3, 5))
    return f"rgba({r},{g},{b},{alpha})"


def _axis(k: int) -> str:
    return "" if k == 0 else str(k + 1)


def figure(view: views.View) -> dict:
    """The plotly.js figure (``data``, ``layout``) of `view`: its panels in a grid of
    ``view.columns``, each with its own y axis and unit, the x axes zoomed together when
    ``view.shared``, the warm-up shaded, one legend entry per group toggling its lines in
    every panel."""
    n = len(view.panels)
    cols = max(1, min(view.columns, n))
    rows = -(-n // cols)
    height = rows * PANEL_PX + rows * GAP_PX
    colour = {g: COLORS[i % len(COLORS)] for i, g in enumerate(view.groups)} | view.colors
    data: list[dict] = []
    layout: dict = {
        "height": height + 60,
        "margin": {"t": 30, "b": 50, "l": 70, "r": 20},
        "hovermode": "closest",
        "legend": {"groupclick": "togglegroup"},
        "annotations": [],
        "shapes": [],
        "showlegend": True,
    }
    shown: set[str] = set()
    wide = (1.0 - 0.07 * (cols - 1)) / cols
    for k, panel in enumerate(view.panels):
        row, col = divmod(k, cols)
        top = 1.0 - row * (PANEL_PX + GAP_PX) / height - GAP_PX / height
        bottom = top - PANEL_PX / height
        left = col * (wide + 0.07)
        x, y = f"x{_axis(k)}", f"y{_axis(k)}"
        layout[f"xaxis{_axis(k)}"] = {
            "domain": [left, left + wide],
            "anchor": y,
            **({"matches": "x"} if view.shared and k > 0 else {}),
            **({"title": {"text": panel.xlabel}} if row == rows - 1 or k + cols >= n else {}),
        }
        layout[f"yaxis{_axis(k)}"] = {
            "domain": [max(bottom, 0.0), top],
            "anchor": x,
            "title": {"text": panel.ylabel},
        }
        layout["annotations"].append(
            {
                "text": html.escape(panel.title),
                "xref": "paper",
                "yref": "paper",
                "x": left,
                "y": top,
                "xanchor": "left",
                "yanchor": "bottom",
                "showarrow": False,
                "yshift": 4,
                "font": {"size": 12},
            }
        )
        if view.shade and view.shade[1] > view.shade[0]:
            layout["shapes"].append(
                {
                    "type": "rect",
                    "xref": x,
                    "yref": f"{y} domain",
                    "x0": view.shade[0],
                    "x1": view.shade[1],
                    "y0": 0,
                    "y1": 1,
                    "fillcolor": "#999",
                    "opacity": 0.15,
                    "line": {"width": 0},
                    "layer": "below",
                }
            )
            if k == 0:
                layout["annotations"].append(
                    {
                        "text": "warm-up",
                        "xref": x,
                        "yref": f"{y} domain",
                        "x": (view.shade[0] + view.shade[1]) / 2,
                        "y": 0,
                        "yanchor": "bottom",
                        "showarrow": False,
                        "font": {"size": 10, "color": "#666"},
                    }
                )
        for line in panel.lines:
            c = colour[line.group]
            common = {"type": "scatter", "xaxis": x, "yaxis": y, "legendgroup": line.group}
            xs = _finite(line.x) if line.x and isinstance(line.x[0], float) else line.x
            if line.low is not None and line.high is not None:
                band = {**common, "x": xs, "mode": "lines", "showlegend": False}
                band["hoverinfo"] = "skip"
                data.append({**band, "y": _finite(line.high), "line": {"width": 0, "color": c}})
                data.append(
                    {
                        **band,
                        "y": _finite(line.low),
                        "line": {"width": 0, "color": c},
                        "fill": "tonexty",
                        "fillcolor": _rgba(c, 0.2),
                    }
                )
            mode = "+".join(m for m, on in (("lines", line.lines), ("markers", line.markers)) if on)
            data.append(
                {
                    **common,
                    "x": xs,
                    "y": _finite(line.y),
                    "name": line.name,
                    "mode": mode,
                    "showlegend": line.group not in shown,
                    "line": {"color": c, "width": 1.3, **({"shape": "hv"} if line.step else {})},
                    "marker": {"color": c, "size": 6},
                    "hovertemplate": f"%{{y:.4g}} {html.escape(panel.ylabel)}",
                }
            )
            shown.add(line.group)
    return {"data": data, "layout": layout}


class Page:
    """A page's body in the making: HTML parts and the figures they place."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.figures: list[dict] = []

    def add(self, *parts: str) -> None:
        self.parts.extend(parts)

    def figure(self, view: views.View) -> None:
        """Places `view` (its title, the interactive figure and its caption)."""
        if not view.panels:
            return
        caption = f"<figcaption>{html.escape(view.caption)}</figcaption>" if view.caption else ""
        self.add(
            f"<h3>{html.escape(view.title)}</h3>",
            f'<figure><div class="plot" data-figure="{len(self.figures)}"></div>{caption}</figure>',
        )
        self.figures.append(figure(view))


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
    return (
        f'<div class="wide"><table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>'
        "</div>"
    )


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


def _run_views(out: Path, summary: dict) -> list[views.View]:
    """The views of a run directory's traces (packet model or round model)."""
    if summary.get("engine") == "round":
        series, loads = out / "round_series.parquet", out / "round_flows.parquet"
        table = pd.read_parquet(loads).set_index("step") if loads.exists() else None
        names = [f.get("name", str(i)) for i, f in enumerate(summary.get("flows", []))]
        if table is not None:
            names = names[: table.shape[1]] + [str(c) for c in table.columns[len(names) :]]
        frame = pd.read_parquet(series) if series.exists() else pd.DataFrame()
        return views.round_views(frame, table, names)
    return views.run_views(views.RunData.of_dir(out, summary))


def run_page(out: Path) -> tuple[str, Page]:
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
    page = Page()
    if summary.get("partial"):
        page.add(
            '<p class="partial">Partial: the run was interrupted; the numbers cover '
            "the time it had reached.</p>"
        )
    if "fairness" in summary:
        page.add(
            f"<p>Jain's index {summary['fairness']['jain']:.4f}, min/max "
            f"{summary['fairness']['min_max']:.4f}; the warm-up is shaded grey.</p>"
        )
    try:
        shown = _run_views(out, summary)
    except (OSError, ValueError, KeyError) as e:  # pyarrow's errors are ValueErrors
        raise ReportError(f"{out}: a trace cannot be read ({e})") from None
    if shown:
        page.add("<h2>Figures</h2>")
        for view in shown:
            page.figure(view)
    for key, title in (("flows", "Flows"), ("links", "Bottleneck links")):
        if summary.get(key):
            page.add(f"<h2>{title}</h2>", _table(pd.DataFrame(summary[key])))
    page.add(
        "<h2>Provenance</h2>",
        _table(pd.DataFrame([provenance])),
        "<h2>Scenario</h2>",
        f"<pre>{html.escape(json.dumps(summary.get('scenario', {}), indent=2))}</pre>",
    )
    return f"ccscope run: {out.name}", page


def _ordered(values: pd.Series) -> list:
    """An axis's distinct values in their order: numbers by value, quantities written as text
    (``"5Mbps"``) by the value they name, other text as written."""
    from . import _core

    distinct = list(dict.fromkeys(values.dropna()))
    if pd.api.types.is_numeric_dtype(values):
        return sorted(distinct)
    try:
        return sorted(distinct, key=lambda v: _core.quantity(str(v))[1])
    except (ValueError, TypeError):
        return sorted(distinct, key=str)


def _against(
    table: pd.DataFrame,
    axis: str,
    others: list[str],
    order: list,
    title: str,
    name: str,
    unit: dict[str, str],
) -> views.View:
    """One panel per metric (``table["metric"]``), its mean over seeds against `axis` with the
    95% band, one line per combination of `others` (and of ``table[name]`` when given)."""
    rank = {v: i for i, v in enumerate(order)}
    keys = [k for k in (name, *others) if k]
    panels = []
    for metric, rows in table.groupby("metric", sort=False):
        lines = []
        for key, group in rows.groupby(keys, sort=True, dropna=False) if keys else [((), rows)]:
            key = key if isinstance(key, tuple) else (key,)
            group = group.iloc[group[axis].map(rank).argsort()]
            label = ", ".join(
                str(v) if k == name else f"{k} = {v}" for k, v in zip(keys, key, strict=True)
            )
            x = group[axis].tolist()
            lines.append(
                views.Line(
                    [float(v) for v in x] if pd.api.types.is_numeric_dtype(group[axis]) else x,
                    group["mean"].astype(float).tolist(),
                    label or str(metric),
                    label or "all",
                    low=group["ci_low"].astype(float).tolist(),
                    high=group["ci_high"].astype(float).tolist(),
                    markers=True,
                )
            )
        panels.append(views.Panel(str(metric), unit.get(str(metric), ""), lines, axis))
    return views.View(
        title,
        panels,
        columns=2,
        caption="Mean over the seeds and its 95% confidence interval (Student's t, cut to the "
        "metric's range); click a line in the legend to hide or show it in every panel.",
    )


#: Units of the sweep metrics the figures print.
UNITS = {
    "throughput_bps": "b/s",
    "mean_queue_pkts": "packets",
    "mean_delay_s": "s",
    "share": "of the bottleneck",
    "events": "events",
}


def _by_point(table: pd.DataFrame) -> pd.DataFrame:
    """A :func:`ccscope.sweep.summarize` table with one row per point: its keys, the seeds, and
    a column per metric holding ``mean [low, high]``."""
    keys = [c for c in table.columns if c not in ("metric", "n", "mean", "ci_low", "ci_high")]

    def cell(r) -> str:
        if math.isnan(r.ci_low):
            return f"{r.mean:.4g}"
        return f"{r.mean:.4g} [{r.ci_low:.4g}, {r.ci_high:.4g}]"

    rows = []
    for point, group in table.groupby(keys, sort=True, dropna=False) if keys else [((), table)]:
        point = point if isinstance(point, tuple) else (point,)
        rows.append(
            {
                **dict(zip(keys, point, strict=True)),
                "seeds": int(group["n"].max()),
                **{r.metric: cell(r) for r in group.itertuples()},
            }
        )
    return pd.DataFrame(rows)


def sweep_page(store: Path) -> tuple[str, Page]:
    """The title and body of the page of a sweep store: the metrics and the classes' shares
    against each axis first, then the tables."""
    from . import sweep
    from .store import Store

    with Store(store, read_only=True) as db:
        runs = db.table("runs")
        axes = db.axes()
        held_models = db.model_versions()
        has_classes = db.has_classes()
    ok = runs[runs["status"] == "ok"]
    versions = ", ".join(sorted(runs["ccscope_version"].dropna().unique()))
    models = ", ".join(map(str, sorted(held_models)))
    page = Page()
    page.add(
        f"<p>{len(runs)} runs: {len(ok)} finished, {len(runs) - len(ok)} failed; "
        f"seeds {', '.join(map(str, sorted(runs['seed'].unique())))}; ccscope "
        f"{html.escape(versions)}, model version {models}.</p>",
    )
    failed = runs[runs["status"] != "ok"]
    if ok.empty:
        if not failed.empty:
            page.add("<h2>Failed runs</h2>", _table(failed[["run_id", "seed", *axes, "error"]]))
        return f"ccscope sweep: {store.name}", page
    from .rmcat import ran_into, report_section

    if not axes and ran_into(store):
        # ccscope rmcat's runs have no axes: their mean over the whole store means nothing.
        if not failed.empty:
            page.add("<h2>Failed runs</h2>", _table(failed[["run_id", "seed", "error"]]))
        report_section(store, page)
        return f"ccscope rmcat: {store.name}", page
    table = sweep.summarize(store)
    classes = sweep.summarize_classes(store) if has_classes else pd.DataFrame()
    plotted = [a for a in axes if a in table and ok[a].nunique() > 1]
    if plotted:
        page.add("<h2>Metrics against the axes</h2>")
    for axis in plotted:
        others = [a for a in axes if a != axis and a in table]
        order = _ordered(ok[axis])
        page.figure(_against(table, axis, others, order, f"Against {axis}", "", UNITS))
        if not classes.empty:
            page.figure(
                _against(classes, axis, others, order, f"Per class against {axis}", "class", UNITS)
            )
    if not failed.empty:
        page.add("<h2>Failed runs</h2>", _table(failed[["run_id", "seed", *axes, "error"]]))
    page.add(
        "<h2>Mean and 95% confidence interval over seeds</h2>",
        "<p>Mean [95% interval] over the seeds of each row: Student's t, cut to the metric's "
        "range.</p>",
        _table(_by_point(table)),
    )
    if not classes.empty:
        page.add(
            "<h2>Per class: mean and 95% confidence interval over seeds</h2>",
            "<p>A class is the flows of one label (one sender and controller): their share of "
            "the first bottleneck's capacity, total throughput, loss rate, mean delay and "
            "Jain's index among them.</p>",
            _table(_by_point(classes)),
        )
    report_section(store, page)
    scenario = json.loads(ok["scenario"].iloc[0])
    page.add(
        "<h2>Scenario of the first run</h2>",
        f"<pre>{html.escape(json.dumps(scenario, indent=2))}</pre>",
    )
    return f"ccscope sweep: {store.name}", page


def explore_page(store: Path) -> tuple[str, Page]:
    """The title and body of the page of an exploration store (``ccscope reproduce ID
    --explore``): per claim, where it holds, as a figure over the knobs and a table."""
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
    page = Page()
    page.add(
        f"<p>Reproduction <code>{html.escape(meta['id'])}</code>"
        f"{' (quick)' if meta['quick'] else ''} at {table.groupby(knobs).ngroups} points of "
        f"{html.escape(', '.join(knobs))}; ccscope {version}"
        f", commit {html.escape(str(provenance.get('git_commit')))}.</p>",
    )
    x, y = knobs[0], knobs[1] if len(knobs) > 1 else None
    panels = []
    for quantity, rows in table.groupby("quantity", sort=False):
        lines = [
            views.Line(
                part[x].astype(float).tolist(),
                (part[y] if y else part["holds"]).astype(float).tolist(),
                verdict,
                verdict,
                markers=True,
                lines=False,
            )
            for verdict, part in (
                ("holds", rows[rows["holds"]]),
                ("does not hold", rows[~rows["holds"]]),
            )
            if not part.empty
        ]
        panels.append(views.Panel(str(quantity), y or "holds (1) or not (0)", lines, x))
    page.figure(
        views.View(
            "Each claim over the knobs",
            panels,
            shared=False,
            columns=2,
            colors={"holds": COLORS[2], "does not hold": COLORS[3]},
        )
    )
    page.add("<h2>Where each claim holds</h2>", _table(regions))
    return f"ccscope explore: {meta['id']}", page


#: Draws every figure of the page from its JSON once plotly.js has loaded.
DRAW = """
document.querySelectorAll("div.plot").forEach(function (div) {
  var f = FIGURES[Number(div.dataset.figure)];
  Plotly.newPlot(div, f.data, f.layout, {responsive: true, displaylogo: false});
});
"""


def _script_json(value) -> str:
    """`value` as JSON safe inside a script element."""
    return json.dumps(value, separators=(",", ":"), allow_nan=False).replace("</", "<\\/")


def render(path: str | Path) -> str:
    """The HTML page of a run directory, a sweep store or an exploration store;
    :class:`ReportError` (or :class:`ccscope.errors.StoreError`) naming what was found when
    `path` is none of them."""
    p = Path(path)
    if not p.exists():
        raise ReportError(f"{p}: no such run directory or sweep store")
    if p.is_dir():
        title, page = run_page(p)
    else:
        from .explore import is_store

        title, page = explore_page(p) if is_store(p) else sweep_page(p)
    scripts = ""
    if page.figures:
        scripts = (
            f"<script>{plotly_js()}</script>\n"
            f"<script>var FIGURES = {_script_json(page.figures)};{DRAW}</script>\n"
        )
    body = "\n".join(page.parts)
    return (
        f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{html.escape(title)}</title><style>{STYLE}</style></head>\n"
        f"<body><h1>{html.escape(title)}</h1>\n{body}\n{scripts}</body></html>\n"
    )


def write(path: str | Path, out: str | Path) -> Path:
    """Writes the page of `path` (a run directory or a sweep store) to `out` (checked first:
    :class:`ccscope.output.OutputError`)."""
    from .output import writable_file

    target = writable_file(out, "--output")
    target.write_text(render(path), encoding="utf-8")
    return target
