from __future__ import annotations

import textwrap

import pytest

SMALL = """
[run]
duration = "5s"
seed = 3

[topology]
kind = "dumbbell"
bottleneck = { rate = "2Mbps", delay = "10ms", queue = { kind = "droptail", limit = "20pkts" } }

[[flows]]
source = { kind = "poisson", rate = "1.5Mbps" }
count = 2

[trace]
interval = "100ms"
events = true
"""


@pytest.fixture
def small_toml() -> str:
    return textwrap.dedent(SMALL)
