"""The validation table's ns-2.35 column: what ns-2.35 itself gives on a reproduction's set-up,
beside the paper and ccscope.

The cells live in ``ns2column.json`` beside this module, written only by ``make validate``'s
bench scripts (``python bench/ns2_compare_yang.py --store``, ``python bench/ns2_compare_figs.py
FIGURE --store``: they need ns-2.35's ``ns``) and committed like the documentation's generated
tables. A cell belongs to a reproduction id and a claim's ``key``
(:class:`ccscope.experiments.claims.Claim`) and holds ns-2.35's value over seeds, ccscope's on
the same set-up with ns-2.35's rules (the bench script's "ns-2.35 rules" column), whether the
two agree within their spread over seeds, the seeds, the command that wrote it and the model
version it ran at. Where the two do not agree the table says so: a ccscope defect until shown
otherwise. The ns-2.35 value is the full set-up's, shown beside quick and full rows alike.

A reproduction ns-2.35 cannot express has no cells and a reason (:data:`BLANK`); one whose
rows ns-2.35 measures only in part names what its other rows lack (:data:`PARTIAL`).
"""

from __future__ import annotations

import json
from contextlib import contextmanager
from pathlib import Path
from typing import Any

STORE = Path(__file__).with_name("ns2column.json")

#: How the bench scripts judge a mean ± sd cell: ns-2.35's mean and ccscope's (with ns-2.35's
#: rules) by Welch's t-test at the three-sigma level (two-sided p ≥ 0.0027, a normal's chance
#: beyond 3σ), the seeds being independent. Five seeds a side estimate each standard error from
#: four degrees of freedom: "within 3 standard errors" would then flag a true agreement about
#: once in sixty cells, and over this column's eighty-odd cells, most likely at least one.
AGREE_MEANS = "Welch's t-test of the means at the 3-sigma level (p ≥ 0.0027)"
#: The two-sided p-value of a normal beyond three standard deviations.
P_3SIGMA = 0.0027
#: How they judge a median (range) cell, first-passage times with long tails: each median
#: inside the other's range over the same seeds.
AGREE_MEDIANS = "each median inside the other's range"

_ROUND = "a round model (one step per round trip) or closed forms: no packets to simulate"
_MEDIA = "a media controller ns-2.35 has no agent for"
_REAL = "real packets through the udp engine: a real-time run, not a simulator's"

#: Reproduction id: why it has no ns-2.35 cell.
BLANK: dict[str, str] = {
    "loguinov-fig4": _ROUND,
    "loguinov-fig5": _ROUND,
    "loguinov-eq42": _ROUND + "; and ISCC has no ns-2.35 agent",
    "jin-table6": _ROUND,
    "cai-fig14": _ROUND,
    "cai-eq13": _ROUND,
    "cai-eq35": "a sender's coder queue in closed form: no network to simulate",
    "loguinov-fig7": "rate-based AIMD(1, 1/2) with packet-bunch estimates: ns-2.35's rate "
    "agents are TFRC and RAP, neither this control",
    "loguinov-fig8": "ISCC: no agent in ns-2.35",
    "loguinov-table1": "ISCC and Loguinov & Radha's rate-based binomials streaming FGS video: no "
    "agent in ns-2.35",
    "papadimitriou-fig3": "SSVP: no agent in ns-2.35",
    "papadimitriou-fig4-8": "SSVP and SSVP-ADP: no agent in ns-2.35",
    "dctcp-sigcomm10": "DCTCP is not in ns-2.35 (its ns-2 code is a separate patch)",
    "bbr-v1-queue": "BBR is not in ns-2.35",
    "bbr-vs-cubic": "BBR is not in ns-2.35",
    "copa-nsdi18": "Copa is not in ns-2.35",
    "codel-rfc8289": "CoDel is not in ns-2.35 (no Queue/CoDel)",
    "pie-rfc8033": "PIE is not in ns-2.35 (no Queue/PIE)",
    "fq-codel-isolation": "FQ-CoDel is not in ns-2.35",
    "gcc-carlucci2016": _MEDIA + " (GCC)",
    "nada-rfc8698": _MEDIA + " (NADA)",
    "scream-rfc8298": _MEDIA + " (SCReAM)",
    "realnet-accuracy": _REAL,
    "loguinov-fig7-udp": _REAL,
    "loguinov-fig8-udp": _REAL,
    "loguinov-table1-udp": _REAL,
    "papadimitriou-fig3-udp": _REAL,
    "linux-reno": _REAL + " (Linux's own TCP)",
    "linux-cubic": _REAL + " (Linux's own TCP)",
    "linux-bbr": _REAL + " (Linux's own TCP)",
    "linux-friendliness": _REAL + " (Linux's own TCP)",
    "linux-emulators": _REAL + " (Linux's own TCP)",
}

#: Reproduction id: why some of its rows have no ns-2.35 cell.
PARTIAL: dict[str, str] = {
    "yang-fig6": "TEAR has no ns-2.35 agent, so the order of the four has none either; the RTT "
    "row checks ccscope's trace bin against the set-up's RTT, a check of the set-up itself",
    "yang-table1": "TEAR has no ns-2.35 agent, so the order of the four has none either",
    "yang-onoff": "TEAR has no ns-2.35 agent",
    "yang-fig27-29": "TEAR has no ns-2.35 agent",
    "cubic-rfc9438": "the deterministic-loss rows and the Reno-friendly region's edge are one "
    "deterministic run each: no spread over seeds for the agreement rules to judge by",
    "vegas-equilibrium": "the round model's row: one step per round trip, no packets to simulate",
    "jin-table5": "SIMD(1/16) and AIAD(2/3) have no ns-2.35 agent (their increase depends on "
    "the window at the last decrease; ns-2's binomial increase is fixed)",
    "jin-fig20": "SIMD has no ns-2.35 agent (its increase depends on the window at the last "
    "decrease), so neither has either ranking; App. C's ratios are not run in ns-2.35",
}


