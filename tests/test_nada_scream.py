"""NADA (RFC 8698) and SCReAM (RFC 8298) on the media transport, from Python and the command
line, and their parameters' bad values named by their field."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import ccscope
from ccscope.errors import ScenarioError

ROOT = Path(__file__).resolve().parents[1]


def one_flow(controller) -> dict:
    return {
        "run": {"duration": "40s", "warmup": "10s", "seed": 1},
        "topology": {
            "kind": "dumbbell",
            "bottleneck": {
                "rate": "1Mbps",
                "delay": "40ms",
                "queue": {"kind": "droptail", "limit": "60pkts"},
            },
            "access": {"rate": "100Mbps", "delay": "5ms"},
        },
        "flows": [{"source": {"kind": "rtp", "controller": controller}}],
    }


@pytest.mark.parametrize("name", ["nada", "scream"])
def test_each_drives_the_encoder_within_its_range_and_the_link(name):
    f = ccscope.run(one_flow(name)).flows.loc[0]
    # RMIN / TARGET_BITRATE_MIN (150 kb/s) is the least the encoder codes; the 1 Mb/s link is
    # the most that gets through, give or take one 1200 B packet at the 30 s window's edges.
    assert 150e3 <= f["throughput_bps"] <= 1e6 + 8 * 1200 / 30
    assert f["frames_rendered"] > 0


def test_nadas_equilibrium_queue_is_small_on_an_idle_path():
    # RFC 8698 eq. 5: at rest x_curr = PRIO·XREF·RMAX/r_ref = 10 ms·1.5/r (Mb/s), about 15 ms
    # at 1 Mb/s, well below the 60-packet buffer (576 ms at 1 Mb/s): no loss.
    f = ccscope.run(one_flow("nada")).flows.loc[0]
    assert f["loss_rate"] == 0


def test_the_example_scenario_runs_from_the_command_line(tmp_path):
    p = subprocess.run(
        [
            sys.executable,
            "-m",
            "ccscope",
            "run",
            str(ROOT / "scenarios" / "media-nada-scream.toml"),
            "--out",
            str(tmp_path / "o"),
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert p.returncode == 0, p.stderr
    assert "NADA" in p.stdout and "SCReAM" in p.stdout and "video frames" in p.stdout


@pytest.mark.parametrize(
    ("controller", "field"),
    [
        ({"name": "nada", "rmin": 2000}, "controller.rmin"),
        ({"name": "nada", "qth": 0}, "controller.qth"),
        ({"name": "nada", "alpha": 1.5}, "controller.alpha"),
        ({"name": "scream", "beta_loss": 0}, "controller.beta_loss"),
        ({"name": "scream", "qdelay_target_lo": 500}, "controller.qdelay_target_lo"),
        ({"name": "scream", "target_bitrate_min": 2000}, "controller.target_bitrate_min"),
    ],
)
def test_bad_values_name_their_field(controller, field):
    with pytest.raises(ScenarioError) as info:
        ccscope.run(one_flow(controller))
    message = str(info.value)
    assert field in message and "\n" not in message.strip()
