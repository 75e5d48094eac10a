"""What the rate transport tells its controller beyond reports: a no-feedback expiry that
finds the sender idle (RFC 5348 §4.4's case), handed to Python controllers through their own
hook."""

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


class AnyExpiry(ccscope.Controller):
    """Overrides only on_no_feedback: it must get every expiry, idle ones included."""

    feedback_timeout_s = TIMEOUT_S

    def __init__(self):
        self.pacing_rate_bps = 500e3
        self.busy, self.idle = [], []

    def on_report(self, report):
        pass

    def on_no_feedback(self, now_s):
        self.busy.append(now_s)


class RateExpiries(ccscope.RateController):
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

    def on_no_feedback_idle(self, now_s):
        self.idle.append(now_s)


class RateAnyExpiry(RateExpiries):
    on_no_feedback_idle = ccscope.RateController.on_no_feedback_idle


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
