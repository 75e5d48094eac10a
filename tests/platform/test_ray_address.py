"""`ccscope sweep --executor ray --address ADDR` against a Ray head this test starts (its own
ports and temporary folder) and stops: the same rows as the local executor."""

from __future__ import annotations

import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

import pandas as pd
import pytest

from ccscope import sweep

SWEEP = """
seeds = [1, 2]

[base.run]
duration = "20s"
warmup = "5s"

[base.topology]
kind = "fat_link"
loss = { kind = "bernoulli", p = 0.01 }

[[base.flows]]
source = { kind = "tcp" }

[axes]
"topology.loss.p" = [0.01, 0.02]
"""


def free_ports(n: int) -> list[int]:
    """n ports free on this machine now (held open together, so they differ)."""
    socks = [socket.socket() for _ in range(n)]
    for s in socks:
        s.bind(("127.0.0.1", 0))
    ports = [s.getsockname()[1] for s in socks]
    for s in socks:
        s.close()
    return ports


@pytest.fixture
def ray_head(monkeypatch):
    """A Ray head on free ports in a temporary folder (short: Ray's socket paths must fit in
    107 characters), run with --block in its own process group, which teardown ends."""
    ray = Path(sys.executable).with_name("ray")
    port, agent, grpc, runtime, metrics = free_ports(5)
    temp = tempfile.mkdtemp(prefix="ray", dir="/tmp")
    # Ray's token authentication with a token of this cluster's own (not ~/.ray's), which the
    # sweep's driver finds in the same environment.
    token = Path(temp) / "token"
    token.write_text(secrets.token_hex(32))
    monkeypatch.setenv("RAY_AUTH_MODE", "token")
    monkeypatch.setenv("RAY_AUTH_TOKEN_PATH", str(token))
    head = subprocess.Popen(
        [
            str(ray),
            "start",
            "--head",
            "--block",
            f"--port={port}",
            "--num-cpus=2",
            f"--dashboard-agent-listen-port={agent}",
            f"--dashboard-agent-grpc-port={grpc}",
            f"--runtime-env-agent-port={runtime}",
            f"--metrics-export-port={metrics}",
            "--include-dashboard=false",
            "--disable-usage-stats",
            f"--temp-dir={temp}",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    try:
        for line in head.stdout:
            if "Ray runtime started" in line:
                break
        else:
            pytest.fail(f"ray start exited with {head.wait()}")
        yield f"127.0.0.1:{port}", Path(temp)
    finally:
        # SIGTERM lets the head stop what it started; what is left of the group after 10 s
        # (all of it started by this fixture) is killed.
        os.killpg(head.pid, signal.SIGTERM)
        try:
            head.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass
        try:
            os.killpg(head.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        head.wait()
        head.stdout.close()
        shutil.rmtree(temp, ignore_errors=True)


def test_a_sweep_on_a_ray_cluster_by_address_gives_the_local_rows(tmp_path, ray_head):
    file = tmp_path / "sweep.toml"
    file.write_text(SWEEP)
    local, remote = tmp_path / "local.duckdb", tmp_path / "ray.duckdb"
    ccscope = [sys.executable, "-m", "ccscope", "sweep", str(file)]
    done = subprocess.run(
        [*ccscope, "--store", str(local), "-j", "1"], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    address, temp = ray_head
    done = subprocess.run(
        [*ccscope, "--store", str(remote), "--executor", "ray", "--address", address],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    # The sweep drove that cluster: its driver and workers logged in the head's folder (a Ray
    # of the sweep's own would log under another).
    logs = [p.name for p in temp.glob("session_*/logs/python-core-*.log")]
    assert any(n.startswith("python-core-driver-") for n in logs), logs
    assert any(n.startswith("python-core-worker-") for n in logs), logs
    rows = [sweep.load(s).drop(columns=["wall_s", "trace_dir"]) for s in (local, remote)]
    assert len(rows[0]) == 4
    pd.testing.assert_frame_equal(*rows)
