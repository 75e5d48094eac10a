"""How results show themselves in a terminal and in a notebook: a title line (what ran, in one
line) over the head of their main table, as text (``repr``) and as HTML (``_repr_html_``).

>>> result = ccscope.run("scenarios/dumbbell-cbr.toml")
>>> result
<ccscope.Result: packet model, dumbbell, bottleneck 10Mbps 20ms red; 6 flows: ...>
"""

from __future__ import annotations

import html
from collections import Counter
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

    from .scenario import Scenario

#: Rows of a table a repr shows (text; HTML shows twice as many).
HEAD_ROWS = 5


def _name(controller: Any) -> str | None:
    if isinstance(controller, dict):
        return controller.get("name")
    return controller


def _flow_kind(flow: dict) -> str:
    """A flow as a reader names it: its controller, else its source's kind."""
    source = flow.get("source")
    if isinstance(source, dict):
        return _name(source.get("controller")) or source.get("kind", "?")
    return _name(flow.get("controller")) or "?"


def _link(topology: dict) -> str:
    """The bottleneck as rate, delay and queue (the first hop of a chain)."""
    link = topology.get("bottleneck") or (topology.get("hops") or [None])[0] or topology
    parts = [str(link[k]) for k in ("rate", "delay") if k in link]
    queue = link.get("queue")
    if isinstance(queue, dict) and "kind" in queue:
        parts.append(queue["kind"])
    return " ".join(parts)


def scenario_line(sc: Scenario) -> str:
    """A scenario in one line: the model, the path, the flows by kind, the time and the seed,
    and the file it came from."""
    t = sc.table
    run = t.get("run", {})
    if sc.engine == "round":
        link = t.get("link", {})
        where = f"link {link.get('capacity', '?')} rtt {link.get('rtt', '?')}"
        span = f"{run.get('steps', '?')} steps (warm-up {run.get('warmup_steps', 0)})"
    else:
        topology = t.get("topology", {})
        where = f"{topology.get('kind', '?')}, bottleneck {_link(topology)}"
        span = f"{run.get('duration', '?')} (warm-up {run.get('warmup', '0s')})"
    kinds = Counter()
    for f in t.get("flows", []):
        kinds[_flow_kind(f)] += f.get("count", 1)
    flows = ", ".join(f"{n} {k}" for k, n in kinds.items())
    origin = f", from {sc.file}" if sc.file else ""
    return (
        f"{sc.engine} model, {where}; {sc.n_flows} flows: {flows}; {span}, "
        f"seed {run.get('seed', '?')}{origin}"
    )


def text(kind: str, title: str, table: pd.DataFrame | None) -> str:
    """``<kind: title>`` and the first :data:`HEAD_ROWS` rows of `table` under it."""
    head = f"<{kind}: {title}>"
    if table is None or table.empty:
        return head
    more = len(table) - HEAD_ROWS
    body = table.head(HEAD_ROWS).to_string(index=False, float_format=lambda x: f"{x:.4g}")
    return head + "\n" + body + (f"\n... {more} more rows" if more > 0 else "")


def as_html(kind: str, title: str, table: pd.DataFrame | None) -> str:
    """The same as :func:`text` as HTML: the title, then the table's first rows."""
    head = f"<p><b>{html.escape(kind)}</b>: {html.escape(title)}</p>"
    if table is None or table.empty:
        return head
    rows = 2 * HEAD_ROWS
    more = len(table) - rows
    body = table.head(rows).to_html(index=False, float_format=lambda x: f"{x:.4g}", border=0)
    return head + body + (f"<p>... {more} more rows</p>" if more > 0 else "")


def columns(table: pd.DataFrame, wanted: tuple[str, ...]) -> pd.DataFrame:
    """The `wanted` columns `table` has, in that order."""
    return table[[c for c in wanted if c in table.columns]]
