//! BBR version 3 as draft-ietf-ccwg-bbr-06 specifies it: BBR's model of the path (the maximum
//! delivery rate over the last two bandwidth-probing cycles, the minimum RTT over 10 s) bounded
//! by what loss says: a long-term bound on what may be in flight (`inflight_longterm`, set
//! when a bandwidth probe loses more than 2% of what it had in flight) and short-term bounds
//! on the rate and the inflight (`bw_shortterm`, `inflight_shortterm`, cut by β = 0.7 each
//! round with loss). ProbeBW cycles through DOWN (pacing gain 0.9, until the queue is drained
//! and 15% of `inflight_longterm` is left free), CRUISE (1.0), REFILL (1.0 for a round) and UP
//! (1.25, window gain 2.25), probing every 2-3 s or after min(BDP, 63) rounds, whichever comes
//! first; ProbeRTT halves the window for 200 ms and a round every 5 s.
//!
//! What is modelled, by section of the -06 draft: §5.2 the per-ACK, per-loss and spurious-loss
//! steps; §5.3.1 Startup (pacing gain 4 ln 2, window gain 2) with both exits, the bandwidth
//! plateau and high loss (in recovery for a round, more than 2% lost in it, at least six loss
//! events); §5.3.2 Drain (0.5, at most three rounds); §5.3.3 ProbeBW's four states, their
//! exits, precautionary probing and the dual time scale; §5.3.4 ProbeRTT; §5.4 restarting from
//! idle; §5.5 the model: packet-timed rounds, the max_bw filter over ProbeBW cycles, min_rtt,
//! the offload budget (3 send quanta), extra_acked, the loss response while probing
//! (HandleLostPacket, InflightAtLoss) and while not (the short-term model), the undo of a
//! spurious recovery; §5.6 the pacing rate with its 1% margin, the send quantum and the window
//! (max_inflight, its growth per ACK, the bounds of ProbeRTT and of the model, cwnd = inflight
//! + 1 at a timeout, the window before recovery restored after it).
//!
//! Choices the draft leaves open: a loss event in Startup's count is an ACK that marks packets
//! lost (the draft counts discontiguous lost ranges); the connection counts as having selective
//! ACKs once an ACK has SACKed a packet; ECN (§3.7 asks only that CE marks count as congestion)
//! counts as loss in a round where more than `ecn_thresh` of the packets delivered were marked
//! (Linux `tcp_bbr.c`'s `bbr_ecn_thresh`, 50%). The model is in packets, as §2 allows: rates in
//! packets/s, volumes in packets, the pacing rate converted to bits/s with the largest packet
//! acknowledged so far. Rounds and samples come from the transport's delivery-rate estimator
//! (draft-cheng-iccrg-delivery-rate-estimation): an ACK without a sample advances no round.

use super::minmax::WindowedFilter;
use super::{acked_packet_bytes, clamp_window, decimal, pace_bps};
use crate::control::{AckSample, Controller, LossEvent, LossKind, LostPacket, WindowConfig};
use crate::rng::Rng;
use crate::time::SimTime;
use rand::Rng as _;

/// §2.5 BBR.StartupPacingGain: 4 ln 2, the smallest that doubles the rate each round.
pub const STARTUP_PACING_GAIN: f64 = 4.0 * std::f64::consts::LN_2;
/// §2.5 BBR.DrainPacingGain.
const DRAIN_PACING_GAIN: f64 = 0.5;
/// §2.6 BBR.DefaultCwndGain.
const DEFAULT_CWND_GAIN: f64 = 2.0;
/// §5.3.3.1, §5.3.3.5: ProbeBW_DOWN's and ProbeBW_UP's pacing gains, UP's window gain.
const DOWN_PACING_GAIN: f64 = 0.9;
const UP_PACING_GAIN: f64 = 1.25;
const UP_CWND_GAIN: f64 = 2.25;
/// §2.5 BBR.PacingMarginPercent.
const PACING_MARGIN_PERCENT: f64 = 1.0;
/// §2.8 BBR.MinPipeCwnd (packets).
pub const MIN_PIPE_CWND: f64 = 4.0;
/// §2.11 BBR.MaxBwFilterLen (ProbeBW cycles); §2.12 BBR.ExtraAckedFilterLen (rounds).
const MAX_BW_FILTER_LEN: u64 = 2;
const EXTRA_ACKED_FILTER_LEN: u64 = 10;
/// §5.3.1.2: growth that counts as the bandwidth still growing, and the rounds without it.
const FULL_BW_GROWTH: f64 = 1.25;
const FULL_BW_COUNT: u32 = 3;
/// §5.3.1.3 BBRStartupFullLossCnt.
const STARTUP_FULL_LOSS_CNT: u32 = 6;
/// §5.3.2: rounds after which Drain ends whatever is in flight.
const DRAIN_MAX_ROUNDS: u64 = 3;
/// §2.16: BBR.ProbeRTTCwndGain, BBR.ProbeRTTDuration, BBR.ProbeRTTInterval,
/// BBR.MinRTTFilterLen.
const PROBE_RTT_CWND_GAIN: f64 = 0.5;
const PROBE_RTT_DURATION: SimTime = SimTime::from_ms(200);
const PROBE_RTT_INTERVAL: SimTime = SimTime::from_ms(5_000);
const MIN_RTT_FILTER_LEN: SimTime = SimTime::from_ms(10_000);
/// §5.3.3.8: the Reno-coexistence bound on rounds between probes.
const MAX_RENO_ROUNDS: f64 = 63.0;
/// §5.3.3.9 RaiseInflightLongtermSlope: the most rounds the growth of `inflight_longterm`
/// doubles for.
const MAX_PROBE_UP_ROUNDS: u32 = 30;

/// BBR v3's parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bbr3Params {
    /// §2.8 BBR.LossThresh: the largest loss rate per round a probe tolerates, in (0, 1).
    pub loss_thresh: f64,
    /// §2.8 BBR.Beta: the short-term bounds' cut per lossy round, in (0, 1).
    pub beta: f64,
    /// §2.8 BBR.Headroom: the share of `inflight_longterm` left free, in [0, 1).
    pub headroom: f64,
    /// The share of a round's delivered packets carrying CE that counts as loss, in (0, 1].
    pub ecn_thresh: f64,
}

impl Default for Bbr3Params {
    /// The draft's constants (§2.8) and Linux's ECN threshold.
    fn default() -> Self {
        Bbr3Params {
            loss_thresh: 0.02,
            beta: 0.7,
            headroom: 0.15,
            ecn_thresh: 0.5,
        }
    }
}

/// §5.1.1: BBR v3's states.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Mode {
    Startup,
    Drain,
    Down,
    Cruise,
    Refill,
    Up,
    ProbeRtt,
}

impl Mode {
    fn is_probe_bw(self) -> bool {
        matches!(self, Mode::Down | Mode::Cruise | Mode::Refill | Mode::Up)
    }

    /// Whether the state machine of §5.1.1 goes from `self` to `to`, with the returns of
    /// §5.5.11.2's undo (to Startup, or to REFILL from a probe cut short by a loss).
    fn leads_to(self, to: Mode) -> bool {
        use Mode::*;
        self == to
            || to == ProbeRtt
            || matches!(
                (self, to),
                (Startup, Drain)
                    | (Drain, Down)
                    | (Down, Cruise | Refill)
                    | (Cruise, Refill)
                    | (Refill, Up)
                    | (Up, Down)
                    | (ProbeRtt, Down | Startup)
            )
            || (to == Startup && (self == Drain || self.is_probe_bw()))
            || (to == Refill && self.is_probe_bw())
    }
}

