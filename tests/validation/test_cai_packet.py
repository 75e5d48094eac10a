"""Issue 3, check g: Cai, Shen, Pan & Mark 2005 at packet level (check f, Fig. 10, is the
reproduction cai-fig10).

g. n TCP + n TAIMD(0.2, 0.875) against n TCP + n DTAIMD(0.2, 0.875) on a 15 Mb/s RED link
   (Cai et al. §V-A1, Figs. 8 and 9): where windows are small, DTAIMD's normalized throughput is
   closer to 1 than TAIMD's, and its fairness index with TCP is at least TAIMD's.
"""

import numpy as np
import pytest
from validation_setups import (
    cai_mix,
)

import ccscope
from ccscope import metrics


def _mix(n: int, kind: str, seed: int = 1) -> dict:
    res = ccscope.run(cai_mix(n, kind, seed=seed))
    x = res.flows["throughput_bps"].to_numpy()
    fair = x.mean()  # Cai et al. Fig. 8: throughput over the fair share; the classes sum to 2
    link = res.bottlenecks.iloc[0]
    rtt = float(res.flows["mean_rtt_s"].mean())
    # Window per flow the link sustains: (pipe + queue) / flows.
    window = (link["rate_bps"] * rtt / (8 * 1000)) / (2 * n)
    return {
        "tcp": x[0::2].mean() / fair,
        "other": x[1::2].mean() / fair,
        "jain": metrics.jain_index(x),  # Cai et al. §V-A1, Fig. 9 fairness index
        "window": window,
        "timeouts_per_flow": float(res.flows["timeouts"].mean()),
    }


# 1/(1 − β) = 8 packets for β = 0.875: below it a reduction removes a whole packet and TAIMD's
# effective β' = 1 − 1/cwnd is smaller than β (Cai et al. §III-C.2), which DTAIMD corrects.
SMALL_WINDOW_PKTS = 1 / (1 - 0.875)


def _compare(ns: list[int]) -> list[tuple]:
    rows = []
    for n in ns:
        t, d = _mix(n, "taimd"), _mix(n, "dtaimd")
        rows.append((n, t, d))
    print("\nCai Figs. 8-9 (normalized throughput of the AIMD class; Jain index of all 2n flows):")
    for n, t, d in rows:
        print(f"  n = {n:2d}: window/flow {t['window']:5.1f}  TAIMD {t['other']:.3f} "
              f"(TCP {t['tcp']:.3f}, J {t['jain']:.3f})  DTAIMD {d['other']:.3f} "
              f"(TCP {d['tcp']:.3f}, J {d['jain']:.3f})  timeouts/flow {t['timeouts_per_flow']:.0f}"
              f"/{d['timeouts_per_flow']:.0f}")
    small = [(n, t, d) for n, t, d in rows if t["window"] < SMALL_WINDOW_PKTS]
    assert small, "the grid must reach windows below 1/(1 − β)"
    for n, t, d in small:
        # Cai et al. Fig. 8(b) vs 8(a): DTAIMD's normalized throughput is closer to 1.
        assert abs(d["other"] - 1) <= abs(t["other"] - 1), (n, t, d)
        # Cai et al. Fig. 9: DTAIMD's fairness index with TCP is at least TAIMD's.
        assert d["jain"] >= t["jain"], (n, t, d)
    return rows




def test_dtaimd_is_fairer_to_tcp_than_taimd_reduced_grid():
    _compare([1, 32])


@pytest.mark.slow
def test_dtaimd_is_fairer_to_tcp_than_taimd_full_grid():
    # Cai et al. §V-A2c: "n ranges from 1 to 64".
    _compare([1, 2, 4, 8, 16, 32, 64])


def test_dtaimd_equals_taimd_at_large_windows():
    """Above 1/(1 − β) packets DTAIMD's α is the preset α (Cai et al. L1–L2): with one flow of
    each class the windows never drop that low after slow start, so the runs coincide."""
    t, d = _mix(1, "taimd"), _mix(1, "dtaimd")
    assert t["window"] > SMALL_WINDOW_PKTS
    assert np.isclose(t["other"], d["other"], rtol=0.02)
