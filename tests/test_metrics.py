import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ccscope import metrics, plainmetrics


def test_jain_index_known_values():
    assert metrics.jain_index([1, 1, 1, 1]) == 1.0
    assert metrics.jain_index([1, 0, 0, 0]) == pytest.approx(0.25)
    # (1 + 2 + 3)^2 / (3 * (1 + 4 + 9)) = 36 / 42
    assert metrics.jain_index([1, 2, 3]) == pytest.approx(36 / 42)


@given(
    st.lists(st.floats(min_value=0.0, max_value=1e12), min_size=1, max_size=50).filter(
        lambda x: any(v > 0 for v in x)
    )
)
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


# summary.json's fairness numbers come from plain Python (ccscope.plainmetrics): the same bits as
# numpy's, whose pairwise summation (numpy/_core/src/umath/loops_utils.h.src) changes order
# at 8 and 128 values and splits above 128.
rates = st.floats(min_value=0.0, max_value=1e12, allow_subnormal=False)


@given(st.lists(rates, min_size=1, max_size=700))
def test_plain_fairness_is_numpy_bit_for_bit(x):
    a = np.asarray(x, dtype=float)
    assert plainmetrics.numpy_sum(x) == np.sum(a)
    expected = (
        {"jain": metrics.jain_index(a), "min_max": metrics.min_max_ratio(a)}
        if np.any(a > 0)
        else {"jain": 0.0, "min_max": 0.0}
    )
    assert plainmetrics.fairness(x) == expected


@pytest.mark.parametrize("n", [127, 128, 129, 1000, 8192, 8193, 100_003])
def test_plain_sum_is_numpy_bit_for_bit_for_many_flows(n):
    x = np.random.default_rng(n).lognormal(15, 2, n)
    assert plainmetrics.numpy_sum(x.tolist()) == np.sum(x)
    assert plainmetrics.fairness(x.tolist())["jain"] == metrics.jain_index(x)
