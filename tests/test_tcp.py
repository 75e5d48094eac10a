"""TCP flows from scenario files and Python, and window controllers written in Python."""

import math
from unittest import mock

import pytest

import ccscope
from ccscope.errors import ScenarioError
from ccscope.experiments import linux

TCP = """
[run]
duration = "30s"
warmup = "5s"
seed = 2

[topology]
kind = "dumbbell"
bottleneck = { rate = "5Mbps", delay = "20ms", queue = { kind = "droptail", limit = "30pkts" } }

[[flows]]
source = { kind = "tcp", variant = "sack" }
count = 2

[[flows]]
source = { kind = "tcp", variant = "newreno", controller = { name = "gaimd", beta = 0.875 } }

[trace]
interval = "100ms"
"""


def test_tcp_flows_share_the_link_and_report_transport_numbers():
    r = ccscope.run(ccscope.loads(TCP))
    f = r.flows
    assert list(f["label"]) == ["TCP/SACK", "TCP/SACK", "GAIMD(0.3125,0.875) (NewReno)"]
    assert r.bottlenecks.loc[0, "utilization"] > 0.95
    # Goodput counts each packet once; it is at most what arrived.
    assert (f["goodput_bps"] <= f["throughput_bps"] * 1.001).all()
    assert f["goodput_bps"].sum() > 0.9 * 5e6
    # RTT is at least the 2 * (20 + 1 + 1) ms of propagation.
    assert (f["mean_rtt_s"] > 0.044).all()
    assert (r.trace.flows["window_pkts"] >= 1).all()


def test_a_python_window_controller_runs_in_the_packet_engine():
    text = TCP.replace(
        'controller = { name = "gaimd", beta = 0.875 }', 'controller = "python:aimd"'
    )
    calls = {"increase": 0, "decrease": 0}

    def increase(w):
        calls["increase"] += 1
        return 0.5

    def decrease(w):
        calls["decrease"] += 1
        return w * 0.75

    aimd = ccscope.WindowController("AIMD-py(0.5,0.75)", increase=increase, decrease=decrease)
    r = ccscope.run(ccscope.loads(text), controllers={"aimd": aimd})
    assert r.flows.loc[2, "label"] == "AIMD-py(0.5,0.75) (NewReno)"
    assert calls["increase"] > 100 and calls["decrease"] > 0
    assert r.flows.loc[2, "goodput_bps"] > 0.3e6


def test_python_controller_errors_surface_after_the_run():
    text = TCP.replace('controller = { name = "gaimd", beta = 0.875 }', 'controller = "python:bad"')
    bad = ccscope.WindowController("bad", increase=lambda w: 1.0, decrease=lambda w: 1 / 0)
    with pytest.raises(
        ccscope.ControllerError, match=r"decrease\(\d+\) raised ZeroDivisionError"
    ) as e:
        ccscope.run(ccscope.loads(text), controllers={"bad": bad})
    # The user's exception is the cause; the run up to then is kept, marked partial.
    assert isinstance(e.value.__cause__, ZeroDivisionError)
    assert e.value.result.partial and e.value.result.flows["sent_pkts"].sum() > 0
    assert e.value.path == "flows[1].source.controller"
    nan = ccscope.WindowController("nan", increase=lambda w: float("nan"), decrease=lambda w: w)
    with pytest.raises(
        ScenarioError, match="returned nan; it must return a number of packets in \\[0, 1e9\\]"
    ):
        ccscope.run(ccscope.loads(text), controllers={"bad": nan})
    with pytest.raises(ScenarioError, match="no Python controller named 'bad' was handed"):
        ccscope.run(ccscope.loads(text))


@pytest.mark.parametrize(
    ("controller", "below", "needle"),
    [
        ('"westwood"', "", "is not known; expected one of: tcp, aimd"),
        ('{ name = "gaimd", beta = 1.5 }', ".beta", "beta = 1.5: must be in"),
        (
            '{ name = "gaimd", gamma = 0.5 }',
            ".gamma",
            "not a parameter of gaimd; its parameters: alpha, beta",
        ),
    ],
)
def test_bad_controllers_are_named(controller, below, needle):
    text = TCP.replace('{ name = "gaimd", beta = 0.875 }', controller)
    with pytest.raises(ccscope.ControllerError) as info:
        ccscope.loads(text)
    assert info.value.path == "flows[1].source.controller" + below
    assert needle in str(info.value)


def test_finite_transfer_completes():
    text = TCP.replace('variant = "sack" }\ncount = 2', 'transfer = "500pkts" }')
    # Counts cover [warmup, end): with the 5 s warm-up the transfer would fall outside.
    r = ccscope.run(ccscope.loads(text.replace('warmup = "5s"', 'warmup = "0s"')))
    assert r.flows.loc[0, "goodput_pkts"] == 500
    assert 0 < r.flows.loc[0, "completion_time_s"] < 30


def test_controllers_command_lists_the_catalogue():
    import json
    import subprocess
    import sys

    p = subprocess.run(
        [sys.executable, "-m", "ccscope", "controllers", "--json"],
        capture_output=True,
        text=True,
        check=True,
    )
    names = {e["name"] for e in json.loads(p.stdout)}
    assert {
        "tcp",
        "aimd",
        "gaimd",
        "binomial",
        "iiad",
        "sqrt",
        "simd",
        "aiad",
        "taimd",
        "dtaimd",
    } <= names


