"""The packet-level checks of the validation tests that are not reproductions, measured as the
tests measure them, printed as the validation page's table ("Checks outside the registry";
docs/tables.py pastes it, tests/validation/test_packet_checks.py compares it).

Each row calls the set-up and measurement of the test it names (tests/validation/: the fat
link of test_tcp_models.py, the SIMD epochs of conftest.py, the RED dumbbell of
test_rate_models.py), so the table's number is the number the test holds to the paper's.
Fixed seeds; about a minute on one core.

Usage: python bench/packet_checks.py
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parents[1] / "tests" / "validation"
sys.path.insert(0, str(HERE))
import conftest as validation_setups  # noqa: E402

sys.modules.setdefault("validation_setups", validation_setups)
import test_rate_models  # noqa: E402
import test_tcp_models  # noqa: E402

import ccscope  # noqa: E402
from ccscope import metrics  # noqa: E402


def red_jain() -> float:
    """test_c: Jain's index of eight TCP flows on the RED bottleneck."""
    return metrics.jain_index(test_tcp_models.eight_tcp_on_red().flows.goodput_bps)


def simd_shape() -> tuple[np.ndarray, np.ndarray]:
    """test_simd_shape: per steady epoch, the fitted exponent and c over eq. (7)."""
    result = ccscope.run(validation_setups.simd_fat_link())
    fits = [
        validation_setups.simd_epoch_fit(e)
        for e in validation_setups.simd_epochs(result)
        if e["start_s"] >= validation_setups.STEADY_FROM_S
    ]
    return np.array([p for p, _ in fits]), np.array([c for _, c in fits])


def span(x, digits: int) -> str:
    return f"{min(x):.{digits}f}–{max(x):.{digits}f}"


def main() -> None:
    pftk = [test_tcp_models.pftk_ratio(p)[0] for p in (0.005, 0.01, 0.02, 0.05)]
    gaimd = [test_tcp_models.gaimd_ratio(p) for p in (0.005, 0.01, 0.02)]
    exponents, c_ratio = simd_shape()
    tfrc = {c: test_rate_models.tfrc_tcp_ratio(c, "300s") for c in ("tfrc-ns2", "tfrc")}
    rows = [
        (
            "PFTK (Padhye 1998)",
            "one TCP, Bernoulli p = 0.5, 1, 2, 5%: goodput / model with own RTT, RTO",
            "1 ± 0.15",
            "ratio " + ", ".join(f"{r:.3f}" for r in pftk),
            "`test_tcp_models.py`",
        ),
        (
            "Yang & Lam",
            "GAIMD(0.31,0.875)/TCP, p = 0.5, 1, 2%",
            "[0.8, 1.25]",
            ", ".join(f"{r:.2f}" for r in gaimd),
            "`test_tcp_models.py`",
        ),
        (
            "—",
            "8 TCP over RED, Jain, 100 s",
            "≥ 0.95",
            f"{red_jain():.4f}",
            "`test_tcp_models.py`",
        ),
        (
            "Jin eq. (1), (5), (7)",
            f"SIMD growth exponent; c ({exponents.size} steady epochs)",
            "2 ± 0.2; eq. (7)",
            f"{span(exponents, 2)}; {span(c_ratio, 3)} × eq. (7)",
            "`test_simd_shape.py`",
        ),
        (
            "—",
            "4 TFRC + 4 TCP on a 15 Mb/s RED dumbbell, 300 s: TFRC/TCP",
            "[0.7, 1.4]",
            ", ".join(f"{c} {r:.3f}" for c, r in tfrc.items()),
            "`test_rate_models.py`",
        ),
    ]
    print("| source | check | paper | ccscope | test |")
    print("| --- | --- | --- | --- | --- |")
    for row in rows:
        print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
