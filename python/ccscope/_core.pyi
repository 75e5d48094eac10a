"""Typed stubs of ``ccscope._core``, the Rust extension (crates/ccscope-py).

Scenario tables cross as JSON text of the parsed TOML; the core validates them (the schema is
``ccscope-core``'s ``scenario`` module) and raises ``ccscope.errors.ScenarioError`` or
``ccscope.errors.ControllerError`` naming the path as written, the value and what is allowed.
``CoreError`` is an internal failure of the engine (a bug).
"""

from collections.abc import Callable
from typing import Any

__version__: str
#: The model version: the same scenario, seed and model version give the same results.
MODEL_VERSION: int

class CoreError(ValueError): ...

#: Python controller objects by flow index (counts expanded): (display name, where the scenario
#: names the controller, the flow's own object: a ccscope.Controller, or a WindowController-like
#: or RateController-like object).
PythonControllers = dict[int, tuple[str, str, Any]]

# --- what a ccscope.Controller's hooks receive (read-only; times in seconds) ------------------

class Delivery:
    rate_bps: float
    delivered_pkts: int
    delivered_bytes: int
    interval_s: float
    app_limited: bool
    total_delivered_pkts: int
    tx_in_flight_pkts: int
    lost_pkts: int

class Ack:
    now_s: float
    acked_pkts: int
    acked_bytes: int
    sacked_pkts: int
    delivered_pkts: int
    growth_pkts: int
    rtt_s: float | None
    srtt_s: float | None
    min_rtt_s: float | None
    in_flight_pkts: int
    in_flight_bytes: int
    ce_pkts: int
    ce_bytes: int
    ece: bool
    in_recovery: bool
    timeout_outstanding: bool
    rwnd_limited: bool
    delivery: Delivery | None

class Loss:
    now_s: float
    kind: str
    sent_at_s: float
    lost_pkts: float

class Report:
    now_s: float
    rtt_s: float | None
    one_way_delay_s: float | None
    recv_rate_bps: float
    loss_event_rate: float
    lost_pkts: float
    received_pkts: float
    loss_sent_at_s: float | None
    new_loss_event: bool
    rate_bps: float | None
    capacity_bps: float | None

class PacketStatus:
    seq: int
    size_bytes: int
    sent_s: float
    arrived_s: float | None
    ect: bool
    ce: bool

class Feedback:
    now_s: float
    report_s: float
    format: str
    rtt_s: float | None
    in_flight_bytes: int
    queued_bytes: int
    size_bytes: int
    packets: list[PacketStatus]

class Round:
    now_s: float
    interval_s: float
    congested: bool
    loss_fraction: float
    capacity_bps: float | None
    base_rtt_s: float
    queueing_delay_s: float

# --- scenarios -----------------------------------------------------------------------------------

def read_scenario(table_json: str) -> tuple[str, str, list[str]]:
    """Validates a scenario table of either engine; returns (engine, normalized table as
    JSON text, every default filled in, units as written; notes on old spellings read)."""

def quantity(text: str) -> tuple[str, float] | None:
    """A value written with its unit, as scenario values are read: ("time", seconds),
    ("rate", bits/s) or ("size", bytes); None for text that is none of them."""

def scenario_schema(engine: str) -> str:
    """The JSON Schema of "packet" or "round" scenario files, as JSON text."""

def validate_packet(table_json: str, force: bool = False) -> None:
    """Checks a packet-model table as far as running it would (what it costs unless `force`,
    controllers, routes)."""

def validate_round(table_json: str, force: bool = False) -> None:
    """Checks a round-model table as far as running it would (what it costs unless `force`,
    controllers)."""

def scenario_cost(table_json: str) -> tuple[float, str, float, str, float]:
    """What running a table of either engine would cost: (events or flow-steps, which of the
    two, bytes of memory, a short description, wall seconds of a real-time run or 0)."""

def build_info() -> tuple[str, str, str]:
    """(version, commit of the source tree built, "true"/"false"/"unknown": uncommitted
    changes in it at build time)."""

# --- runs ----------------------------------------------------------------------------------------

def run_packet(
    table_json: str,
    python_controllers: PythonControllers | None = None,
    progress: Callable[[float, float], object] | None = None,
    force: bool = False,
    pcap_dir: str | None = None,
) -> dict[str, Any]:
    """Runs a packet-model table: per-flow and per-link counters, traces as numpy arrays.
    ``progress(done_s, total_s)`` is called as it goes; Ctrl-C stops it early with
    ``partial`` set, and so does an error of a Python controller, which is under ``error``.
    ``force`` runs it even beyond what its estimated cost allows. The captures ``[trace]
    pcap`` asks for go into the folder ``pcap_dir`` (under ``pcap``: link, path, packets)."""

def run_round(
    table_json: str,
    python_controllers: PythonControllers | None = None,
    progress: Callable[[float, float], object] | None = None,
    force: bool = False,
) -> dict[str, Any]:
    """Runs a round-model table: totals, per-flow columns and series as numpy arrays.
    ``progress(done_steps, total_steps)`` is called as it goes; Ctrl-C stops it early with
    ``partial`` set, and so does an error of a Python controller, which is under ``error``.
    ``force`` runs it even beyond what its estimated cost allows."""

# --- the controller catalogue --------------------------------------------------------------------

def controllers_json() -> str:
    """Every catalogued controller (window and rate families) with its parameters, as JSON."""

def controller_name(family: str, name: str, params: list[tuple[str, float]]) -> str:
    """The paper name of a catalogued controller of `family` ("window" or "rate")."""

def runs_in_rounds(name: str, params: list[tuple[str, float]]) -> bool:
    """Whether a catalogued controller runs in the round model (False: it needs per-ACK
    feedback, which only the packet and udp engines give)."""

# --- closed forms the core shares with ccscope.theory --------------------------------------------

def binomial_form(name: str, params: list[tuple[str, float]]) -> dict[str, Any] | None:
    """The binomial (k, l, alpha, beta_removed, from_window_pkts, paper_name) a catalogued
    window controller runs; None for history-based controls."""

def window_round_steps(
    name: str, params: list[tuple[str, float]], windows_pkts: list[float]
) -> tuple[list[float], list[float]]:
    """The windows after one uncongested and after one congested round from each window."""

def tfrc_throughput_bps(
    p: float, rtt_s: float, t_rto_s: float, packet_bytes: int, pftk_clip: bool = False
) -> float:
    """TFRC's throughput equation (RFC 5348 §3.1, b = 1), bits/s."""

def friendly_alpha_jin(beta_removed: float) -> float:
    """3β/(2 − β) (Loguinov & Radha (5))."""

def friendly_alpha_yang(beta_kept: float) -> float:
    """4(1 − β²)/3 (Yang & Lam)."""

def friendly_alpha_cai(beta_kept: float) -> float:
    """3(1 − β)/(1 + β) (Cai et al. (13))."""