@pytest.mark.parametrize("lost_after", [3, 1])
def test_sack_never_resends_what_the_receiver_reported_holding(lost_after):
    # Independent losses, no reordering: an RFC 6675 sender retransmits each lost packet once
    # (lost retransmissions counted as losses) and, after a timeout, skips what the receiver
    # has SACKed since (§5.1), so the receiver sees almost no duplicates. Before that rule
    # ccscope resent 0.8-1.8 packets the receiver held per timeout. Without reordering a hole
    # below any SACKed packet is lost, so ns-2's rule (lost after one SACK) resends no more.
    r = ccscope.run(
        {
            "run": {"duration": "60s", "seed": 2},
            "topology": {
                "kind": "dumbbell",
                "access": {"rate": "1Gbps", "delay": "1ms"},
                "bottleneck": {
                    "rate": "100Mbps",
                    "delay": "20ms",
                    "queue": {"kind": "droptail", "limit": "100000pkts"},
                    "loss": {"kind": "bernoulli", "p": 0.05},
                },
            },
            "flows": [
                {
                    "source": {"kind": "tcp", "variant": "sack", "sack_lost_after": lost_after},
                    "count": 4,
                }
            ],
        }
    )
    f = r.flows
    lost = f["dropped_pkts"].sum()
    assert f["timeouts"].sum() > 20  # the rule is exercised
    assert f["duplicate_pkts"].sum() <= 0.005 * lost
    assert f["retransmits"].sum() / lost == pytest.approx(1.0, abs=0.01)


def _window_one_flows(overhead: str | None, flows: int, seconds: float) -> "ccscope.Result":
    source = {"kind": "tcp", "packet_size": "100B", "max_window": 1}
    if overhead is not None:
        source["overhead"] = overhead
    return ccscope.run(
        {
            "run": {"duration": f"{seconds:g}s", "seed": 3},
            "topology": {
                "kind": "dumbbell",
                "access": {"rate": "10Gbps", "delay": "1ms"},
                "bottleneck": {
                    "rate": "10Gbps",
                    "delay": "10ms",
                    "queue": {"kind": "droptail", "limit": "1000pkts"},
                },
            },
            "flows": [{"source": source, "count": flows}],
        }
    )


def test_send_jitter_delays_each_send_by_a_uniform_draw_per_flow():
    # ns-2's overhead_ (tcp.cc send_much): each send waits U[0, o) before it leaves. With a
    # window of one packet on an idle path every cycle is R + U, so by the renewal theorem a
    # flow completes N ~ Normal(T / μ, T σ² / μ³) cycles in T, μ = R + o/2, σ² = o²/12. R comes
    # from the same flows without jitter (then N = T / R exactly, up to one cycle).
    flows, seconds, o = 60, 100.0, 0.02
    plain = _window_one_flows(None, flows, seconds).flows["acked_pkts"]
    assert plain.nunique() == 1
    rtt = seconds / plain.iloc[0]
    n = _window_one_flows("20ms", flows, seconds).flows["acked_pkts"]
    mu, var = rtt + o / 2, o * o / 12
    expected_mean, expected_var = seconds / mu, seconds * var / mu**3
    # The mean of 60 flows within 4 standard errors (plus one cycle for the end of the run).
    assert abs(n.mean() - expected_mean) <= 4 * math.sqrt(expected_var / flows) + 1
    # Each flow draws from its own stream: the spread across flows is the renewal one, its
    # sample variance a χ²(59)/59 multiple of it (0.5 to 1.7 at 99.99%); a constant delay would
    # leave no spread, an exponential one three times as much.
    assert 0.5 <= n.var(ddof=1) / expected_var <= 1.7


def test_no_send_jitter_is_the_default():
    a = _window_one_flows(None, 2, 5.0).flows
    b = _window_one_flows("0s", 2, 5.0).flows
    assert a.equals(b)


def test_send_jitter_must_be_a_time():
    with pytest.raises(ScenarioError) as info:
        _window_one_flows("-1ms", 1, 1.0)
    assert info.value.path == "flows[0].source.overhead"


@pytest.mark.parametrize("value", [0, 65537])
def test_sack_lost_after_is_a_count(value):
    with pytest.raises(ScenarioError) as info:
        ccscope.loads(
            TCP.replace('variant = "sack" }', f'variant = "sack", sack_lost_after = {value} }}')
        )
    assert info.value.path == "flows[0].source.sack_lost_after"
    assert "[1, 65536]" in str(info.value)


@pytest.mark.parametrize(
    ("setting", "allowed"),
    [
        ("max_backoff = 0", "[1, 65536]"),
        ("forget_rtt_above_backoff = 0", "[1, 65536]"),
        ("recover_margin = 65537", "[0, 65536]"),
        ('rtt_timing = "sometimes"', "every_ack"),
    ],
)
def test_ns2_timer_and_recovery_settings_are_checked(setting, allowed):
    with pytest.raises(ScenarioError) as info:
        ccscope.loads(TCP.replace('variant = "sack" }', f'variant = "sack", {setting} }}'))
    assert info.value.path == "flows[0].source." + setting.split(" =")[0]
    assert allowed in str(info.value)


def test_ns2_settings_are_written_only_when_set():
    plain = ccscope.loads(TCP).table["flows"][0]["source"]
    assert not {"max_backoff", "rtt_timing", "forget_rtt_above_backoff", "recover_margin"} & set(
        plain
    )
    rules = 'recover_margin = 1, rtt_timing = "one_per_rtt", forget_rtt_above_backoff = 8 }'
    ns2 = ccscope.loads(TCP.replace('variant = "sack" }', 'variant = "sack", ' + rules))
    source = ns2.table["flows"][0]["source"]
    assert (source["recover_margin"], source["rtt_timing"]) == (1, "one_per_rtt")
    assert source["forget_rtt_above_backoff"] == 8


