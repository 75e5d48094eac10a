import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ccscope import metrics


def test_jain_index_known_values():
    assert metrics.jain_index([1, 1, 1, 1]) == 1.0
    assert metrics.jain_index([1, 0, 0, 0]) == pytest.approx(0.25)
    # (1 + 2 + 3)^2 / (3 * (1 + 4 + 9)) = 36 / 42
    assert metrics.jain_index([1, 2, 3]) == pytest.approx(36 / 42)


@given(st.lists(st.floats(min_value=0.0, max_value=1e12), min_size=1, max_size=50)
       .filter(lambda x: any(v > 0 for v in x)))
def test_jain_index_is_between_one_over_n_and_one(x):
    j = metrics.jain_index(x)
    assert 1 / len(x) - 1e-12 <= j <= 1 + 1e-12


def test_max_min_fairness_is_loguinov_eq_9():
    # f = min_{i != j} x_i / x_j: the smallest rate over the largest.
    x = [3.0, 1.0, 4.0, 1.5]
    brute = min(a / b for i, a in enumerate(x) for j, b in enumerate(x) if i != j)
    assert metrics.max_min_fairness(x) == pytest.approx(brute)
    assert metrics.min_max_ratio(x) == pytest.approx(0.25)


def test_cov_at_a_coarser_timescale():
    # Alternating 1, 3: CoV 0.5 per sample; averaging pairs removes all variation.
    x = np.tile([1.0, 3.0], 50)
    assert metrics.cov(x) == pytest.approx(0.5)
    assert metrics.cov(x, factor=2) == pytest.approx(0.0)


def test_loss_rate_and_throughput():
    assert metrics.loss_rate(5, 100) == 0.05
    assert metrics.loss_rate(0, 0) == 0.0
    assert metrics.throughput_bps(1250, 1.0) == 10_000.0


def test_queue_stats():
    s = metrics.queue_stats([0, 0, 2, 4, 4])
    assert s["mean"] == 2.0
    assert s["max"] == 4.0
    assert s["frac_empty"] == 0.4


@pytest.mark.parametrize("bad", [[], [np.nan], [np.inf, 1.0]])
def test_metrics_refuse_empty_or_non_finite_input(bad):
    with pytest.raises(ValueError):
        metrics.jain_index(bad)