/// §2.14 BBR.ack_phase.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum AckPhase {
    Init,
    Refilling,
    ProbeStarting,
    ProbeFeedback,
    ProbeStopping,
}

/// What §5.5.11.1 saves when a loss recovery begins.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Undo {
    state: Option<Mode>,
    bw_shortterm: f64,
    inflight_shortterm: f64,
    inflight_longterm: f64,
}

/// BBR v3 (draft-ietf-ccwg-bbr-06).
#[derive(Clone, Debug)]
pub struct Bbr3 {
    p: Bbr3Params,
    mode: Mode,
    rng: Rng,
    pacing_gain: f64,
    cwnd_gain: f64,
    /// The congestion window (packets), finite, in [1, `MAX_WINDOW_PKTS`]; C.InitialCwnd.
    cwnd: f64,
    initial_cwnd: f64,
    /// C.pacing_rate (packets/s), once set; C.send_quantum (packets).
    pacing_rate: Option<f64>,
    send_quantum: f64,
    /// The largest packet acknowledged so far (bytes).
    smss_bytes: u64,
    /// C.delivered as of the last sample.
    delivered: u64,
    /// §5.5.1 rounds.
    round_count: u64,
    round_start: bool,
    next_round_delivered: u64,
    /// §5.5.2-§5.5.6: BBR.max_bw's filter over cycles (packets/s) and its clock.
    max_bw: WindowedFilter,
    cycle_count: u64,
    /// §2.9.1 BBR.bw_shortterm, BBR.bw (packets/s).
    bw_shortterm: f64,
    bw: f64,
    /// §2.9.2 BBR.min_rtt and its stamp; §2.16.2 the ProbeRTT min delay and its stamp.
    min_rtt: Option<SimTime>,
    min_rtt_stamp: SimTime,
    probe_rtt_min_delay: Option<SimTime>,
    probe_rtt_min_stamp: SimTime,
    probe_rtt_expired: bool,
    /// §2.9.2 BBR.max_inflight, BBR.inflight_longterm, BBR.inflight_shortterm (packets).
    max_inflight: f64,
    inflight_longterm: f64,
    inflight_shortterm: f64,
    /// §2.10, §5.5.10.3: the latest round's delivery signals and its loss round.
    bw_latest: f64,
    inflight_latest: f64,
    loss_round_delivered: u64,
    loss_round_start: bool,
    is_loss_in_round: bool,
    /// §5.5.9 BBR.extra_acked and its sampling.
    extra_acked: WindowedFilter,
    extra_acked_interval_start: SimTime,
    extra_acked_delivered: f64,
    /// §2.13 Startup's pipe estimator.
    full_bw_reached: bool,
    full_bw_now: bool,
    full_bw: f64,
    full_bw_count: u32,
    drain_start_round: u64,
    /// §2.14 ProbeBW's state.
    ack_phase: AckPhase,
    is_bw_probe_sample: bool,
    bw_probe_up_acked: f64,
    probe_up_acked_per_inc: f64,
    bw_probe_up_rounds: u32,
    rounds_since_probe_up: u64,
    bw_probe_wait: SimTime,
    cycle_stamp: SimTime,
    prev_probe_too_high: bool,
    prev_probe_precautionary: bool,
    /// §2.15 the undo state.
    undo: Undo,
    /// §2.16 ProbeRTT's schedule.
    probe_rtt_done_stamp: Option<SimTime>,
    probe_rtt_round_done: bool,
    mark_app_limited: bool,
    idle_restart: bool,
    /// §5.6.4.4 BBR.prior_cwnd.
    prior_cwnd: f64,
    /// Recovery as the transport reports it: fast recovery at the last ACK, the round it
    /// began, and after a timeout the delivered count that ends RTO recovery.
    in_fast_recovery: bool,
    recovery_round: u64,
    rto_recovery_until: Option<u64>,
    /// C.is_cwnd_limited: the window was full in this round or the last.
    cwnd_limited_now: bool,
    cwnd_limited_last: bool,
    /// Startup's loss accounting for this loss round: packets lost and delivered, loss events
    /// (ACKs that marked losses), and CE-marked packets for the ECN threshold.
    lost_in_round: u64,
    delivered_in_round: u64,
    loss_events_in_round: u32,
    ce_in_round: u64,
    /// Packets marked lost since the last ACK.
    lost_since_ack: u64,
    /// C.has_selective_acks, as far as the ACKs have shown.
    has_selective_acks: bool,
}

impl Bbr3 {
    /// BBR v3 with `p`, starting as `config` says (its initial window is C.InitialCwnd), drawing
    /// from `rng`. Trusts its arguments: the catalogue checks them.
    pub fn new(p: Bbr3Params, config: WindowConfig, rng: Rng) -> Self {
        let w = config.initial_window;
        let mut b = Bbr3 {
            p,
            mode: Mode::Startup,
            rng,
            pacing_gain: STARTUP_PACING_GAIN,
            cwnd_gain: DEFAULT_CWND_GAIN,
            cwnd: w,
            initial_cwnd: w,
            pacing_rate: None,
            send_quantum: 2.0,
            smss_bytes: 0,
            delivered: 0,
            round_count: 0,
            round_start: false,
            next_round_delivered: 0,
            max_bw: WindowedFilter::max(0, 0.0),
            cycle_count: 0,
            bw_shortterm: f64::INFINITY,
            bw: 0.0,
            min_rtt: None,
            min_rtt_stamp: SimTime::ZERO,
            probe_rtt_min_delay: None,
            probe_rtt_min_stamp: SimTime::ZERO,
            probe_rtt_expired: false,
            max_inflight: w,
            inflight_longterm: f64::INFINITY,
            inflight_shortterm: f64::INFINITY,
            bw_latest: 0.0,
            inflight_latest: 0.0,
            loss_round_delivered: 0,
            loss_round_start: false,
            is_loss_in_round: false,
            extra_acked: WindowedFilter::max(0, 0.0),
            extra_acked_interval_start: SimTime::ZERO,
            extra_acked_delivered: 0.0,
            full_bw_reached: false,
            full_bw_now: false,
            full_bw: 0.0,
            full_bw_count: 0,
            drain_start_round: 0,
            ack_phase: AckPhase::Init,
            is_bw_probe_sample: false,
            bw_probe_up_acked: 0.0,
            probe_up_acked_per_inc: f64::INFINITY,
            bw_probe_up_rounds: 0,
            rounds_since_probe_up: 0,
            bw_probe_wait: SimTime::ZERO,
            cycle_stamp: SimTime::ZERO,
            prev_probe_too_high: false,
            prev_probe_precautionary: false,
            undo: Undo {
                state: None,
                bw_shortterm: 0.0,
                inflight_shortterm: 0.0,
                inflight_longterm: 0.0,
            },
            probe_rtt_done_stamp: None,
            probe_rtt_round_done: false,
            mark_app_limited: false,
            idle_restart: false,
            prior_cwnd: 0.0,
            in_fast_recovery: false,
            recovery_round: 0,
            rto_recovery_until: None,
            cwnd_limited_now: false,
            cwnd_limited_last: false,
            lost_in_round: 0,
            delivered_in_round: 0,
            loss_events_in_round: 0,
            ce_in_round: 0,
            lost_since_ack: 0,
            has_selective_acks: false,
        };
        b.enter_startup();
        b
    }