def test_timestamps_end_the_backoff_that_karns_rule_lets_grow():
    # Eight BBR flows of the model of Linux's TCP at 10 Mb/s, 20 ms and a quarter BDP of
    # buffer (6 packets) lose a fifth of their packets. By Karn's rule alone some flows get no
    # RTT sample for long: every ACK they get covers a retransmission, and their RTO doubles
    # from timeout to timeout (on seed 1 three reach 27 s in 30 s). With timestamps (RFC 7323
    # §4; Linux's tcp_ack_update_rtt) those ACKs are timed too and each sample ends the
    # backoff: no chain outlasts a few timeouts before the first sample (1 s, RFC 6298 §2.1).
    case = linux.Case(flows=8, rate_mbps=10, rtt_ms=20, buffer_bdp=0.25, loss=0.0)
    longest = {}
    for timing in ("every_ack", "timestamps"):
        with mock.patch.dict(linux.LINUX_TCP, {"rtt_timing": timing}):
            table, _ = linux.scenario([case], "bbr", "model", {"duration_s": 30.0, "warmup_s": 5.0})
        state = ccscope.run(table, force=True).trace.state
        longest[timing] = state[state["field"] == "rto_s"].groupby("flow")["value"].max()
    assert (longest["every_ack"] > 16.0).sum() >= 1
    assert longest["timestamps"].max() < 8.0
    assert (
        ccscope.loads(
            TCP.replace('variant = "sack" }', 'variant = "sack", rtt_timing = "timestamps" }')
        ).table["flows"][0]["source"]["rtt_timing"]
        == "timestamps"
    )


def _lossy_single_flow(**source) -> dict:
    """Yang et al. §3.3.1's set-up at 20% Bernoulli loss (one TCP flow, 2.5 Mb/s, 30 ms)."""
    from ccscope.experiments import yang

    sc = yang.smoothness_scenario({"kind": "tcp", **source}, 1, 0.2)
    sc["run"]["duration"] = "600s"
    sc["trace"]["state"] = True
    return sc


def test_the_rto_backs_off_past_64_times_its_base_up_to_max_rto():
    # RFC 6298 §5.5: each timeout doubles the RTO, bounded by the maximum RTO only. At 20%
    # loss one flow times out several times in a row now and then; the longest wait in 600 s
    # exceeds 64 x 0.2 s, where a cap of 64 holds it.
    def longest(**source) -> float:
        st = ccscope.run(_lossy_single_flow(**source)).trace.state
        return float(st[st.field == "rto_s"].value.max())

    assert longest() > 12.8
    assert longest(max_backoff=64) == pytest.approx(12.8)


def _short_transfer(syn: bool, lose_first: bool = False):
    """One 2-packet transfer with an initial window of 2 over an idle 10 Gb/s path (24 ms of
    propagation each way and back); `lose_first`: the first packet to cross the bottleneck is
    lost (the SYN, or data packet 0)."""
    bottleneck = {"rate": "10Gbps", "delay": "10ms"}
    if lose_first:
        bottleneck["loss"] = {"kind": "schedule", "steps": [{"at": "0s", "interval": "100s"}]}
    source = {"kind": "tcp", "transfer": "2pkts", "initial_window": 2}
    if syn:
        source["syn"] = True
    r = ccscope.run(
        {
            "run": {"duration": "20s", "seed": 1},
            "topology": {
                "kind": "dumbbell",
                "access": {"rate": "10Gbps", "delay": "1ms"},
                "bottleneck": bottleneck,
            },
            "flows": [{"source": source}],
        }
    )
    return r.flows.iloc[0]


def test_a_syn_exchange_costs_one_round_trip_and_a_lost_syn_the_initial_rto():
    # ns-2.35's start (syn_, delay_growth_; tcp.cc output(), tcp-sack1.cc recv()): a SYN
    # alone, then the initial window on its ACK. On an idle path whose serialization is
    # microseconds, the two packets' transfer takes one round trip R from the start without a
    # SYN and 2 R with one. A lost SYN waits the initial RTO (3 s), then leaves a window of 1
    # with ssthresh 2: SYN, packet 0, packet 1 take a round trip each.
    plain, syn = _short_transfer(False), _short_transfer(True)
    rtt = plain["completion_time_s"]
    assert rtt == pytest.approx(0.024, abs=1e-4)
    assert syn["completion_time_s"] == pytest.approx(2 * rtt, abs=1e-4)
    # The SYN is not data: the same packets delivered and acknowledged, none sent again.
    for key in ("goodput_pkts", "acked_pkts"):
        assert syn[key] == plain[key] == 2
    assert syn["retransmits"] == syn["timeouts"] == 0
    lost = _short_transfer(True, lose_first=True)
    assert lost["completion_time_s"] == pytest.approx(3 + 3 * rtt, abs=1e-4)
    assert (lost["timeouts"], lost["retransmits"], lost["goodput_pkts"]) == (1, 1, 2)


def test_the_syn_exchange_is_off_by_default_and_written_only_when_set():
    plain = ccscope.loads(TCP)
    assert "syn" not in plain.table["flows"][0]["source"]
    on = ccscope.loads(TCP.replace('variant = "sack" }', 'variant = "sack", syn = true }'))
    assert on.table["flows"][0]["source"]["syn"] is True
    with pytest.raises(ScenarioError) as info:
        ccscope.loads(TCP.replace('variant = "sack" }', 'variant = "sack", syn = "yes" }'))
    assert info.value.path == "flows[0].source.syn"


