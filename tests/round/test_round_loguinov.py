"""Loguinov & Radha 2003 in the round model: the helpers of the reproductions (the published
claims themselves are checked by tests/validation/test_reproduce.py)."""

from __future__ import annotations

import numpy as np
import pytest

from ccscope.experiments import loguinov


def test_scalability_exponent_of_a_power_law():
    n = np.array([1, 10, 100])
    assert loguinov.scalability_exponent(n, n**2.0) == pytest.approx(
        {"equivalent": 2.0, "fit": 2.0}
    )


def test_examples_run_with_their_defaults():
    # The README names loguinov.iscc_table() and cai.friendliness() without arguments.
    from ccscope.experiments import cai

    assert list(loguinov.iscc_table(steps=2_000)["scheme"]) == [*loguinov.ISCC, "AIMD1"]
    row = cai.friendliness(steps=2_000)
    assert (row["beta"], row["r"]) == (0.875, cai.R)
