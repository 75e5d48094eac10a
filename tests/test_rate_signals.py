"""What the rate transport tells its controller beyond reports: a no-feedback expiry that
finds the sender idle (RFC 5348 §4.4's case), handed to Python controllers through their own
hook, and CE marks on a flow with `ecn = true` (RFC 3168 §5: answered as losses)."""

import pytest

import ccscope

PAUSE = (2.0, 5.0)
TIMEOUT_S = 0.3

# One rate flow of RFC 8593's encoder, paused from 2 s to 5 s; the Python controller paces at a
# fixed 500 kb/s and hears per-RTT reports.
PAUSED = f"""
[run]
duration = "7s"
seed = 1

[topology]
kind = "dumbbell"
bottleneck = {{ rate = "2Mbps", delay = "20ms", queue = {{ kind = "droptail", limit = 50 }} }}

[[flows]]
source = {{ kind = "rate", controller = "python:mine", feedback = "per-rtt", packet_size = "1200B", app = {{ kind = "encoder", pause = "{PAUSE[0]:g}s", resume = "{PAUSE[1]:g}s" }} }}
"""


class Expiries(ccscope.Controller):
    """Records each expiry as busy or idle."""

    feedback_timeout_s = TIMEOUT_S

    def __init__(self):
        self.pacing_rate_bps = 500e3
        self.busy, self.idle = [], []

    def on_report(self, report):
        pass

    def on_no_feedback(self, now_s):
        self.busy.append(now_s)

    def on_no_feedback_idle(self, now_s):
        self.idle.append(now_s)


class AnyExpiry(Expiries):
    """Does not override on_no_feedback_idle: it must get every expiry, idle ones included."""

    on_no_feedback_idle = ccscope.Controller.on_no_feedback_idle


class DuckAnyExpiry:
    """A rate controller that is no RateController and has no idle hook."""

    def __init__(self):
        self.busy, self.idle = [], []

    def rate_bps(self):
        return 500e3

    def on_report(self, report):
        pass

    def feedback_timeout_s(self):
        return TIMEOUT_S

    def on_no_feedback(self, now_s):
        self.busy.append(now_s)


class RateExpiries(DuckAnyExpiry, ccscope.RateController):
    def on_no_feedback_idle(self, now_s):
        self.idle.append(now_s)


class RateAnyExpiry(RateExpiries):
    on_no_feedback_idle = ccscope.RateController.on_no_feedback_idle


def expiries(factory):
    r = ccscope.run(ccscope.loads(PAUSED), controllers={"mine": factory})
    return r.controllers[0]


@pytest.mark.parametrize(
    "split, merged",
    [(Expiries, AnyExpiry), (RateExpiries, RateAnyExpiry), (RateExpiries, DuckAnyExpiry)],
)
def test_an_idle_expiry_has_its_own_hook_and_falls_back_to_any_expiry(split, merged):
    c = expiries(split)
    # Idle expiries come only in the pause, once the sender's queue has drained: the first a
    # timeout after the last report, then one a timeout after another (the timer is re-armed
    # at each expiry) until the resumption, whose first report stops them.
    assert c.idle and PAUSE[0] + TIMEOUT_S <= c.idle[0], c.idle
    gaps = [b - a for a, b in zip(c.idle, c.idle[1:], strict=False)]
    assert all(abs(g - TIMEOUT_S) < 1e-6 for g in gaps), c.idle
    assert PAUSE[1] - TIMEOUT_S < c.idle[-1] <= PAUSE[1] + TIMEOUT_S, c.idle
    assert not any(c.idle[0] <= t <= c.idle[-1] for t in c.busy), c.busy
    # Without the hook the same run hands the same expiries to on_no_feedback.
    m = expiries(merged)
    assert m.idle == [] and m.busy == sorted(c.busy + c.idle)


# A rate flow through a step marker (CE above 5 packets queued, DropTail at 100): with `ecn`
# its packets are ECN-capable and the marks stand in for drops.
MARKED = """
[run]
duration = "20s"
warmup = "0s"
seed = 1

[topology]
kind = "dumbbell"
bottleneck = { rate = "2Mbps", delay = "20ms", queue = { kind = "step", threshold = "5pkts", limit = "100pkts" } }

[[flows]]
source = { kind = "rate", controller = "CONTROLLER", packet_size = "1000B" }
ecn = ECN
"""


def marked(controller: str, ecn: bool):
    text = MARKED.replace("CONTROLLER", controller).replace("ECN", str(ecn).lower())
    return ccscope.run(ccscope.loads(text))


@pytest.mark.parametrize("controller", ["tfrc", "tfrc-ns2", "rap", "tear"])
def test_a_rate_flow_with_ecn_is_marked_not_dropped(controller):
    plain, ecn = marked(controller, False), marked(controller, True)
    # Not ECN-capable: the step queue never marks, and the flow fills it to its limit (in slow
    # start at least: the whole run is measured).
    assert plain.bottlenecks.marks[0] == 0 and plain.bottlenecks.drops[0] > 0
    # ECN-capable: marked above 5 packets, and the controller, told of each mark as of a loss,
    # keeps the queue below the 100 packets that would drop, slow start included.
    assert ecn.bottlenecks.marks[0] > 0 and ecn.flows.marked_pkts[0] > 0
    assert ecn.bottlenecks.drops[0] == 0 and ecn.flows.dropped_pkts[0] == 0
    assert ecn.bottlenecks.max_queue_pkts[0] < 100
    assert ecn.flows.mean_delay_s[0] < plain.flows.mean_delay_s[0]


class CountsLosses(ccscope.RateController):
    """Halves on a reported loss, else +10 kb/s a report; counts the losses reported."""

    def __init__(self):
        self.rate, self.lost = 300e3, 0.0

    def rate_bps(self):
        return self.rate

    def on_report(self, r):
        self.lost += r["lost_pkts"]
        self.rate = max(self.rate / 2, 8e3) if r["lost_pkts"] else min(self.rate + 10e3, 1e7)


def test_a_python_rate_controller_hears_marks_as_losses():
    text = MARKED.replace(
        'controller = "CONTROLLER"', 'controller = "python:mine", feedback = "per-rtt"'
    )
    r = ccscope.run(ccscope.loads(text.replace("ECN", "true")), controllers={"mine": CountsLosses})
    marks = r.bottlenecks.marks[0]
    assert r.bottlenecks.drops[0] == 0 and marks > 0
    # Every loss reported was a mark; marks of the last report interval may go unreported: at
    # most 2 Mb/s over an RTT and a report interval (about 100 ms) of 1000-byte packets, 25.
    assert marks - 25 <= r.controllers[0].lost <= marks