def _rto_after_the_syn(seed: int, **source) -> float:
    """The RTO after the first RTT sample (the SYN's, 24 ms) on _short_transfer's idle path,
    with no minimum RTO and one packet timed at a time."""
    r = ccscope.run(
        {
            "run": {"duration": "1s", "seed": seed},
            "topology": {
                "kind": "dumbbell",
                "access": {"rate": "10Gbps", "delay": "1ms"},
                "bottleneck": {"rate": "10Gbps", "delay": "10ms"},
            },
            "flows": [
                {
                    "source": {
                        "kind": "tcp",
                        "transfer": "2pkts",
                        "syn": True,
                        "min_rto": "0s",
                        "rtt_timing": "one_per_rtt",
                        **source,
                    }
                }
            ],
            "trace": {"state": True},
        }
    )
    st = r.trace.state
    rto = st[(st.field == "rto_s") & (st.time_s > 0.02)]
    return float(rto.value.iloc[0])


def test_ns2s_estimator_counts_the_first_sample_in_ticks_of_a_clock_of_random_phase():
    # A 24.0 ms SYN sample. RFC 6298: RTO = R + 4 R/2 = 72 ms, rounded up to the 10-ms tick.
    # ns-2.35 (tcp.cc rtt_update()): the sample is the 2 or 3 tick boundaries of the agent's
    # clock (phase boot_time_, uniform in a tick: 3 with probability 0.4) that it spans, and the
    # RTO 3 times that: 60 or 90 ms. Over ten seeds both occur (all alike: p < 0.007).
    assert _rto_after_the_syn(1) == pytest.approx(0.08)
    ns2 = {round(_rto_after_the_syn(seed, rtt_estimator="ns2"), 9) for seed in range(1, 11)}
    assert ns2 == {0.06, 0.09}


def _sack_source(setting: str) -> dict:
    """The first flow's source of :data:`TCP` with `setting` (TOML) added to its SACK source."""
    return ccscope.loads(
        TCP.replace('variant = "sack" }', f'variant = "sack", {setting} }}')
    ).table["flows"][0]["source"]


def _sack_source_refused(setting: str) -> ScenarioError:
    with pytest.raises(ScenarioError) as info:
        _sack_source(setting)
    return info.value


def test_the_ns2_estimator_is_off_by_default_written_only_when_set_and_needs_a_tick():
    assert "rtt_estimator" not in ccscope.loads(TCP).table["flows"][0]["source"]
    assert _sack_source('rtt_estimator = "ns2"')["rtt_estimator"] == "ns2"
    assert _sack_source_refused('rtt_estimator = "bsd"').path == "flows[0].source.rtt_estimator"
    untick = 'variant = "sack", rtt_estimator = "ns2", tick = "0s" }'
    with pytest.raises(ScenarioError, match="counts RTTs in ticks") as info:
        ccscope.loads(TCP.replace('variant = "sack" }', untick))
    assert info.value.path == "flows[0].source.tick"


SYN_TOML = """
[run]
duration = "5s"

[topology]
kind = "dumbbell"
access = { rate = "10Gbps", delay = "1ms" }
bottleneck = { rate = "10Gbps", delay = "10ms" }

[[flows]]
source = { kind = "tcp", transfer = "2pkts", initial_window = 2, syn = SYN }
"""


def test_the_syn_exchange_from_the_command_line(tmp_path):
    import json
    import subprocess
    import sys

    def run(syn: str) -> subprocess.CompletedProcess:
        name = syn.strip('"')
        path = tmp_path / f"syn-{name}.toml"
        path.write_text(SYN_TOML.replace("SYN", syn))
        out = tmp_path / f"out-{name}"
        cmd = [sys.executable, "-m", "ccscope", "run", str(path), "--out", str(out), "-q"]
        return subprocess.run([*cmd, "--no-plot"], capture_output=True, text=True, timeout=300)

    times = {}
    for syn in ("false", "true"):
        p = run(syn)
        assert p.returncode == 0, p.stderr
        summary = json.loads((tmp_path / f"out-{syn}" / "summary.json").read_text())
        times[syn] = summary["flows"][0]["completion_time_s"]
    # One more round trip (24 ms) for the SYN, as in Python.
    assert times["true"] - times["false"] == pytest.approx(0.024, abs=1e-4)
    p = run('"yes"')
    assert p.returncode == 2
    assert "flows[0].source.syn" in p.stderr


def _run_source(tmp_path, settings: str):
    """`ccscope run` of :data:`SYN_TOML` with the TCP source's `settings` (TOML, after the
    flow's `transfer` and `initial_window`)."""
    import subprocess
    import sys

    path = tmp_path / "source.toml"
    path.write_text(SYN_TOML.replace("syn = SYN", settings))
    cmd = [sys.executable, "-m", "ccscope", "run", str(path), "--out", str(tmp_path / "o")]
    return subprocess.run([*cmd, "-q", "--no-plot"], capture_output=True, text=True, timeout=300)


def test_the_ns2_estimator_from_the_command_line(tmp_path):
    def run(value: str):
        return _run_source(tmp_path, f"syn = true, rtt_estimator = {value}")

    assert run('"ns2"').returncode == 0
    p = run('"bsd"')
    assert p.returncode == 2
    assert "flows[0].source.rtt_estimator" in p.stderr


