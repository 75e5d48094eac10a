"""The papers' results as `ccscope reproduce` runs them: every claim holds, except the ones a
reproduction explains it cannot reproduce, which must keep failing (strict, as xfail(strict)).
The tolerances are the papers' or their theory's and live with each reproduction
(python/ccscope/experiments/)."""

from __future__ import annotations

import pytest

from ccscope import reproduce

#: (id, quantity) of every claim that does not reproduce; its reason is the claim's `why`.
NOT_REPRODUCED = {
    ("loguinov-eq42", "ISCC(-1.5,2): p_1 against (42)"),
    ("loguinov-eq42", "ISCC(-1.2,2): p_1 against (42)"),
    ("jin-table6", "TCP: Δ (pkts)"),
    *(("yang-table1", f"{name}: CoV_time at 20%, mean of seeds {seeds}")
      for name in ("TCP", "GAIMD(0.31,0.875)", "TFRC", "TEAR") for seeds in ("1–2", "1–5")),
}


def check(report: dict) -> None:
    assert report["rows"], report["id"]
    for row in report["rows"]:
        expected = (report["id"], row["quantity"]) not in NOT_REPRODUCED
        assert row["holds"] == expected, (report["id"], row)
        assert row["holds"] or row["why"]


@pytest.mark.parametrize("rid", list(reproduce.REGISTRY))
def test_quick_reproduction(rid):
    check(reproduce.run(rid, quick=True))


@pytest.mark.slow
@pytest.mark.parametrize("rid", list(reproduce.REGISTRY))
def test_full_reproduction(rid):
    check(reproduce.run(rid, quick=False))