    /// Moves the state machine to `to` with its gains (§5.6.1's table).
    fn set_mode(&mut self, to: Mode) {
        debug_assert!(self.mode.leads_to(to), "{:?} -> {to:?}", self.mode);
        self.mode = to;
        (self.pacing_gain, self.cwnd_gain) = match to {
            Mode::Startup => (STARTUP_PACING_GAIN, DEFAULT_CWND_GAIN),
            Mode::Drain => (DRAIN_PACING_GAIN, DEFAULT_CWND_GAIN),
            Mode::Down => (DOWN_PACING_GAIN, DEFAULT_CWND_GAIN),
            Mode::Cruise | Mode::Refill => (1.0, DEFAULT_CWND_GAIN),
            Mode::Up => (UP_PACING_GAIN, UP_CWND_GAIN),
            Mode::ProbeRtt => (1.0, PROBE_RTT_CWND_GAIN),
        };
    }

    /// §5.3.1.1 EnterStartup.
    fn enter_startup(&mut self) {
        self.set_mode(Mode::Startup);
    }

    /// §5.3.2 EnterDrain.
    fn enter_drain(&mut self) {
        self.set_mode(Mode::Drain);
        self.drain_start_round = self.round_count;
    }

    /// §5.5.1 StartRound.
    fn start_round(&mut self) {
        self.next_round_delivered = self.delivered;
    }

    /// §5.3.1.2 ResetFullBW.
    fn reset_full_bw(&mut self) {
        self.full_bw = 0.0;
        self.full_bw_count = 0;
        self.full_bw_now = false;
    }

    /// §5.5.10.3 ResetCongestionSignals.
    fn reset_congestion_signals(&mut self) {
        self.is_loss_in_round = false;
        self.bw_latest = 0.0;
        self.inflight_latest = 0.0;
    }

    /// §5.5.10.3 ResetShortTermModel.
    fn reset_short_term_model(&mut self) {
        self.bw_shortterm = f64::INFINITY;
        self.inflight_shortterm = f64::INFINITY;
    }

    /// §5.6.4.2 BDPMultiple(bw, gain) (packets): C.InitialCwnd before an RTT sample.
    fn bdp_multiple(&self, bw: f64, gain: f64) -> f64 {
        match self.min_rtt {
            None => self.initial_cwnd,
            Some(min_rtt) => gain * bw * min_rtt.secs(),
        }
    }

    /// BBR.bdp (packets).
    fn bdp(&self) -> f64 {
        self.bdp_multiple(self.bw, 1.0)
    }

    /// §5.6.4.2 QuantizationBudget: at least the offload budget (§5.5.8.1: 3 send quanta) and
    /// BBR.MinPipeCwnd, plus 2 packets in ProbeBW_UP.
    fn quantization_budget(&self, inflight_cap: f64) -> f64 {
        let cap = inflight_cap.max(3.0 * self.send_quantum).max(MIN_PIPE_CWND);
        if self.mode == Mode::Up {
            cap + 2.0
        } else {
            cap
        }
    }

    /// §5.6.4.2 Inflight(bw, gain).
    fn inflight(&self, bw: f64, gain: f64) -> f64 {
        self.quantization_budget(self.bdp_multiple(bw, gain))
    }

    /// §5.3.3.8 TargetInflight.
    fn target_inflight(&self) -> f64 {
        self.bdp().min(self.cwnd)
    }

    /// §5.3.3.9 InflightWithHeadroom.
    fn inflight_with_headroom(&self) -> f64 {
        if self.inflight_longterm.is_infinite() {
            return f64::INFINITY;
        }
        let headroom = (self.p.headroom * self.inflight_longterm).max(1.0);
        (self.inflight_longterm - headroom).max(MIN_PIPE_CWND)
    }

    /// §5.6.4.5 ProbeRTTCwnd.
    fn probe_rtt_cwnd(&self) -> f64 {
        self.bdp_multiple(self.bw, PROBE_RTT_CWND_GAIN)
            .max(MIN_PIPE_CWND)
    }

    fn is_probing_bw(&self) -> bool {
        matches!(self.mode, Mode::Startup | Mode::Refill | Mode::Up)
    }

    fn in_loss_recovery(&self) -> bool {
        self.in_fast_recovery || self.rto_recovery_until.is_some()
    }

    /// §5.6.4.4 SaveCwnd and RestoreCwnd.
    fn save_cwnd(&mut self) {
        self.prior_cwnd = if !self.in_loss_recovery() && self.mode != Mode::ProbeRtt {
            self.cwnd
        } else {
            self.prior_cwnd.max(self.cwnd)
        };
    }

    fn restore_cwnd(&mut self) {
        self.cwnd = self.cwnd.max(self.prior_cwnd);
    }

    /// §5.5.11.1 SaveStateUponLoss.
    fn save_state_upon_loss(&mut self) {
        self.save_cwnd();
        self.undo = Undo {
            state: None,
            bw_shortterm: self.bw_shortterm,
            inflight_shortterm: self.inflight_shortterm,
            inflight_longterm: self.inflight_longterm,
        };
    }

    /// §5.5.10.2 NoteLoss.
    fn note_loss(&mut self) {
        if !self.is_loss_in_round {
            self.loss_round_delivered = self.delivered;
            self.save_state_upon_loss();
        }
        self.is_loss_in_round = true;
    }

    /// §5.5.10.2 IsInflightTooHigh, for `lost` packets lost since a packet left with
    /// `tx_in_flight` in flight.
    fn is_inflight_too_high(&self, lost: u64, tx_in_flight: u64) -> bool {
        lost as f64 > tx_in_flight as f64 * self.p.loss_thresh
            || (lost > 0 && !self.has_selective_acks)
    }

    /// §5.5.10.2 HandleInflightTooHigh.
    fn handle_inflight_too_high(&mut self, now: SimTime, tx_in_flight: f64, app_limited: bool) {
        self.prev_probe_too_high = true;
        self.is_bw_probe_sample = false;
        if !app_limited {
            self.inflight_longterm = tx_in_flight.max(self.target_inflight() * self.p.beta);
        }
        if self.mode == Mode::Up {
            self.undo.state = Some(Mode::Up);
            self.start_probe_bw_down(now);
        }
    }

    /// §5.3.3.8 PickProbeWait: 0 or 1 round, 2-3 s.
    fn pick_probe_wait(&mut self) {
        self.rounds_since_probe_up = self.rng.gen_range(0..=1);
        self.bw_probe_wait = SimTime::from_secs_f64(2.0 + self.rng.gen::<f64>());
    }

    /// §5.3.3.9 EnterProbeBW and the starts of its four states.
    fn start_probe_bw_down(&mut self, now: SimTime) {
        self.reset_congestion_signals();
        self.probe_up_acked_per_inc = f64::INFINITY;
        self.pick_probe_wait();
        self.cycle_stamp = now;
        self.ack_phase = AckPhase::ProbeStopping;
        self.start_round();
        self.set_mode(Mode::Down);
    }

    fn start_probe_bw_cruise(&mut self) {
        self.set_mode(Mode::Cruise);
    }

