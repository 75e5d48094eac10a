"""One entry per reproduced paper result: the published value, ccscope's, the tolerance and
the verdict, for every quantity (:class:`ccscope.experiments.claims.Claim`).

>>> ccscope.reproduce.run("loguinov-fig5", quick=True)["rows"][0]

Registering a reproduction is one entry in :data:`REGISTRY`: an id, a title, the source in the
paper, and the function (``"module:function"``) that runs it, takes ``quick: bool`` and
returns a list of claims (for ``cai-table1`` written as ``table1`` in
``ccscope/experiments/cai.py``: ``_E + "cai:table1"``); optionally a figure function. The
validation tests (``tests/validation/test_reproduce.py``) and the validation page's table
(``docs/validation.md``: ``ccscope reproduce --all --quick --markdown``) come from here.
"""

from __future__ import annotations

import importlib
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .errors import ScenarioError


@dataclass(frozen=True)
class Reproduction:
    """A paper result ccscope reproduces; `function` is ``"module:function"``, called with
    ``quick`` (True: seconds, for CI; False: the paper's full set-up) and returning claims."""

    id: str
    title: str
    source: str
    function: str
    #: ``"module:function"`` drawing the paper's figure with ccscope's curve, called with
    #: ``(quick, path)``; None where the result is a table.
    figure: str | None = None
    #: Runs in real time on real packets (``run.engine = "udp"``): its numbers differ from
    #: run to run, so ``--all`` leaves it out unless asked (``--real-time``).
    real_time: bool = False
    #: ``"module:NAME"`` of the set-up parameters the paper does not print
    #: (:class:`ccscope.experiments.claims.Knob` by name), which ``--explore`` sweeps; the
    #: function then takes ``setup``, a dict of their values.
    knobs: str | None = None
    #: Its function also takes ``stored``: the real side from stored runs instead of a run
    #: (``--stored``; the linux-* ground truth: :data:`ccscope.experiments.linux.STORE`).
    stored: bool = False

    def claims(
        self, quick: bool = False, setup: dict[str, float] | None = None, stored: bool = False
    ) -> list:
        if setup:
            return _resolve(self.function)(quick, setup=setup)
        if stored:
            return _resolve(self.function)(quick, stored=True)
        return _resolve(self.function)(quick)

    def knob_table(self) -> dict:
        """The knobs ``--explore`` can sweep, by name ({} for none)."""
        return {} if self.knobs is None else _resolve(self.knobs)

    def draw(self, quick: bool, path: Path) -> Path | None:
        return None if self.figure is None else _resolve(self.figure)(quick, path)


def _resolve(ref: str):
    module, _, name = ref.partition(":")
    return getattr(importlib.import_module(module), name)


_E = "ccscope.experiments."