def _slow_start_window(growth: str | None, delayed_ack: bool) -> float:
    """One TCP flow from a window of 10 on an idle 100 Mb/s, 100 ms path: its window 0.35 s
    in, after three rounds of slow start."""
    source = {"kind": "tcp", "initial_window": 10, "delayed_ack": delayed_ack}
    if growth:
        source["growth"] = growth
    sc = {
        "run": {"duration": "0.35s", "seed": 1},
        "topology": {"kind": "dumbbell", "bottleneck": {"rate": "100Mbps", "delay": "48ms"}},
        "flows": [{"source": source}],
        "trace": {"interval": "10ms", "state": True},
    }
    st = ccscope.run(sc).trace.state
    window = st[(st.field == "cwnd_pkts") & (st.side == "sender")]
    return float(window.sort_values("time_s").value.iloc[-1])


def test_per_packet_growth_keeps_slow_start_doubling_with_delayed_acks():
    # RFC 5681 §3.1 counts ACKs: with an ACK per two packets slow start grows by half a window
    # per round (10 -> 15 -> 22.5 -> 33.75); counted per packet acknowledged (RFC 3465, Linux's
    # tcp_slow_start) it doubles as with an ACK per packet (10 -> 20 -> 40 -> 80).
    assert _slow_start_window(None, False) == 80
    assert _slow_start_window("per_packet", True) == 80
    assert 30 <= _slow_start_window(None, True) <= 36


def test_python_controllers_see_the_growth_count():
    seen = []

    class Probe(ccscope.Controller):
        window_pkts = 10.0

        def on_ack(self, ack):
            if ack.acked_pkts:
                seen.append((ack.acked_pkts, ack.growth_pkts))

    def counts(growth: str) -> set:
        seen.clear()
        gaimd = 'controller = { name = "gaimd", beta = 0.875 }'
        mine = f'controller = "python:p", delayed_ack = true, growth = "{growth}"'
        text = TCP.replace(gaimd, mine)
        ccscope.run(ccscope.loads(text), controllers={"p": Probe()})
        return set(seen)

    assert {g for _, g in counts("per_ack")} == {1}
    per_packet = counts("per_packet")
    assert all(a == g for a, g in per_packet) and any(a == 2 for a, _ in per_packet)


def test_growth_is_checked_and_written_only_when_per_packet():
    with pytest.raises(ScenarioError) as info:
        ccscope.loads(TCP.replace('variant = "sack" }', 'variant = "sack", growth = "per_byte" }'))
    assert info.value.path == "flows[0].source.growth"
    assert "per_packet" in str(info.value)
    assert "growth" not in ccscope.loads(TCP).table["flows"][0]["source"]
    text = TCP.replace('variant = "sack" }', 'variant = "sack", growth = "per_packet" }')
    assert ccscope.loads(text).table["flows"][0]["source"]["growth"] == "per_packet"


def test_sack1s_go_back_n_is_off_by_default_written_only_when_set_and_checked():
    assert "after_timeout" not in ccscope.loads(TCP).table["flows"][0]["source"]
    gbn = 'variant = "sack", after_timeout = "go_back_n" }'
    on = ccscope.loads(TCP.replace('variant = "sack" }', gbn))
    assert on.table["flows"][0]["source"]["after_timeout"] == "go_back_n"
    with pytest.raises(ScenarioError) as info:
        ccscope.loads(
            TCP.replace('variant = "sack" }', 'variant = "sack", after_timeout = "all" }')
        )
    assert info.value.path == "flows[0].source.after_timeout"
    assert "\n" not in str(info.value).strip()


def test_sack1s_go_back_n_from_the_command_line(tmp_path):
    assert _run_source(tmp_path, 'after_timeout = "go_back_n"').returncode == 0
    p = _run_source(tmp_path, "after_timeout = 1")
    assert (p.returncode, len(p.stderr.strip().splitlines())) == (2, 1)
    assert "flows[0].source.after_timeout" in p.stderr


def test_sack1s_go_back_n_leaves_senders_without_sack_alone():
    # Reno and NewReno carry no SACK blocks: with Sack1's rule that a duplicate ACK counts only
    # if it SACKs something new they would never fast retransmit. The setting is SACK's only.
    def flows(**extra) -> list:
        sc = ccscope.loads(TCP.replace('variant = "sack" }', 'variant = "reno" }'))
        table = sc.table
        table["topology"]["bottleneck"]["loss"] = {"kind": "bernoulli", "p": 0.02}
        for flow in table["flows"]:
            flow["source"].update(extra)
        return (
            ccscope.run(table).flows[["sent_pkts", "timeouts", "fast_retransmits"]].values.tolist()
        )

    assert flows(after_timeout="go_back_n") == flows()


def _gaimd_cuts(**source) -> list[tuple[float, float]]:
    """(window before, window after) of each congestion-avoidance cut of one GAIMD(0.31, 0.875)
    flow losing every 100th packet (windows near 15 packets), from the state trace."""
    from test_state_trace import callbacks, fat_link

    src = {
        "kind": "tcp",
        "variant": "reno",
        "controller": {"name": "gaimd", "alpha": 0.31, "beta": 0.875},
        "max_window": 1000,
        **source,
    }
    states = callbacks(ccscope.run(fat_link(src, {"kind": "periodic", "every": 100}, 60)))
    return [
        (before["cwnd_pkts"], after["cwnd_pkts"])
        for before, after in zip(states[:-1], states[1:], strict=True)
        if "ssthresh_pkts" in before
        and before["cwnd_pkts"] >= before["ssthresh_pkts"]
        and 1 < after["cwnd_pkts"] < before["cwnd_pkts"]
    ]