    fn start_probe_bw_refill(&mut self) {
        self.reset_short_term_model();
        self.bw_probe_up_rounds = 0;
        self.bw_probe_up_acked = 0.0;
        self.prev_probe_precautionary = false;
        self.ack_phase = AckPhase::Refilling;
        self.start_round();
        self.set_mode(Mode::Refill);
    }

    fn start_probe_bw_up(&mut self, delivery_rate: f64) {
        self.ack_phase = AckPhase::ProbeStarting;
        self.start_round();
        self.reset_full_bw();
        self.full_bw = delivery_rate;
        self.set_mode(Mode::Up);
        self.raise_inflight_longterm_slope();
    }

    /// §5.3.3.9 RaiseInflightLongtermSlope.
    fn raise_inflight_longterm_slope(&mut self) {
        let growth_this_round = f64::from(1u32 << self.bw_probe_up_rounds);
        self.bw_probe_up_rounds = (self.bw_probe_up_rounds + 1).min(MAX_PROBE_UP_ROUNDS);
        self.probe_up_acked_per_inc = (self.cwnd / growth_this_round).max(1.0);
    }

    /// §5.3.3.9 ProbeInflightLongtermUpward.
    fn probe_inflight_longterm_upward(&mut self, newly_acked: f64) {
        if !self.is_cwnd_limited() || self.cwnd < self.inflight_longterm {
            return;
        }
        self.bw_probe_up_acked += newly_acked;
        if self.bw_probe_up_acked >= self.probe_up_acked_per_inc {
            let delta = (self.bw_probe_up_acked / self.probe_up_acked_per_inc).floor();
            self.bw_probe_up_acked -= delta * self.probe_up_acked_per_inc;
            self.inflight_longterm += delta;
        }
        if self.round_start {
            self.raise_inflight_longterm_slope();
        }
    }

    fn is_cwnd_limited(&self) -> bool {
        self.cwnd_limited_now || self.cwnd_limited_last
    }

    /// §5.3.3.9 AdaptLongTermModel: true when it decided a state transition.
    fn adapt_long_term_model(&mut self, s: &Sample) -> bool {
        if self.ack_phase == AckPhase::ProbeStarting && self.round_start {
            self.ack_phase = AckPhase::ProbeFeedback;
        }
        if self.ack_phase == AckPhase::ProbeStopping && self.round_start {
            self.is_bw_probe_sample = false;
            self.ack_phase = AckPhase::Init;
            if self.mode.is_probe_bw() && !s.app_limited {
                self.cycle_count += 1; // §5.5.6 AdvanceMaxBwFilter
            }
            if self.mode.is_probe_bw() && self.prev_probe_precautionary && !self.prev_probe_too_high
            {
                self.start_probe_bw_refill();
                return true;
            }
        }
        if !self.is_inflight_too_high(s.lost, s.tx_in_flight) {
            if self.inflight_longterm.is_infinite() {
                return false;
            }
            self.inflight_longterm = self.inflight_longterm.max(s.tx_in_flight as f64);
            if self.mode == Mode::Up {
                self.probe_inflight_longterm_upward(s.newly_acked);
            }
        }
        false
    }

    /// §5.3.3.8 IsTimeToProbeBW (and its start of REFILL).
    fn is_time_to_probe_bw(&mut self, now: SimTime) -> bool {
        let reno_rounds = self.target_inflight().min(MAX_RENO_ROUNDS);
        if now > self.cycle_stamp + self.bw_probe_wait
            || self.rounds_since_probe_up as f64 >= reno_rounds
        {
            self.start_probe_bw_refill();
            return true;
        }
        false
    }

    /// §5.3.3.9 IsTimeToCruise.
    fn is_time_to_cruise(&self, in_flight: f64) -> bool {
        in_flight <= self.inflight_with_headroom()
            && in_flight <= self.inflight(self.max_bw.get(), 1.0)
    }

    /// §5.3.3.9 IsTimeToGoDown.
    fn is_time_to_go_down(&mut self, in_flight: f64, delivery_rate: f64) -> bool {
        if self.prev_probe_too_high && in_flight >= self.inflight_longterm {
            self.prev_probe_precautionary = true;
            return true;
        }
        if self.is_cwnd_limited() && self.cwnd >= self.inflight_longterm {
            self.reset_full_bw();
            self.full_bw = delivery_rate;
        } else if self.full_bw_now {
            return true;
        }
        false
    }

    /// §5.3.3.9 UpdateProbeBWCyclePhase.
    fn update_probe_bw_cycle_phase(&mut self, now: SimTime, s: &Sample, in_flight: f64) {
        if !self.full_bw_reached || self.adapt_long_term_model(s) || !self.mode.is_probe_bw() {
            return;
        }
        match self.mode {
            Mode::Down => {
                let probing = self.is_time_to_probe_bw(now);
                if !probing && self.is_time_to_cruise(in_flight) {
                    self.start_probe_bw_cruise();
                }
            }
            Mode::Cruise => {
                self.is_time_to_probe_bw(now);
            }
            // After one round of REFILL, UP.
            Mode::Refill if self.round_start => {
                self.is_bw_probe_sample = true;
                self.start_probe_bw_up(s.rate);
            }
            Mode::Up => {
                let down = self.is_time_to_go_down(in_flight, s.rate);
                if down {
                    self.prev_probe_too_high = false; // no high loss (yet)
                    self.start_probe_bw_down(now);
                }
            }
            _ => {}
        }
    }

    /// §5.3.1.2 CheckFullBWReached.
    fn check_full_bw_reached(&mut self, s: &Sample) {
        if self.full_bw_now || !self.round_start || s.app_limited {
            return;
        }
        if s.rate >= self.full_bw * FULL_BW_GROWTH {
            self.reset_full_bw();
            self.full_bw = s.rate;
            return;
        }
        self.full_bw_count += 1;
        self.full_bw_now = self.full_bw_count >= FULL_BW_COUNT;
        self.full_bw_reached |= self.full_bw_now;
    }

    /// §5.3.1.3 CheckStartupHighLoss, at the end of a loss round: in fast recovery for a full
    /// round, more than LossThresh of the round lost, at least six loss events (or, without
    /// selective ACKs, any loss in recovery).
    fn check_startup_high_loss(&mut self) {
        if self.mode != Mode::Startup || self.full_bw_reached || !self.loss_round_start {
            return;
        }
        let lost = self.lost_in_round as f64;
        let too_high = if self.has_selective_acks {
            self.in_fast_recovery
                && self.round_count > self.recovery_round
                && lost > self.p.loss_thresh * (lost + self.delivered_in_round as f64)
                && self.loss_events_in_round >= STARTUP_FULL_LOSS_CNT
        } else {
            self.in_fast_recovery && lost > 0.0
        };
        if too_high {
            self.undo.state = Some(Mode::Startup);
            self.full_bw_reached = true;
            self.inflight_longterm = self.bdp().max(self.inflight_latest);
        }
    }

    /// §5.5.10.3 UpdateLatestDeliverySignals; the loss round's counters restart with it.
    fn update_latest_delivery_signals(&mut self, s: &Sample) {
        self.bw_latest = self.bw_latest.max(s.rate);
        self.inflight_latest = self.inflight_latest.max(s.delivered as f64);
        if s.prior_delivered >= self.loss_round_delivered {
            self.loss_round_delivered = self.delivered;
            self.loss_round_start = true;
        }
    }