def load(path: Path = STORE) -> dict[str, dict[str, dict[str, Any]]]:
    """The stored cells: ``{reproduction id: {claim key: cell}}`` ({} before any is stored)."""
    if not path.exists():
        return {}
    return json.loads(path.read_text())["reproductions"]


def note(reproduction: str) -> str:
    """Why `reproduction` has no ns-2.35 cell, or which of its rows have none ("" if all do)."""
    return BLANK.get(reproduction) or PARTIAL.get(reproduction, "")


def attach(report: dict[str, Any], cells: dict[str, dict[str, dict[str, Any]]] | None = None):
    """Adds the ns-2.35 column to a :func:`ccscope.reproduce.run` report: each row's ``ns2``
    (its stored cell, or None) and the report's ``ns2_note`` (:func:`note`)."""
    mine = (load() if cells is None else cells).get(report["id"], {})
    for row in report["rows"]:
        row["ns2"] = mine.get(row.get("key", "")) if row.get("key") else None
    report["ns2_note"] = note(report["id"])
    return report


@contextmanager
def locked_json(path: Path, about: str):
    """The data of a committed JSON store of reference measurements (this column; Linux's runs,
    :mod:`ccscope.experiments.linux`), read and written back under a file lock: make validate
    may run the bench scripts at once, so one writer at a time. `about` heads a new file."""
    import fcntl

    with open(path, "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        data = json.loads(path.read_text() or "{}")
        data.setdefault("about", about)
        yield data
        path.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n")


@contextmanager
def _locked(path: Path):
    """This column's data under :func:`locked_json`, its reproductions and keys in order."""
    about = (
        "The validation table's ns-2.35 column (ccscope.ns2column), written only by the "
        "bench scripts' --store (make validate); do not edit by hand."
    )
    with locked_json(path, about) as data:
        data.setdefault("reproductions", {})
        yield data
        data["reproductions"] = {
            k: dict(sorted(v.items())) for k, v in sorted(data["reproductions"].items())
        }


def store(
    reproduction: str, cells: dict[str, dict[str, Any]], command: str, path: Path = STORE
) -> None:
    """Merges `cells` (claim key: cell) into the store under `reproduction`, each stamped with
    the `command` that wrote it and the model version it ran at."""
    from . import _core

    with _locked(path) as data:
        mine = data["reproductions"].setdefault(reproduction, {})
        for key, cell in cells.items():
            mine[key] = {**cell, "command": command, "model_version": _core.MODEL_VERSION}


def restamp(
    reproduction: str, key: str, ccscope: str, seeds: str, command: str, path: Path = STORE
) -> bool:
    """Carries a stored cell across a model-version change, honestly: if ccscope's side,
    recomputed at this model version over the same `seeds`, is the stored text to the
    character, the cell is stamped with this model version (its ns-2.35 side and verdict stay
    the measured run's, whose version ``restamped["measured_at"]`` keeps) and True returned.
    Otherwise (a different value or seeds, or no such cell) nothing changes and False is
    returned: the caller measures the cell afresh, both sides, and stores it. A cell already at
    this model version is left as it is (nothing to carry)."""
    from . import _core

    with _locked(path) as data:
        cell = data["reproductions"].get(reproduction, {}).get(key)
        if cell is None or cell["ccscope"] != ccscope or cell["seeds"] != seeds:
            return False
        if cell["model_version"] == _core.MODEL_VERSION:
            return True
        measured = cell.get("restamped", {}).get("measured_at", cell["model_version"])
        cell["model_version"] = _core.MODEL_VERSION
        cell["restamped"] = {"measured_at": measured, "command": command}
        return True


def agree_means(ns2: list[float], ours: list[float]) -> bool:
    """:data:`AGREE_MEANS` over the two samples (each of two or more seeds). Means equal to
    rounding (1e-9 of their size: the bench scripts print six decimals) agree whatever the
    spread; samples without spread (deterministic runs) agree only then."""
    from scipy import stats

    mean = max(abs(_mean(ns2)), abs(_mean(ours)), 1.0)
    if abs(_mean(ns2) - _mean(ours)) <= 1e-9 * mean:
        return True
    if _var(ns2) == 0 and _var(ours) == 0:
        return False
    return bool(stats.ttest_ind(ns2, ours, equal_var=False).pvalue >= P_3SIGMA)


def agree_medians(ns2: list[float], ours: list[float]) -> bool:
    """:data:`AGREE_MEDIANS` over the two samples."""
    return min(ns2) <= _median(ours) <= max(ns2) and min(ours) <= _median(ns2) <= max(ours)


def _mean(v: list[float]) -> float:
    return sum(v) / len(v)


def _var(v: list[float]) -> float:
    m = _mean(v)
    return sum((x - m) ** 2 for x in v) / (len(v) - 1)


def _median(v: list[float]) -> float:
    s = sorted(v)
    return (s[(len(s) - 1) // 2] + s[len(s) // 2]) / 2