REGISTRY: dict[str, Reproduction] = {
    r.id: r
    for r in [
        Reproduction(
            "loguinov-fig4",
            "Efficiency of binomial controls, round model",
            "Loguinov & Radha 2003, Fig. 4, eq. (28)",
            _E + "loguinov:fig4_claims",
        ),
        Reproduction(
            "loguinov-fig5",
            "Packet-loss scalability of rate AIMD and IIAD, round model",
            "Loguinov & Radha 2003, Fig. 5, §V-B",
            _E + "loguinov:fig5_claims",
            _E + "loguinov:fig5_figure",
        ),
        Reproduction(
            "loguinov-fig7",
            "Packet-bunch estimates of a T1's capacity with 2 and 32 "
            "AIMD(1, 1/2) flows, packet level",
            "Loguinov & Radha 2003, Fig. 7, §VI-A",
            _E + "loguinov:fig7_claims",
        ),
        Reproduction(
            "loguinov-eq42",
            "ISCC's constant loss in n and a lone flow's loss (42)",
            "Loguinov & Radha 2003, §V-D, §VI-A, eq. (42)",
            _E + "loguinov:eq42_claims",
        ),
        Reproduction(
            "loguinov-fig8",
            "ISCC against rate AIMD on the Cisco path scaled to a T3, packet level",
            "Loguinov & Radha 2003, Fig. 8, Table I, §VI-A",
            _E + "loguinov:fig8_claims",
        ),
        Reproduction(
            "loguinov-table1",
            "Freeze frames of FGS video streamed by AIMD, SQRT, IIAD, "
            "TFRC and ISCC at n = 50 on the T1 and the T3-scaled path, packet level",
            "Loguinov & Radha 2003, Table I, §VI-C",
            _E + "loguinov:table1",
        ),
        Reproduction(
            "jin-table6",
            "Convergence to efficiency and fairness, analysis columns, round model",
            "Jin et al. 2001, Table 6, App. C",
            _E + "jin:table6_claims",
        ),
        Reproduction(
            "jin-fig20",
            "Convergence of two flows on the parking lot, packet level",
            "Jin et al. 2001, Fig. 20, Table 6, §6.3",
            _E + "jin:fig20_claims",
        ),
        Reproduction(
            "cai-fig14",
            "Speed of gaining a 35% share, round model",
            "Cai et al. 2005, Fig. 14(a), eq. (30)",
            _E + "cai:fig14_claims",
            _E + "cai:fig14_figure",
        ),
        Reproduction(
            "cai-fig8-9",
            "TAIMD against DTAIMD beside TCP at small windows, packet level",
            "Cai et al. 2005, Figs. 8, 9, §III-C",
            _E + "cai:fig8_9_claims",
        ),
        Reproduction(
            "cai-fig10",
            "Utilization of one AIMD flow against the buffer, packet level",
            "Cai et al. 2005, Fig. 10, eqs. (24), (25)",
            _E + "cai:fig10_claims",
        ),
        Reproduction(
            "yang-fig6",
            "Smoothness at 1% loss: TCP, GAIMD, TFRC, TEAR, packet level",
            "Yang et al. 2003, Fig. 6, §3.3.1",
            _E + "yang:fig6_claims",
        ),
        Reproduction(
            "yang-table1",
            "Fairness, smoothness at 2% and 20% loss, responsiveness and "
            "aggressiveness: TCP, GAIMD, "
            "TFRC, TEAR, packet level",
            "Yang et al. 2003, Table 1, §3.3.1, §5",
            _E + "yang:table1_claims",
        ),
        Reproduction(
            "cai-eq13",
            "TCP-friendly AIMD(3(1−β)/(1+β), β) beside TCP, round model",
            "Cai et al. 2005, eqs. (9)–(13)",
            _E + "cai:eq13_claims",
        ),
        Reproduction(
            "cai-table1",
            "Playback of DTAIMD and TCP elephants beside mice, packet level",
            "Cai et al. 2005, Table I, §V-B2",
            _E + "cai:table1",
            knobs=_E + "cai:TABLE1_KNOBS",
        ),
        Reproduction(
            "cai-fig16",
            "DTAIMD against TCP on a 56 kb/s access line with mice",
            "Cai et al. 2005, Fig. 16, §V-B1",
            _E + "cai:fig16",
            knobs=_E + "cai:FIG16_KNOBS",
        ),
        Reproduction(
            "cai-fig17",
            "Service differentiation by (α, β) pairs, packet level",
            "Cai et al. 2005, Fig. 17, eq. (40), §V-B3",
            _E + "cai:fig17",
        ),
        Reproduction(
            "cai-eq35",
            "Sender queueing delay of a multirate coder after a cut",
            "Cai et al. 2005, eq. (35), §IV-B",
            _E + "cai:eq35",
        ),
        Reproduction(
            "papadimitriou-fig3",
            "SSVP and SSVP-ADP smoothness with MPEG-4 sources",
            "Papadimitriou & Zhang 2007, Fig. 3, §VI",
            _E + "papadimitriou:fig3",
            knobs=_E + "papadimitriou:FIG3_KNOBS",
        ),
        Reproduction(
            "papadimitriou-fig4-8",
            "SSVP-ADP against SSVP, TFRC and GAIMD with MPEG-4 sources",
            "Papadimitriou & Zhang 2007, Figs. 4-8, §VI",
            _E + "papadimitriou:fig4_8",
            knobs=_E + "papadimitriou:FIG4_8_KNOBS",
        ),
        Reproduction(
            "jin-table5",
            "Aggressiveness beside a CBR square wave, packet level",
            "Jin et al. 2001, Table 5, §6.2.4",
            _E + "jin:table5",
        ),
        Reproduction(
            "yang-onoff",
            "Smoothness under ON/OFF loss against Bernoulli loss",
            "Yang et al. 2003, §2.1, §3.3",
            _E + "yang:onoff",
        ),
        Reproduction(
            "yang-fig27-29",
            "Refilling the queue after 16 -> 8 flows",
            "Yang et al. 2003, Figs. 27-29, §5.2",
            _E + "yang:fig27_29",
        ),
        Reproduction(
            "cubic-rfc9438",
            "CUBIC's average window against p and the edge of its Reno-friendly region, "
            "packet level",
            "RFC 9438 §5, Figures 3 and 6, Appendix C, Tables 1-2",
            _E + "cubic:rfc9438_claims",
        ),
        Reproduction(
            "vegas-equilibrium",
            "Vegas flows keep α to β packets queued each and share the link without RTT bias, "
            "packet level and round model",
            "Brakmo & Peterson 1995 §3.2; Mo, La, Anantharam & Walrand 1999",
            _E + "vegas:claims",
        ),
        Reproduction(
            "dctcp-sigcomm10",
            "DCTCP's queue sawtooth and throughput with K by the guideline, 2 and 10 flows "
            "at 10 and 1 Gb/s, packet level",
            "Alizadeh et al. 2010 §3.3, eqs. (6)-(13), §4.1",
            _E + "dctcp:claims",
        ),
        Reproduction(
            "bbr-v1-queue",
            "BBR v1's queue alone and among BBR flows, ProbeRTT every 10 s, utilization, "
            "packet level",
            "draft-cardwell-iccrg-bbr-congestion-control-00 §4.2.3.2, §4.3.4-4.3.5",
            _E + "bbr:queue_claims",
        ),
        Reproduction(
            "bbr-vs-cubic",
            "One BBR flow against 1-16 CUBIC flows in buffers of 0.5-16 BDP, v1 and v3, "
            "packet level",
            "Ware et al. IMC 2019 §4-5, eqs. (9)-(11); draft-ietf-ccwg-bbr-06 §5.5.10",
            _E + "bbr:cubic_claims",
        ),
        Reproduction(
            "copa-nsdi18",
            "Copa's standing queue of 1/δ packets per flow and its competitive mode beside "
            "CUBIC, packet level",
            "Arun & Balakrishnan, NSDI 2018 §2.1-2.2",
            _E + "copa:claims",
        ),
        Reproduction(
            "codel-rfc8289",
            "CoDel's sojourn time and utilization with long-lived Reno and CUBIC, against "
            "DropTail with one BDP, packet level",
            "RFC 8289 §3.2, §4.4-4.5",
            _E + "aqm:codel_claims",
        ),
        Reproduction(
            "pie-rfc8033",
            "PIE's sojourn time and utilization with long-lived Reno and CUBIC, against "
            "DropTail with one BDP, packet level",
            "RFC 8033 §4.1-4.4",
            _E + "aqm:pie_claims",
        ),
        Reproduction(
            "fq-codel-isolation",
            "A media flow (CBR, TFRC) beside eight bulk CUBIC flows: FQ-CoDel against DropTail, "
            "packet level",
            "RFC 8290 §1, §4.2, §6",
            _E + "aqm:fq_codel_claims",
        ),
        Reproduction(
            "gcc-carlucci2016",
            "GCC alone on 1 Mb/s with the adaptive and a static over-use threshold, and "
            "beside TCP, reported beside a survey's reading of the papers, packet level",
            "Carlucci et al., ACM MMSys 2016; De Cicco et al., ACM SIGCOMM FhMN 2013",
            _E + "rmcat_papers:carlucci_claims",
        ),
        Reproduction(
            "nada-rfc8698",
            "NADA through RFC 8867's cases, reported (no source prints a value), packet level",
            "RFC 8698; RFC 8867 §5.1, §5.2, §5.6",
            _E + "rmcat_papers:nada_claims",
        ),
        Reproduction(
            "scream-rfc8298",
            "SCReAM through RFC 8867's cases, reported (no source prints a value), packet level",
            "RFC 8298; RFC 8867 §5.1, §5.2, §5.6",
            _E + "rmcat_papers:scream_claims",
        ),
        Reproduction(
            "realnet-accuracy",
            "Two flows on real packets beside the packet engine",
            "the udp engine on a 2 Mb/s, 40 ms emulated path",
            _E + "realnet:accuracy_claims",
            real_time=True,
        ),
        Reproduction(
            "loguinov-fig7-udp",
            "Packet-bunch estimates of an emulated T1's capacity on real packets",
            "Loguinov & Radha 2003, Fig. 7, §VI-A",
            _E + "realnet:fig7_udp_claims",
            real_time=True,
        ),
        Reproduction(
            "loguinov-fig8-udp",
            "ISCC against rate AIMD as n grows on an emulated T1, on real packets",
            "Loguinov & Radha 2003, Fig. 8, Table I, §VI-C",
            _E + "realnet:fig8_udp_claims",
            real_time=True,
        ),
        Reproduction(
            "loguinov-table1-udp",
            "Freeze frames of FGS video streamed by AIMD, SQRT, "
            "IIAD, TFRC and ISCC at n = 50 on an emulated T1, on real packets",
            "Loguinov & Radha 2003, Table I, §VI-C",
            _E + "realnet:table1_udp_claims",
            real_time=True,
        ),
        Reproduction(
            "papadimitriou-fig3-udp",
            "Smoothness of SSVP and SSVP-ADP with MPEG-4 video on real packets",
            "Papadimitriou & Zhang 2007, Fig. 3, §III, §VI",
            _E + "realnet:fig3_udp_claims",
            real_time=True,
        ),
        *(
            Reproduction(
                f"linux-{cc}",
                f"Linux {name} on real packets beside ccscope's TCP set up as Linux's "
                "(packet engine): throughput, loss, queue, retransmissions, window",
                f"{source}; the kernel's TCP through the udp engine's emulator",
                _E + f"linux:{cc}_claims",
                real_time=True,
                stored=True,
            )
            for cc, name, source in (
                ("reno", "Reno", "RFC 5681; net/ipv4/tcp_cong.c"),
                ("cubic", "CUBIC", "RFC 9438; net/ipv4/tcp_cubic.c"),
                (
                    "bbr",
                    "BBR v1",
                    "draft-cardwell-iccrg-bbr-congestion-control-00; net/ipv4/tcp_bbr.c",
                ),
            )
        ),
        Reproduction(
            "linux-emulators",
            "Linux Reno through the user-space emulator and through the kernel-queue emulator: "
            "the same ground truth from either",
            "RFC 5681; the udp engine's emulators (tc-tbf(8), tc-pfifo(8) on a veth pair)",
            _E + "linux:emulator_claims",
            real_time=True,
        ),
        Reproduction(
            "linux-friendliness",
            "TFRC, GAIMD, SSVP, DTAIMD, ISCC, TEAR and RAP against Linux CUBIC and Reno on real "
            "packets, beside the same against ccscope's model of them",
            "each controller's paper; the kernel's TCP through the udp engine's emulator",
            _E + "linux:friendliness_claims",
            real_time=True,
        ),
    ]
}