def test_cut_from_whole_window_cuts_int_cwnd_as_ns2_without_precision_reduce():
    # ns-2.35 tcp.cc slowdown() with precisionReduce_ false: cwnd_ = (int)(decrease_num_ *
    # window()), window() = (int)cwnd_. integer_window alone floors 0.875 of the fractional
    # window, which keeps one packet more whenever the two straddle an integer.
    whole = _gaimd_cuts(integer_window=True, cut_from_whole_window=True)
    assert len(whole) > 20
    for w, cut in whole:
        assert cut == math.floor(0.875 * math.floor(w)), (w, cut)
    floored = _gaimd_cuts(integer_window=True)
    assert all(cut == math.floor(0.875 * w) for w, cut in floored)
    # Over these windows the two rules part at some cuts (3/8 of them for evenly spread
    # fractions): the setting is not a no-op.
    assert any(math.floor(0.875 * w) != math.floor(0.875 * math.floor(w)) for w, _ in floored)


def test_cut_from_whole_window_is_off_by_default_and_needs_whole_packet_windows():
    assert "cut_from_whole_window" not in ccscope.loads(TCP).table["flows"][0]["source"]
    on = ccscope.loads(
        TCP.replace('variant = "sack" }', 'variant = "sack", cut_from_whole_window = true }')
    )
    assert on.table["flows"][0]["source"]["cut_from_whole_window"] is True
    fractional = 'variant = "sack", integer_window = false, cut_from_whole_window = true }'
    with pytest.raises(ScenarioError, match="needs integer_window = true") as info:
        ccscope.loads(TCP.replace('variant = "sack" }', fractional))
    assert info.value.path == "flows[0].source.cut_from_whole_window"
    with pytest.raises(ScenarioError) as info:
        ccscope.loads(
            TCP.replace('variant = "sack" }', 'variant = "sack", cut_from_whole_window = "yes" }')
        )
    assert info.value.path == "flows[0].source.cut_from_whole_window"


def test_cut_from_whole_window_from_the_command_line(tmp_path):
    import subprocess
    import sys

    def run(value: str) -> subprocess.CompletedProcess:
        path = tmp_path / "whole.toml"
        path.write_text(SYN_TOML.replace("syn = SYN", f"cut_from_whole_window = {value}"))
        cmd = [sys.executable, "-m", "ccscope", "run", str(path), "--out", str(tmp_path / "o")]
        return subprocess.run(
            [*cmd, "-q", "--no-plot"], capture_output=True, text=True, timeout=300
        )

    assert run("true").returncode == 0
    p = run("2")
    assert p.returncode == 2
    assert "flows[0].source.cut_from_whole_window" in p.stderr
    assert len(p.stderr.strip().splitlines()) == 1


LINUX_RECOVERY = ("ack_filled_hole = true", "prr = true")


def test_linux_recovery_settings_are_off_by_default_and_written_only_when_set():
    plain = ccscope.loads(TCP).table["flows"][0]["source"]
    assert not {"ack_filled_hole", "prr"} & set(plain)
    on = TCP.replace('variant = "sack" }', f'variant = "sack", {", ".join(LINUX_RECOVERY)} }}')
    source = ccscope.loads(on).table["flows"][0]["source"]
    assert (source["ack_filled_hole"], source["prr"]) == (True, True)


@pytest.mark.parametrize(
    ("setting", "field", "needle"),
    [
        ('variant = "sack", ack_filled_hole = "yes"', "ack_filled_hole", "true or false"),
        ('variant = "sack", prr = "linux"', "prr", "true or false"),
        ('variant = "newreno", prr = true', "prr", 'needs variant = "sack"'),
        ('variant = "sack", sack_pipe = "counter", prr = true', "prr", 'sack_pipe = "scoreboard"'),
    ],
)
def test_linux_recovery_settings_are_checked(setting, field, needle):
    with pytest.raises(ScenarioError) as info:
        ccscope.loads(TCP.replace('variant = "sack" }', setting + " }"))
    assert info.value.path == f"flows[0].source.{field}"
    assert needle in str(info.value)
    assert "\n" not in str(info.value)


def _one_lossy_flow(source: dict, delay: str, loss: float, duration: str) -> dict:
    """A scenario of one flow of `source` on a 10 Mb/s bottleneck of one-way `delay` with
    `loss` random loss, run for `duration` (seed 1)."""
    return {
        "run": {"duration": duration, "seed": 1},
        "topology": {
            "kind": "dumbbell",
            "bottleneck": {
                "rate": "10Mbps",
                "delay": delay,
                "loss": {"kind": "bernoulli", "p": loss},
            },
        },
        "flows": [{"source": source}],
    }


def _lossy_linux_like(**settings):
    """One SACK flow with delayed ACKs and `settings` on a 10 Mb/s path with 1% random loss,
    20 s: its row of the flows table."""
    source = {"kind": "tcp", "delayed_ack": True, "delack": "40ms", **settings}
    return ccscope.run(_one_lossy_flow(source, "8ms", 0.01, "20s")).flows.iloc[0]


def test_linux_recovery_settings_reach_the_engine():
    # A filled hole acknowledged at once adds an ACK where the delayed-ACK receiver would hold
    # the packet; PRR sends during the recovery's first round trip where RFC 6675 waits: both
    # change the run, and each run repeats itself.
    base = _lossy_linux_like()
    for setting in ({"ack_filled_hole": True}, {"prr": True}):
        row = _lossy_linux_like(**setting)
        again = _lossy_linux_like(**setting)
        assert row.equals(again)
        assert not row.equals(base)