    /// §5.5.10.3 UpdateCongestionSignals with §5.5.5 UpdateMaxBw and §5.5.1 UpdateRound.
    fn update_congestion_signals(&mut self, s: &Sample) {
        self.round_start = s.prior_delivered >= self.next_round_delivered;
        if self.round_start {
            self.start_round();
            self.round_count += 1;
            self.rounds_since_probe_up += 1;
            self.cwnd_limited_last = std::mem::take(&mut self.cwnd_limited_now);
        }
        if s.rate > 0.0 && (s.rate >= self.max_bw.get() || !s.app_limited) {
            self.max_bw
                .update(self.cycle_count, s.rate, MAX_BW_FILTER_LEN);
        }
        if !self.loss_round_start {
            return;
        }
        // §5.5.10.3 AdaptLowerBoundsFromCongestion, once per round.
        if !self.is_probing_bw() && self.is_loss_in_round {
            if self.bw_shortterm.is_infinite() {
                self.bw_shortterm = self.max_bw.get();
            }
            if self.inflight_shortterm.is_infinite() {
                self.inflight_shortterm = self.cwnd;
            }
            self.bw_shortterm = self.bw_latest.max(self.p.beta * self.bw_shortterm);
            self.inflight_shortterm = self
                .inflight_latest
                .max(self.p.beta * self.inflight_shortterm);
        }
        self.is_loss_in_round = false;
    }

    /// §5.5.9 UpdateACKAggregation.
    fn update_ack_aggregation(&mut self, now: SimTime, newly_acked: f64) {
        let interval = now.saturating_sub(self.extra_acked_interval_start).secs();
        let mut expected = self.bw * interval;
        if self.extra_acked_delivered <= expected {
            self.extra_acked_delivered = 0.0;
            self.extra_acked_interval_start = now;
            expected = 0.0;
        }
        self.extra_acked_delivered += newly_acked;
        let extra = (self.extra_acked_delivered - expected).min(self.cwnd);
        let len = if self.full_bw_reached {
            EXTRA_ACKED_FILTER_LEN
        } else {
            1
        };
        self.extra_acked.update(self.round_count, extra, len);
    }

    /// §5.3.4.3 UpdateMinRTT; the filters' clocks start with the first sample.
    fn update_min_rtt(&mut self, now: SimTime, rtt: Option<SimTime>) {
        self.probe_rtt_expired = self.probe_rtt_min_delay.is_some()
            && now > self.probe_rtt_min_stamp + PROBE_RTT_INTERVAL;
        if let Some(rtt) = rtt {
            if self.probe_rtt_min_delay.is_none_or(|d| rtt < d) || self.probe_rtt_expired {
                self.probe_rtt_min_delay = Some(rtt);
                self.probe_rtt_min_stamp = now;
            }
        }
        let min_rtt_expired = now > self.min_rtt_stamp + MIN_RTT_FILTER_LEN;
        if let Some(d) = self.probe_rtt_min_delay {
            if self.min_rtt.is_none_or(|m| d < m) || min_rtt_expired {
                self.min_rtt = Some(d);
                self.min_rtt_stamp = self.probe_rtt_min_stamp;
            }
        }
    }

    /// §5.3.4.3 CheckProbeRTT and HandleProbeRTT.
    fn check_probe_rtt(&mut self, now: SimTime, in_flight: f64, delivered: u64) {
        if self.mode != Mode::ProbeRtt && self.probe_rtt_expired && !self.idle_restart {
            self.set_mode(Mode::ProbeRtt);
            self.save_cwnd();
            self.probe_rtt_done_stamp = None;
            self.ack_phase = AckPhase::ProbeStopping;
            self.start_round();
        }
        if self.mode == Mode::ProbeRtt {
            self.mark_app_limited = true;
            match self.probe_rtt_done_stamp {
                None if in_flight <= self.probe_rtt_cwnd() => {
                    self.probe_rtt_done_stamp = Some(now + PROBE_RTT_DURATION);
                    self.probe_rtt_round_done = false;
                    self.start_round();
                }
                None => {}
                Some(_) => {
                    self.probe_rtt_round_done |= self.round_start;
                    if self.probe_rtt_round_done {
                        self.check_probe_rtt_done(now);
                    }
                }
            }
        }
        if delivered > 0 {
            self.idle_restart = false;
        }
    }

    /// §5.3.4.3 CheckProbeRTTDone, with §5.3.4.4 ExitProbeRTT.
    fn check_probe_rtt_done(&mut self, now: SimTime) {
        if self.probe_rtt_done_stamp.is_some_and(|done| now > done) {
            self.probe_rtt_min_stamp = now;
            self.restore_cwnd();
            self.reset_short_term_model();
            if self.full_bw_reached {
                self.start_probe_bw_down(now);
                self.start_probe_bw_cruise();
            } else {
                self.enter_startup();
            }
        }
    }

    /// §5.6.2 SetPacingRateWithGain: gain·bw less the 1% margin, not lowered before the pipe
    /// is full.
    fn set_pacing_rate_with_gain(&mut self, gain: f64) {
        let rate = gain * self.bw * (100.0 - PACING_MARGIN_PERCENT) / 100.0;
        if self.full_bw_reached || self.pacing_rate.is_none_or(|r| rate > r) {
            self.pacing_rate = Some(rate);
        }
    }

    /// §5.6.3 SetSendQuantum: 1 ms at the pacing rate, at most 64 KB, at least 2 packets.
    fn set_send_quantum(&mut self) {
        if let (Some(rate), true) = (self.pacing_rate, self.smss_bytes > 0) {
            self.send_quantum = (rate * 1e-3).min(65536.0 / self.smss_bytes as f64).max(2.0);
        }
    }

    /// §5.6.4.6 SetCwnd, with §5.6.4.5 and §5.6.4.7's bounds.
    fn set_cwnd(&mut self, newly_acked: f64) {
        let cap = self.bdp_multiple(self.bw, self.cwnd_gain) + self.extra_acked.get();
        self.max_inflight = self.quantization_budget(cap);
        if self.full_bw_reached {
            self.cwnd = (self.cwnd + newly_acked).min(self.max_inflight);
        } else if self.cwnd < self.max_inflight || (self.delivered as f64) < self.initial_cwnd {
            self.cwnd += newly_acked;
        }
        self.cwnd = self.cwnd.max(MIN_PIPE_CWND);
        if self.mode == Mode::ProbeRtt {
            self.cwnd = self.cwnd.min(self.probe_rtt_cwnd());
        }
        // §5.6.4.7 BoundCwndForModel.
        let cap = if self.mode.is_probe_bw() && self.mode != Mode::Cruise {
            self.inflight_longterm
        } else if matches!(self.mode, Mode::ProbeRtt | Mode::Cruise) {
            self.inflight_with_headroom()
        } else {
            f64::INFINITY
        };
        let cap = cap.min(self.inflight_shortterm).max(MIN_PIPE_CWND);
        self.cwnd = clamp_window(self.cwnd.min(cap));
    }

    /// The state machine's state, for tests.
    #[cfg(test)]
    pub(crate) fn mode(&self) -> Mode {
        self.mode
    }
}