def get(id: str) -> Reproduction:  # noqa: A002
    """The reproduction `id`; an unknown id is a :class:`ScenarioError` listing the known."""
    try:
        return REGISTRY[id]
    except KeyError:
        raise ScenarioError.at("id", id, "one of " + ", ".join(REGISTRY)) from None


def ids(real_time: bool = False) -> list[str]:
    """The ids ``--all`` runs: the simulated reproductions, and the real-time ones if asked."""
    return [r.id for r in REGISTRY.values() if real_time or not r.real_time]


def listing() -> list[dict[str, Any]]:
    """Every reproduction: id, title, source, and the knobs ``--explore`` can sweep (name:
    what it is and the value assumed)."""
    return [
        {
            "id": r.id,
            "title": r.title,
            "source": r.source,
            "knobs": {
                k.name: f"{k.meaning} (assumed: {k.assumed:g})" for k in r.knob_table().values()
            },
        }
        for r in REGISTRY.values()
    ]


class Report(dict):
    """What :func:`run` returns: a dict (as JSON writes it) that shows itself as its title and
    its claims, in a terminal and in a notebook."""

    def _shown(self):
        import pandas as pd

        rows = pd.DataFrame(self["rows"])
        judged = [r for r in self["rows"] if not _reported(r)]
        holds = sum(r["holds"] for r in judged)
        quick = ", quick" if self["quick"] else ""
        title = (
            f"{self['id']}: {self['title']} ({self['source']}{quick}); "
            f"{holds} of {len(judged)} claims hold"
            + (f", {len(rows) - len(judged)} reported" if len(judged) < len(rows) else "")
        )
        if "ns2" in rows.columns:
            rows["ns-2.35"] = [_ns2_text(c) for c in rows["ns2"]]
        shown = ("quantity", "published", "ns-2.35", "measured", "tolerance", "holds")
        return title, rows[[c for c in shown if c in rows.columns]]

    def __repr__(self) -> str:
        from .display import text

        return text("ccscope reproduction", *self._shown())

    def _repr_html_(self) -> str:
        from .display import as_html

        return as_html("ccscope reproduction", *self._shown())