def test_linux_recovery_settings_from_the_command_line(tmp_path):
    ok = _run_source(tmp_path, "delayed_ack = true, ack_filled_hole = true, prr = true")
    assert ok.returncode == 0, ok.stderr
    p = _run_source(tmp_path, 'variant = "reno", delayed_ack = true, prr = true')
    assert (p.returncode, len(p.stderr.strip().splitlines())) == (2, 1)
    assert "flows[0].source.prr" in p.stderr


def test_a_kept_scoreboard_is_written_only_when_set_and_runs_from_the_command_line(tmp_path):
    keep = 'variant = "sack", after_timeout = "keep_sacked" }'
    on = ccscope.loads(TCP.replace('variant = "sack" }', keep))
    assert on.table["flows"][0]["source"]["after_timeout"] == "keep_sacked"
    p = _run_source(tmp_path, 'after_timeout = "keep_sacked"')
    assert p.returncode == 0, p.stderr


def _fixed_window_sack(after_timeout: str, rates: bool = False, **settings):
    """A 2000-packet SACK transfer at a fixed window of 60 through 5% random loss (seed 1),
    its controller asking for delivery rates or not, with the source's `settings`: its flows
    row, and counts over its ACKs and signals: the sums of `delivered_pkts` and of
    `acked_pkts + sacked_pkts`, and the gaps signalled right after an ACK the sender took in
    recovery (a recovery begun on the ACK that ended the last), and the ACKs marked
    `timeout_outstanding` before any timeout and after one."""
    sums = {"delivered": 0, "acked_sacked": 0, "gaps_on_recovery_acks": 0}
    sums |= {"outstanding_before_timeout": 0, "outstanding_after_timeout": 0}
    last = {"in_recovery": False, "timed_out": False}

    class Probe(ccscope.Controller):
        window_pkts = 60.0
        wants_delivery_rate = rates

        def on_ack(self, ack):
            sums["delivered"] += ack.delivered_pkts
            sums["acked_sacked"] += ack.acked_pkts + ack.sacked_pkts
            last["in_recovery"] = ack.in_recovery
            after = "after" if last["timed_out"] else "before"
            sums[f"outstanding_{after}_timeout"] += ack.timeout_outstanding

        def on_loss(self, loss):
            sums["gaps_on_recovery_acks"] += loss.kind == "gap" and last["in_recovery"]
            last["timed_out"] |= loss.kind == "timeout"

    source = {
        "kind": "tcp",
        "variant": "sack",
        "controller": "python:p",
        "transfer": "2000pkts",
        "after_timeout": after_timeout,
        **settings,
    }
    sc = _one_lossy_flow(source, "10ms", 0.05, "60s")
    row = ccscope.run(sc, controllers={"p": Probe()}).flows.iloc[0]
    assert row.acked_pkts == 2000
    return row, sums


def test_a_kept_scoreboard_reaches_the_engine():
    # The window leaves more holes than an ACK's SACK blocks report, and the flow times out:
    # a timeout that keeps the scoreboard resends fewer packets the receiver holds, and the
    # run repeats itself.
    kept, _ = _fixed_window_sack("keep_sacked")
    assert kept.timeouts > 0
    assert kept.equals(_fixed_window_sack("keep_sacked")[0])
    forgot, _ = _fixed_window_sack("skip_sacked")
    assert kept.sent_pkts < forgot.sent_pkts


def test_python_controllers_see_each_delivered_packet_once():
    # The ACKs' delivered counts add up to the transfer exactly when the scoreboard is never
    # forgotten (the timeouts keep it), or when the controller's delivery records count: acked
    # + sacked counts every packet SACKed before the cumulative ACK passed it twice, and a
    # scoreboard a timeout emptied counts what the receiver reports again.
    row, sums = _fixed_window_sack("keep_sacked")
    assert row.timeouts > 0
    # What a timeout found outstanding is acknowledged after it, never before one.
    assert sums["outstanding_before_timeout"] == 0
    assert sums["outstanding_after_timeout"] > 0
    assert sums["delivered"] == 2000
    assert sums["acked_sacked"] > 2000
    assert _fixed_window_sack("skip_sacked")[1]["delivered"] > 2000
    assert _fixed_window_sack("skip_sacked", rates=True)[1]["delivered"] == 2000


@pytest.mark.parametrize(
    ("key", "value", "bad", "allowed"),
    [
        ("lost_retransmissions", "rack", "tlp", "timeout"),
        ("recovery_entry", "lost", "rack", "dupacks"),
    ],
)
def test_sack_recovery_settings_are_written_only_when_set_checked_and_run_from_the_command_line(
    tmp_path, key, value, bad, allowed
):
    assert key not in ccscope.loads(TCP).table["flows"][0]["source"]
    on = ccscope.loads(TCP.replace('variant = "sack" }', f'variant = "sack", {key} = "{value}" }}'))
    assert on.table["flows"][0]["source"][key] == value
    for setting, needle in [
        (f'variant = "newreno", {key} = "{value}"', 'needs variant = "sack"'),
        (f'variant = "sack", {key} = "{bad}"', allowed),
    ]:
        with pytest.raises(ScenarioError) as info:
            ccscope.loads(TCP.replace('variant = "sack" }', setting + " }"))
        assert info.value.path == f"flows[0].source.{key}"
        assert needle in str(info.value)
    assert _run_source(tmp_path, f'{key} = "{value}"').returncode == 0
    p = _run_source(tmp_path, f'variant = "reno", {key} = "{value}"')
    assert (p.returncode, len(p.stderr.strip().splitlines())) == (2, 1)
    assert f"flows[0].source.{key}" in p.stderr