/// What one ACK's delivery-rate sample says, in the draft's RS terms.
#[derive(Clone, Copy, Debug, Default)]
struct Sample {
    /// RS.delivery_rate (packets/s), RS.delivered, RS.prior_delivered.
    rate: f64,
    delivered: u64,
    prior_delivered: u64,
    /// RS.is_app_limited, RS.tx_in_flight, RS.lost, RS.newly_acked.
    app_limited: bool,
    tx_in_flight: u64,
    lost: u64,
    newly_acked: f64,
}

impl Controller for Bbr3 {
    fn name(&self) -> String {
        if self.p == Bbr3Params::default() {
            "BBRv3".into()
        } else {
            let p = self.p;
            let values = [p.loss_thresh, p.beta, p.headroom, p.ecn_thresh].map(decimal);
            format!("BBRv3({})", values.join(","))
        }
    }

    fn wants_delivery_rate(&self) -> bool {
        true
    }

    /// BBR's model is built from per-ACK delivery-rate samples.
    fn runs_in_rounds(&self) -> bool {
        false
    }

    /// §5.2.3 UpdateOnACK.
    fn on_ack(&mut self, ack: &AckSample) {
        self.mark_app_limited = false;
        let now = ack.now;
        self.smss_bytes = self.smss_bytes.max(acked_packet_bytes(ack));
        self.has_selective_acks |= ack.sacked_pkts > 0;
        let lost = std::mem::take(&mut self.lost_since_ack);
        let newly_acked = ack.delivered_pkts as f64;
        let in_flight = ack.in_flight_pkts as f64;
        if (in_flight + newly_acked + lost as f64) >= self.cwnd.floor() {
            self.cwnd_limited_now = true;
        }
        if self.pacing_rate.is_none() {
            // §5.6.2 InitPacingRate, from the first RTT sample.
            if let Some(srtt) = ack.srtt.filter(|s| *s > SimTime::ZERO) {
                self.pacing_rate = Some(STARTUP_PACING_GAIN * self.initial_cwnd / srtt.secs());
            }
        }
        // Recovery as the transport reports it; leaving it restores the window (§5.6.4.4).
        if ack.in_recovery && !self.in_fast_recovery {
            self.recovery_round = self.round_count;
        }
        let left_fast = self.in_fast_recovery && !ack.in_recovery;
        self.in_fast_recovery = ack.in_recovery;
        let s = match ack.delivery {
            Some(d) => Sample {
                rate: d.delivered_pkts as f64 / d.interval.secs(),
                delivered: d.delivered_pkts,
                prior_delivered: d.total_delivered_pkts - d.delivered_pkts,
                app_limited: d.app_limited,
                tx_in_flight: d.tx_in_flight_pkts,
                lost: d.lost_pkts,
                newly_acked,
            },
            None => Sample {
                newly_acked,
                ..Sample::default()
            },
        };
        if let Some(d) = ack.delivery {
            self.delivered = d.total_delivered_pkts;
        }
        let left_rto = self
            .rto_recovery_until
            .is_some_and(|until| self.delivered >= until);
        if left_rto {
            self.rto_recovery_until = None;
        }
        if left_fast || left_rto {
            self.restore_cwnd();
        }
        // Startup's loss-round counters and the ECN signal (§3.7: CE marks are congestion).
        self.lost_in_round += lost;
        self.loss_events_in_round += u32::from(lost > 0);
        self.delivered_in_round += newly_acked as u64;
        self.ce_in_round += ack.ce_pkts;
        if ack.ce_pkts > 0
            && self.ce_in_round as f64 > self.p.ecn_thresh * self.delivered_in_round as f64
        {
            self.note_loss();
            if self.is_bw_probe_sample && ack.delivery.is_some() {
                self.handle_inflight_too_high(now, s.tx_in_flight as f64, s.app_limited);
            }
        }
        // §5.2.3 UpdateModelAndState; an ACK without a sample starts no round.
        (self.round_start, self.loss_round_start) = (false, false);
        if ack.delivery.is_some() {
            self.update_latest_delivery_signals(&s);
            self.update_congestion_signals(&s);
        }
        self.update_ack_aggregation(now, newly_acked);
        if ack.delivery.is_some() {
            self.check_full_bw_reached(&s);
        }
        self.check_startup_high_loss();
        if self.mode == Mode::Startup && self.full_bw_reached {
            self.enter_drain();
        }
        if self.mode == Mode::Drain
            && (in_flight <= self.inflight(self.bw, 1.0)
                || self.round_count > self.drain_start_round + DRAIN_MAX_ROUNDS)
        {
            self.start_probe_bw_down(now); // §5.3.3.9 EnterProbeBW
        }
        if newly_acked > 0.0 && ack.delivery.is_some() {
            self.update_probe_bw_cycle_phase(now, &s, in_flight);
        }
        self.update_min_rtt(now, ack.rtt);
        self.check_probe_rtt(now, in_flight, s.delivered);
        if self.loss_round_start {
            // §5.5.10.3 AdvanceLatestDeliverySignals.
            self.bw_latest = s.rate;
            self.inflight_latest = s.delivered as f64;
            (self.lost_in_round, self.delivered_in_round) = (0, 0);
            (self.loss_events_in_round, self.ce_in_round) = (0, 0);
        }
        self.bw = self.max_bw.get().min(self.bw_shortterm); // §5.5.10.3 BoundBWForModel
                                                            // §5.2.3 UpdateControlParameters.
        let gain = self.pacing_gain;
        self.set_pacing_rate_with_gain(gain);
        self.set_send_quantum();
        self.set_cwnd(newly_acked);
    }

    /// §5.5.10.2 HandleLostPacket.
    fn on_lost_packet(&mut self, lost: &LostPacket) {
        self.lost_since_ack += 1;
        self.note_loss();
        if !self.is_bw_probe_sample
            || !self.is_inflight_too_high(lost.lost_pkts, lost.tx_in_flight_pkts)
        {
            return;
        }
        // InflightAtLoss: the inflight at which the losses crossed LossThresh.
        let inflight_prev = lost.tx_in_flight_pkts as f64 - 1.0;
        let lost_prev = lost.lost_pkts as f64 - 1.0;
        let thresh = self.p.loss_thresh;
        let lost_prefix = (thresh * inflight_prev - lost_prev) / (1.0 - thresh);
        self.handle_inflight_too_high(lost.now, inflight_prev + lost_prefix, lost.app_limited);
    }

    fn on_loss(&mut self, loss: &LossEvent) {
        match loss.kind {
            // §5.6.4.4 OnEnterFastRecovery.
            LossKind::Gap => {
                self.save_cwnd();
                self.save_state_upon_loss();
                self.in_fast_recovery = true;
                self.recovery_round = self.round_count;
            }
            // §5.6.4.4 OnEnterRTO: every packet outstanding was marked lost, so C.inflight is
            // 0 and cwnd one packet; RTO recovery lasts until they are delivered again.
            LossKind::Timeout => {
                self.save_cwnd();
                self.save_state_upon_loss();
                self.cwnd = 1.0;
                let outstanding = std::mem::take(&mut self.lost_since_ack);
                self.rto_recovery_until = Some(self.delivered + outstanding);
            }
            // ECN-Echo counts through the ACKs' CE-marked packets.
            LossKind::Ecn => {}
        }
    }