def run(
    id: str,
    quick: bool = False,
    figures: str | Path | None = None,  # noqa: A002
    stored: bool = False,
) -> Report:
    """Runs reproduction `id`: ``{"id", "title", "source", "quick", "wall_s", "rows",
    "ns2_note"}`` with one row per claim: ``quantity, published, measured, tolerance, holds,
    why, source`` (where the tolerance comes from, :data:`ccscope.experiments.claims.SOURCES`),
    ``key`` and ``ns2``: what ns-2.35 gives on the same set-up (a stored cell,
    :mod:`ccscope.ns2column`: ``ns2``, ``ccscope`` with ns-2.35's rules, ``agree``, ``seeds``,
    ``command``, ...), or None; ``ns2_note`` says why rows have none. With `figures` (a
    folder), also draws the paper's figure there as ID.png, named by ``"figure"``. With
    `stored`, a reproduction that offers it (:attr:`Reproduction.stored`) takes its real side
    from stored runs, which its rows' quantities and sources name."""
    from . import ns2column

    r = get(id)
    if stored and not r.stored:
        offered = ", ".join(x.id for x in REGISTRY.values() if x.stored)
        raise ScenarioError.at("--stored", id, f"only {offered} have stored runs")
    start = time.perf_counter()
    rows = [c.to_dict() for c in r.claims(quick, stored=stored)]
    report = Report(
        id=r.id,
        title=r.title,
        source=r.source,
        quick=quick,
        wall_s=time.perf_counter() - start,
        rows=rows,
    )
    ns2column.attach(report)
    if figures is not None and r.figure is not None:
        Path(figures).mkdir(parents=True, exist_ok=True)
        report["figure"] = str(r.draw(quick, Path(figures) / f"{r.id}.png"))
    return report


