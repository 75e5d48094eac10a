"""Cai, Shen, Pan & Mark 2005 at packet level: the reproductions cai-fig10 and cai-fig8-9 run
Figs. 10, 8 and 9; here, what DTAIMD must not change."""

import numpy as np

from ccscope.experiments import cai


def test_dtaimd_equals_taimd_at_large_windows():
    """Above 1/(1 − β) packets DTAIMD's α is the preset α (Cai et al. L1–L2): with one flow of
    each class the windows never drop that low after slow start, so the runs coincide."""
    t, d = cai.fig8_mix(1, "taimd"), cai.fig8_mix(1, "dtaimd")
    assert t["window"] > cai.FIG8_SMALL_WINDOW_PKTS
    assert np.isclose(t["other"], d["other"], rtol=0.02)