    /// §5.5.11.2 HandleSpuriousLossDetection.
    fn on_undo(&mut self, _now: SimTime) {
        self.in_fast_recovery = false;
        self.rto_recovery_until = None;
        self.restore_cwnd();
        self.is_loss_in_round = false;
        self.reset_full_bw();
        let u = self.undo;
        self.bw_shortterm = self.bw_shortterm.max(u.bw_shortterm);
        self.inflight_shortterm = self.inflight_shortterm.max(u.inflight_shortterm);
        self.inflight_longterm = self.inflight_longterm.max(u.inflight_longterm);
        match u.state {
            Some(Mode::Startup) if self.mode != Mode::Startup => {
                self.full_bw_reached = false;
                if self.mode != Mode::ProbeRtt {
                    self.enter_startup();
                }
            }
            Some(Mode::Up) if self.mode.is_probe_bw() && self.mode != Mode::Up => {
                self.start_probe_bw_refill();
            }
            _ => {}
        }
        self.undo.state = None;
    }

    /// §5.4.1 HandleRestartFromIdle.
    fn on_restart_from_idle(&mut self, now: SimTime) {
        self.idle_restart = true;
        self.extra_acked_interval_start = now;
        if self.mode.is_probe_bw() {
            self.set_pacing_rate_with_gain(1.0);
        } else if self.mode == Mode::ProbeRtt {
            self.check_probe_rtt_done(now);
        }
    }

    fn marks_app_limited(&self) -> bool {
        self.mark_app_limited
    }

    fn window(&self) -> f64 {
        self.cwnd
    }

    fn pacing_rate_bps(&self) -> Option<f64> {
        pace_bps(self.pacing_rate?, self.smss_bytes)
    }