def _reported(row: dict[str, Any]) -> bool:
    """A claim with no published value to judge against (:data:`claims.REPORTED`)."""
    from .experiments.claims import REPORTED

    return row["source"].startswith(REPORTED)


def _verdict(row: dict[str, Any]) -> str:
    return "reported" if _reported(row) else "yes" if row["holds"] else "no"


def _number(x: Any) -> str:
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        return str(x)
    return f"{x:.4g}"


def _ns2_text(cell: dict[str, Any] | None) -> str:
    """A stored ns-2.35 cell as the tables show it: its value, and "≠ ccscope" where ccscope
    with ns-2.35's rules does not agree with it."""
    if not cell:
        return "—"
    return cell["ns2"] + ("" if cell["agree"] else " ≠ ccscope")


class _Notes:
    """The ns-2.35 column's notes under the Markdown table, numbered N1, N2, ... in order of
    first use; one note per distinct text."""

    def __init__(self) -> None:
        self.texts: dict[str, list[str]] = {}

    def mark(self, text: str, who: str) -> str:
        ids = self.texts.setdefault(text, [])
        if who not in ids:
            ids.append(who)
        return f"N{list(self.texts).index(text) + 1}"

    def lines(self) -> list[str]:
        return [
            f"(N{i}) {', '.join(ids)}: {text}."
            for i, (text, ids) in enumerate(self.texts.items(), 1)
        ]