def test_rack_resends_what_is_lost_and_nothing_else():
    # One flow through 5% random loss with a fixed window of 60: a lost retransmission waits
    # for the timer without RACK (RFC 6675), and the recovery after it resends what is in
    # flight; with RACK (RFC 8985 §6.2) the flow never times out, and since a path that keeps
    # order loses a packet only to the loss module, every retransmission replaces a loss.
    timer, _ = _fixed_window_sack("keep_sacked")
    rack, _ = _fixed_window_sack("keep_sacked", lost_retransmissions="rack")
    assert timer.timeouts > 0
    assert rack.timeouts == 0
    assert rack.retransmits == rack.dropped_pkts
    assert rack.duplicate_pkts == 0


def test_a_packet_lost_in_a_recovery_begins_the_next_when_it_ends():
    # At a fixed window of 60 through 5% random loss a recovery often finds packets lost past
    # its recovery point. With recovery_entry = "dupacks" a recovery begins only on a duplicate
    # ACK, which the sender takes outside recovery; with "lost" the ACK that ends a recovery
    # while one of them is outstanding begins the next (RFC 6675 §5 step 2, as Linux): the
    # controller sees that gap right after an ACK taken in recovery. The run repeats itself,
    # and each retransmission still replaces a loss.
    rack = {"lost_retransmissions": "rack"}
    _, dupacks = _fixed_window_sack("keep_sacked", **rack)
    lost_row, lost = _fixed_window_sack("keep_sacked", recovery_entry="lost", **rack)
    assert dupacks["gaps_on_recovery_acks"] == 0
    assert lost["gaps_on_recovery_acks"] > 0
    again, _ = _fixed_window_sack("keep_sacked", recovery_entry="lost", **rack)
    assert lost_row.equals(again)
    assert lost_row.retransmits == lost_row.dropped_pkts


#: ns-2.35's TCP/Linux agent's transport (bench/ns2_compare_figs.py NS2_LINUX_TCP, less the
#: ns-2 start): its FACK rule, its lost-retransmission rule and its kept scoreboard.
TCP_LINUX_AGENT = {
    "kind": "tcp",
    "sack_lost_after": 4,
    "recovery_entry": "lost",
    "lost_retransmissions": "rack",
    "after_timeout": "keep_sacked",
}


def test_every_ack_restarts_the_timer_only_when_asked(tmp_path):
    # ns-2.35's TCP/Linux restarts its timer on every ACK: at 5% random loss the duplicate ACKs
    # that follow a lost retransmission keep it from firing while RACK finds the loss, where
    # RFC 6298 §5.3's timer, restarted by new data only, fires.
    assert "rto_restart" not in ccscope.loads(TCP).table["flows"][0]["source"]
    rows = {
        restart: ccscope.run(
            _one_lossy_flow({**TCP_LINUX_AGENT, "rto_restart": restart}, "50ms", 0.05, "60s")
        ).flows.iloc[0]
        for restart in ("new_ack", "every_ack")
    }
    assert rows["every_ack"].timeouts < rows["new_ack"].timeouts / 2
    assert _sack_source('rto_restart = "every_ack"')["rto_restart"] == "every_ack"
    error = _sack_source_refused('rto_restart = "dupacks"')
    assert error.path == "flows[0].source.rto_restart"
    assert "every_ack" in str(error)
    p = _run_source(tmp_path, 'rto_restart = "sometimes"')
    assert (p.returncode, len(p.stderr.strip().splitlines())) == (2, 1)
    assert "flows[0].source.rto_restart" in p.stderr
    assert _run_source(tmp_path, 'rto_restart = "every_ack"').returncode == 0


def test_cubic_2_6_22_keeps_whole_packets_and_the_kernels_ack_ratio():
    # Linux 2.6.22's CUBIC in its integers: the window in whole packets throughout, and with
    # an ACK per packet the module's delayed-ACK estimate held at 31/16 (tcp_cubic.c
    # bictcp_acked's u32 update from 2·16); each cut in whole packets.
    source = {**TCP_LINUX_AGENT, "controller": {"name": "cubic-2.6.22", "fast_convergence": 0}}
    table = _one_lossy_flow(source, "50ms", 0.01, "30s")
    table["trace"] = {"interval": "100ms", "state": True}
    r = ccscope.run(table)
    assert r.flows.iloc[0].label.startswith("CUBIC-2.6.22(410/1024,819/1024)")
    state = r.trace.state_series(0)
    cwnd = state["cwnd_pkts"].dropna()
    assert (cwnd == cwnd.round()).all() and cwnd.max() > 10
    assert state["ack_ratio"].iloc[-1] == 31 / 16
    # Every cut: ssthresh = ⌊W_max·819/1024⌋ (W_max the window at the loss, fast convergence
    # off), a packet or more below β·W_max at these windows.
    held = state[["ssthresh_pkts", "w_max_pkts"]].ffill().dropna()
    cuts = held[(held.ssthresh_pkts.diff() != 0) & (held.w_max_pkts > 0)]
    assert len(cuts) > 10
    assert (cuts.ssthresh_pkts == (cuts.w_max_pkts * 819 // 1024).clip(lower=2)).all()


def test_cubic_2_6_22_runs_only_per_ack():
    table = {
        "run": {"engine": "round", "steps": 10},
        "link": {"capacity_pkts": 10},
        "flows": [{"controller": "cubic-2.6.22"}],
    }
    with pytest.raises(ScenarioError) as info:
        ccscope.run(table)
    assert info.value.path == "flows[0].controller"
    assert "packet and udp engines" in str(info.value)