    fn state(&self, out: &mut Vec<(&'static str, f64)>) {
        out.extend([
            ("state", self.mode as u8 as f64),
            ("max_bw_pkts_per_s", self.max_bw.get()),
            ("bw_pkts_per_s", self.bw),
            ("min_rtt_s", self.min_rtt.map_or(f64::NAN, SimTime::secs)),
            ("pacing_gain", self.pacing_gain),
            ("cwnd_gain", self.cwnd_gain),
            ("inflight_longterm_pkts", self.inflight_longterm),
            ("inflight_shortterm_pkts", self.inflight_shortterm),
            ("bw_shortterm_pkts_per_s", self.bw_shortterm),
        ]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::control::harness::{assert_close, ops, Driver};
    use crate::control::DeliverySample;
    use proptest::prelude::*;
    use rand::SeedableRng as _;

    fn ms(n: u64) -> SimTime {
        SimTime::from_ms(n)
    }

    fn bbr3(seed: u64) -> Bbr3 {
        let config = WindowConfig {
            initial_window: 10.0,
            ..WindowConfig::default()
        };
        Bbr3::new(
            Bbr3Params::default(),
            config,
            crate::rng::Rng::seed_from_u64(seed),
        )
    }

    /// A path of 1000 packets/s and 50 ms (a BDP of 50 packets) seen one ACK per round.
    struct Path {
        b: Bbr3,
        now: SimTime,
        total: u64,
        in_recovery: bool,
    }

    impl Path {
        fn new(seed: u64) -> Self {
            let mut b = bbr3(seed);
            b.has_selective_acks = true;
            Path {
                b,
                now: SimTime::ZERO,
                total: 0,
                in_recovery: false,
            }
        }

        /// One 50 ms round: an ACK of the round's packets at `rate` packets/s, leaving
        /// `in_flight`, with `lost` of them lost since the sampled packet left.
        fn round(&mut self, rate: f64, in_flight: u64, lost: u64) {
            self.now += ms(50);
            let acked = (rate * 0.05) as u64;
            self.total += acked;
            let ack = AckSample {
                now: self.now,
                acked_pkts: acked,
                acked_bytes: 1000 * acked,
                delivered_pkts: acked,
                rtt: Some(ms(50)),
                srtt: Some(ms(50)),
                min_rtt: Some(ms(50)),
                in_flight_pkts: in_flight,
                in_flight_bytes: 1000 * in_flight,
                in_recovery: self.in_recovery,
                delivery: Some(DeliverySample {
                    rate_bps: rate * 8000.0,
                    delivered_pkts: acked,
                    delivered_bytes: 1000 * acked,
                    interval: SimTime::from_secs_f64(acked as f64 / rate),
                    total_delivered_pkts: self.total,
                    tx_in_flight_pkts: in_flight + acked,
                    lost_pkts: lost,
                    ..DeliverySample::default()
                }),
                ..AckSample::default()
            };
            self.b.on_ack(&ack);
        }

        /// Rounds at 1000 packets/s with a BDP in flight until the state is `mode`; panics
        /// after `most` rounds.
        fn until(&mut self, mode: Mode, most: usize) {
            for _ in 0..most {
                if self.b.mode() == mode {
                    return;
                }
                self.round(1000.0, 50, 0);
            }
            assert_eq!(self.b.mode(), mode, "after {most} rounds");
        }
    }

    #[test]
    fn the_gains_are_the_drafts() {
        // §2.5: 4 ln 2 = 2.77; §5.6.1's table of pacing and window gains.
        assert_close(STARTUP_PACING_GAIN, 2.77, 1e-3);
        let mut b = bbr3(1);
        for (mode, pacing, cwnd) in [
            (Mode::Startup, STARTUP_PACING_GAIN, 2.0),
            (Mode::Drain, 0.5, 2.0),
            (Mode::Down, 0.9, 2.0),
            (Mode::Cruise, 1.0, 2.0),
            (Mode::Refill, 1.0, 2.0),
            (Mode::Up, 1.25, 2.25),
            (Mode::ProbeRtt, 1.0, 0.5),
        ] {
            b.mode = mode;
            b.set_mode(mode);
            assert_eq!((b.pacing_gain, b.cwnd_gain), (pacing, cwnd), "{mode:?}");
        }
    }

    #[test]
    fn startup_to_probe_bw_and_its_cycle() {
        let mut p = Path::new(1);
        for rate in [100.0, 200.0, 400.0, 800.0, 1000.0, 1000.0, 1000.0] {
            p.round(rate, 200, 0);
        }
        assert_eq!(p.b.mode(), Mode::Startup, "two rounds without 25% growth");
        p.round(1000.0, 200, 0);
        assert_eq!(p.b.mode(), Mode::Drain, "the third");
        // One BDP in flight: Drain is over, and so is DOWN, the queue being gone (§5.3.3.1).
        p.round(1000.0, 50, 0);
        assert_eq!(p.b.mode(), Mode::Cruise);
        p.until(Mode::Refill, 63);
        p.round(1000.0, 50, 0);
        assert_eq!(p.b.mode(), Mode::Up, "after one round of REFILL (§5.3.3.3)");
        // Three rounds without 25% more bandwidth end the probe (§5.3.3.7).
        p.until(Mode::Down, 4);
    }

    #[test]
    fn drain_ends_after_three_rounds_whatever_is_in_flight() {
        // Appendix "Exiting DRAIN Based on Time".
        let mut p = Path::new(1);
        for rate in [100.0, 200.0, 400.0, 800.0, 1000.0, 1000.0, 1000.0, 1000.0] {
            p.round(rate, 200, 0);
        }
        assert_eq!(p.b.mode(), Mode::Drain);
        for _ in 0..3 {
            p.round(1000.0, 200, 0);
            assert_eq!(p.b.mode(), Mode::Drain);
        }
        p.round(1000.0, 200, 0);
        assert_eq!(p.b.mode(), Mode::Down);
    }

    #[test]
    fn the_probe_waits_2_to_3_s_or_the_reno_rounds() {
        // §5.3.3.8: min(T_bbr, T_reno), T_reno = min(BDP, 63) rounds less 0 or 1; a BDP of 50
        // packets and 50 ms rounds: 49-50 rounds, 2.45-2.5 s, against 2-3 s.
        for seed in 0..20 {
            let mut p = Path::new(seed);
            p.until(Mode::Cruise, 30);
            let wait = p.b.bw_probe_wait.secs();
            assert!((2.0..3.0).contains(&wait), "{wait}");
            let from = p.now;
            p.until(Mode::Refill, 80);
            let waited = (p.now - from).secs();
            let rounds = 50.0 - p.b.rounds_since_probe_up as f64;
            assert!(
                waited <= wait.min(2.5) + 0.1,
                "{waited} s, wait {wait} s, {rounds}"
            );
        }
    }

    #[test]
    fn a_probe_that_loses_over_2_percent_sets_inflight_longterm() {
        let mut p = Path::new(1);
        p.until(Mode::Up, 120);
        assert!(p.b.is_bw_probe_sample && p.b.inflight_longterm.is_infinite());
        // §5.5.10.2 InflightAtLoss: 5 lost of 100 in flight; the loss rate crossed 2% at
        // 99 + (0.02 × 99 − 4)/0.98 = 96.94 packets.
        let lost = LostPacket {
            now: p.now,
            tx_in_flight_pkts: 100,
            lost_pkts: 5,
            ..LostPacket::default()
        };
        p.b.on_lost_packet(&lost);
        assert_close(
            p.b.inflight_longterm,
            99.0 + (0.02 * 99.0 - 4.0) / 0.98,
            1e-12,
        );
        assert!(p.b.prev_probe_too_high && !p.b.is_bw_probe_sample);
        assert_eq!(p.b.mode(), Mode::Down);
        // CRUISE then leaves 15% of it free (§5.3.3.9 InflightWithHeadroom).
        assert_close(
            p.b.inflight_with_headroom(),
            0.85 * p.b.inflight_longterm,
            1e-12,
        );
        // A loss of 2% or less is tolerated: 2 of 100.
        let mut q = Path::new(1);
        q.until(Mode::Up, 120);
        q.b.on_lost_packet(&LostPacket {
            lost_pkts: 2,
            ..lost
        });
        assert!(q.b.inflight_longterm.is_infinite() && q.b.mode() == Mode::Up);
    }

    #[test]
    fn losses_outside_a_probe_cut_the_short_term_model_by_beta_per_round() {
        let mut p = Path::new(1);
        p.until(Mode::Cruise, 30);
        let max_bw = p.b.max_bw.get();
        let lost = LostPacket {
            now: p.now,
            tx_in_flight_pkts: 50,
            lost_pkts: 1,
            ..LostPacket::default()
        };
        // §5.5.10.3: at the end of each round with a loss, bw_shortterm = max(bw_latest,
        // β·bw_shortterm), starting from max_bw; bw_latest is the round's largest sample: the
        // first round's 1000 (its sample from before the loss), then 500, above 0.7 × 700.
        for expected in [max_bw, 0.7 * max_bw, 500.0] {
            p.b.on_lost_packet(&lost);
            p.round(500.0, 50, 1);
            assert_close(p.b.bw_shortterm, expected, 1e-12);
            assert_close(p.b.bw, expected, 1e-12);
        }
        assert!(p.b.inflight_shortterm < f64::INFINITY);
    }

    #[test]
    fn probe_rtt_every_5_s_at_half_a_bdp() {
        let mut p = Path::new(1);
        p.until(Mode::Cruise, 30);
        p.until(Mode::ProbeRtt, 200);
        assert!(p.now.secs() >= 5.0, "{}", p.now.secs());
        assert_close(p.b.probe_rtt_cwnd(), 0.5 * p.b.bdp(), 1e-12);
        assert!(p.b.window() <= 0.5 * p.b.bdp() + 1e-9);
        assert!(p.b.marks_app_limited());
        // 200 ms and a round at that inflight, then back to CRUISE (§5.3.4.4).
        for _ in 0..6 {
            p.round(500.0, 25, 0);
        }
        assert_eq!(p.b.mode(), Mode::Cruise);
    }

    #[test]
    fn a_spurious_recovery_undoes_a_cut_probe() {
        let mut p = Path::new(1);
        p.until(Mode::Up, 120);
        p.b.on_loss(&LossEvent {
            now: p.now,
            kind: LossKind::Gap,
            ..LossEvent::default()
        });
        p.b.on_lost_packet(&LostPacket {
            now: p.now,
            tx_in_flight_pkts: 100,
            lost_pkts: 5,
            ..LostPacket::default()
        });
        assert_eq!(p.b.mode(), Mode::Down);
        p.b.on_undo(p.now);
        // §5.5.11.2: back to probing, and inflight_longterm at least what it was.
        assert_eq!(p.b.mode(), Mode::Refill);
        assert!(p.b.inflight_longterm.is_infinite());
    }

    #[test]
    fn startup_ends_on_high_loss() {
        // §5.3.1.3: in recovery for a round, more than 2% of the round lost, six loss events.
        let mut p = Path::new(1);
        for rate in [100.0, 200.0, 400.0] {
            p.round(rate, 40, 0);
        }
        p.b.on_loss(&LossEvent {
            now: p.now,
            kind: LossKind::Gap,
            ..LossEvent::default()
        });
        p.in_recovery = true;
        for _ in 0..6 {
            p.b.on_lost_packet(&LostPacket::default());
            p.now += ms(1);
            p.b.on_ack(&AckSample {
                now: p.now,
                in_recovery: true,
                in_flight_pkts: 40,
                ..AckSample::default()
            });
        }
        assert_eq!(p.b.mode(), Mode::Startup);
        // The round ends: 6 lost of 46, in six events, a round into recovery.
        p.round(800.0, 40, 12);
        assert!(p.b.full_bw_reached);
        assert_eq!(p.b.mode(), Mode::Drain);
        assert!(p.b.inflight_longterm.is_finite());
    }

    #[test]
    fn named_in_notation() {
        assert_eq!(bbr3(1).name(), "BBRv3");
        let p = Bbr3Params {
            beta: 0.5,
            ..Bbr3Params::default()
        };
        let b = Bbr3::new(
            p,
            WindowConfig::default(),
            crate::rng::Rng::seed_from_u64(1),
        );
        assert_eq!(b.name(), "BBRv3(0.02,0.5,0.15,0.5)");
    }

    proptest! {
        /// Whatever the feedback, the window stays finite and at least one packet, the pace
        /// finite and positive, and the state machine moves only along its transitions (a
        /// debug assertion in `set_mode`).
        #[test]
        fn any_feedback_keeps_the_invariants(
            loss_thresh in 0.001..0.5f64,
            beta in 0.1..0.99f64,
            headroom in 0.0..0.9f64,
            seed in any::<u64>(),
            ops in ops(),
        ) {
            let p = Bbr3Params { loss_thresh, beta, headroom, ecn_thresh: 0.5 };
            let b = Bbr3::new(p, WindowConfig::default(), crate::rng::Rng::seed_from_u64(seed));
            Driver::started(b).run_checked(&ops);
        }
    }
}