def _disagrees(cell: dict[str, Any]) -> str:
    return (
        f"ns-2.35 gives {cell['ns2']} and ccscope with ns-2.35's rules {cell['ccscope']} over "
        f"seeds {cell['seeds']} (`{cell['command']}`, model version {cell['model_version']}), "
        f"which fails the rule ({cell['compared']}): a ccscope defect until shown otherwise"
    )


def markdown(reports: list[dict[str, Any]], failing: bool = False) -> str:
    """The reports as one Markdown table (the validation page's), with the reasons after it
    and the ns-2.35 column's notes (N1, N2, ...) after those; with `failing`, only the claims
    that do not hold, each with its reason in the table."""
    if failing:
        lines = [
            "| id | quantity | paper | ccscope | tolerance | why |",
            "| --- | --- | --- | --- | --- | --- |",
        ]
        lines += [
            f"| `{report['id']}` | {row['quantity']} | {_number(row['published'])} | "
            f"{_number(row['measured'])} | {row['tolerance']} | {row['why']} |"
            for report in reports
            for row in report["rows"]
            if not row["holds"]
        ]
        return "\n".join(lines) + "\n"
    lines = [
        "| id | quantity | paper | ns-2.35 | ccscope | tolerance | tolerance from | holds |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    reasons, notes = [], _Notes()
    for report in reports:
        for row in report["rows"]:
            cell = row.get("ns2")
            if cell:
                ns2 = cell["ns2"]
                if not cell["agree"]:
                    who = f"{report['id']} {row['key']}"
                    ns2 += f" ≠ ccscope ({notes.mark(_disagrees(cell), who)})"
            elif report.get("ns2_note"):
                ns2 = f"— ({notes.mark(report['ns2_note'], report['id'])})"
            else:
                ns2 = "—"
            mark = _verdict(row) if row["holds"] else f"no ({len(reasons) + 1})"
            if not row["holds"]:
                also = (
                    f"; ns-2.35 on the same set-up gives {cell['ns2']}, and ccscope with "
                    f"ns-2.35's rules {cell['ccscope']}, within their spread"
                    if cell and cell["agree"]
                    else ""
                )
                reasons.append(
                    f"({len(reasons) + 1}) {report['id']}, {row['quantity']}: {row['why']}{also}."
                )
            lines.append(
                f"| `{report['id']}` | {row['quantity']} | {_number(row['published'])} | {ns2} | "
                f"{_number(row['measured'])} | {row['tolerance']} | {row['source']} | {mark} |"
            )
    if notes.texts:
        reasons += [""] if reasons else []
        reasons += [
            "ns-2.35 column: ns-2.35 on the reproduction's full set-up "
            "(python/ccscope/ns2column.json, written by `make validate`), beside quick and full "
            "rows alike; a dash where ns-2.35 has no cell, for the reason noted:",
            *notes.lines(),
        ]
    return "\n".join(lines + ([""] + reasons if reasons else [])) + "\n"


def table(report: dict[str, Any]):
    """One report for the terminal (a rich table, the reasons in its caption)."""
    from rich.table import Table

    out = Table(
        title=f"{report['id']}: {report['title']} ({report['source']})",
        title_justify="left",
        caption_justify="left",
    )
    for col in ("quantity", "paper", "ns-2.35", "ccscope", "tolerance", "tolerance from", "holds"):
        out.add_column(col, justify="left" if col in ("quantity", "tolerance from") else "right")
    reasons = []
    for row in report["rows"]:
        out.add_row(
            row["quantity"],
            _number(row["published"]),
            _ns2_text(row.get("ns2")),
            _number(row["measured"]),
            row["tolerance"],
            row["source"],
            _verdict(row),
        )
        if not row["holds"]:
            reasons.append(f"{row['quantity']}: {row['why']}")
    caption = ["why not:", *reasons] if reasons else []
    for row in report["rows"]:
        if row.get("ns2") and not row["ns2"]["agree"]:
            caption.append(f"ns-2.35, {row['quantity']}: {_disagrees(row['ns2'])}")
    if report.get("ns2_note"):
        caption.append(f"ns-2.35: {report['ns2_note']}")
    if caption:
        out.caption = "\n".join(caption)
    return out
