//! BBR version 1 as draft-cardwell-iccrg-bbr-congestion-control-00 specifies it (Cardwell et
//! al., ACM Queue 2016): a model of the path, its bottleneck bandwidth BtlBw (the windowed
//! maximum of the delivery rate over 10 round trips) and its round-trip propagation time
//! RTprop (the minimum RTT, refreshed at least every 10 s), drives a pacing rate
//! pacing_gain·BtlBw and a window cwnd_gain·BtlBw·RTprop.
//!
//! What is modelled, clause by clause (all sections of the -00 draft):
//! - §4.1.1 BtlBw: delivery-rate samples (the transport's, draft-cheng-iccrg-delivery-rate-
//!   estimation), packet-timed round trips, a max filter over `BtlBwFilterLen` = 10 rounds
//!   that skips application-limited samples below the estimate;
//! - §4.1.2 RTprop: the smallest RTT sample, replaced by any sample once 10 s old;
//! - §4.2.1 pacing at pacing_gain·BtlBw, never lowered before the pipe is full; §4.2.2 the
//!   send quantum; §4.2.3 the window: cwnd_gain·BtlBw·RTprop + 3 send quanta, at least 4
//!   packets, grown by what each ACK delivers; packet conservation in fast recovery for one
//!   round, cwnd reduced by each loss, and the window before recovery restored after it;
//!   cwnd = 1 at a timeout;
//! - §4.3 the state machine: Startup at the gain 2/ln 2 until three rounds without 25% more
//!   bandwidth, Drain at its inverse until the queue it built is gone, ProbeBW's eight-phase
//!   gain cycle (1.25, 0.75, then 1 six times), entered at a random phase other than 0.75,
//!   and ProbeRTT: 200 ms and a round at 4 packets once RTprop is 10 s old;
//! - §4.3.4.3 restarting from idle, and ProbeRTT's samples counted as application-limited.
//!
//! Choices the draft leaves to the transport, made as Linux `net/ipv4/tcp_bbr.c` makes them:
//! the initial pacing rate from the first RTT sample (draft-ietf-ccwg-bbr-06 §5.6.2), packet
//! conservation ending at the first round start after recovery begins, a round counted only
//! on ACKs that give a delivery-rate sample. The model is in packets: BtlBw in packets/s,
//! converted to bits/s for the pacing rate with the largest packet acknowledged so far.
//!
//! With `ack_aggregation` on, the window also carries Linux's allowance for ACK aggregation
//! (net/ipv4/tcp_bbr.c `bbr_update_ack_aggregation`, `bbr_ack_aggregation_cwnd`, from Linux 5.1,
//! commit 78dc70ebaa38; later drafts call it BBR.extra_acked, e.g.
//! draft-cardwell-iccrg-bbr-congestion-control-02): the packets (S)ACKed beyond what BtlBw
//! would deliver since an epoch began, at most the window, whose maximum over 5-10 rounds is
//! added to the window's target once the pipe is full, at most BtlBw × 100 ms. The kernel counts
//! the packets expected in an epoch in whole packets; the model, in packets as everywhere else,
//! does not round them.
//!
//! With `quantization` on, the window's target is in whole packets as Linux rounds it
//! (net/ipv4/tcp_bbr.c `bbr_bdp`, `bbr_quantization_budget`, `bbr_tso_segs_goal`): the
//! estimated BDP times the gain rounded up, the send quantum a whole number of segments (what
//! the pacing rate sends in 1/1024 s, the default `sk_pacing_shift` of 10, at least 2 segments
//! from 1.2 Mb/s up, 1 below, at most 127 and 64 KB), the sum with the ACK-aggregation allowance
//! and 3 quanta rounded up to an even number (to halve delayed ACKs' waits), and 2 packets more
//! in ProbeBW's 1.25 phase, so that small BDPs still probe above the BDP. The draft's target
//! BBRInflight is the unrounded sum.
//!
//! With `strict_min_rtt` on, RTprop is refreshed, before it is 10 s old, only by a sample below
//! it, as Linux's `bbr_update_min_rtt` (`rs->rtt_us < bbr->min_rtt_us`); the draft's
//! BBRUpdateRTprop (§4.1.2.3) takes one at or below it, which on the model's exact clock
//! refreshes it whenever the queue drains and can put ProbeRTT off for good.
//!
//! Not modelled: Linux's long-term (policer) bandwidth sampling, its pacing margin (1% below
//! the rate, `bbr_pacing_margin_percent`), TSO segment sizing beyond the send quantum's share of
//! the window.

use super::minmax::WindowedFilter;
use super::{acked_packet_bytes, clamp_window, decimal, pace_bps};
use crate::control::{AckSample, Controller, LossEvent, LossKind, LostPacket, WindowConfig};
use crate::rng::Rng;
use crate::time::SimTime;
use rand::Rng as _;

/// §4.3.2: the Startup gain 2/ln 2, the smallest that doubles the sending rate each round.
pub const HIGH_GAIN: f64 = 2.0 / std::f64::consts::LN_2;
/// §4.3.4: the ProbeBW cwnd gain (BBRGainCycle's cwnd_gain).
pub const CWND_GAIN: f64 = 2.0;
/// §4.3.4: the pacing gains of ProbeBW's eight phases.
const GAIN_CYCLE: [f64; 8] = [1.25, 0.75, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0];
/// §4.1.1.2: BtlBwFilterLen, in packet-timed round trips.
const BTLBW_FILTER_ROUNDS: u64 = 10;
/// §4.1.2.2: RTpropFilterLen.
const RTPROP_FILTER: SimTime = SimTime::from_ms(10_000);
/// §4.3.5: ProbeRTTDuration.
const PROBE_RTT_DURATION: SimTime = SimTime::from_ms(200);
/// §4.2.3.3: BBRMinPipeCwnd (packets).
pub const MIN_PIPE_CWND: f64 = 4.0;
/// §4.3.2.2: the growth per round that counts as the bandwidth still growing, and the rounds
/// without it after which the pipe is full.
const FULL_BW_GROWTH: f64 = 1.25;
const FULL_BW_ROUNDS: u32 = 3;
/// Linux tcp_bbr.c `bbr_extra_acked_win_rtts`: the rounds each of the two slots of the
/// extra-ACKed maximum covers, so that the maximum spans the last 5-10 rounds.
const EXTRA_ACKED_WIN_ROUNDS: u32 = 5;
/// Linux tcp_bbr.c `bbr_extra_acked_max_us`: the allowance is at most BtlBw times this.
const EXTRA_ACKED_MAX: SimTime = SimTime::from_ms(100);
/// Linux tcp_bbr.c `bbr_ack_epoch_acked_reset_thresh`: an epoch that would count this many
/// packets starts afresh.
const ACK_EPOCH_RESET_PKTS: u64 = 1 << 20;
/// Linux tcp_bbr.c `bbr_min_tso_rate` (bits/s): from this pacing rate on a TSO burst is at
/// least 2 segments, below it 1 (`bbr_min_tso_segs`).
const MIN_TSO_RATE_BPS: f64 = 1.2e6;
/// Linux's default `sk_pacing_shift`, 10: a TSO burst carries the pacing rate's 1/1024 s
/// (`bbr_tso_segs_goal`, after `tcp_tso_autosize`).
const TSO_BURST_SECS: f64 = 1.0 / 1024.0;
/// Linux `bbr_tso_segs_goal`: at most 0x7F segments a burst.
const MAX_TSO_SEGS: f64 = 127.0;
/// §4.2.2: the send quantum is at most 64 KB, as a Linux TSO burst is (`GSO_LEGACY_MAX_SIZE`).
const MAX_SEND_QUANTUM_BYTES: f64 = 65536.0;

/// What of Linux's tcp_bbr.c BBR takes beyond the draft (both off: the draft's BBR).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BbrLinuxParts {
    /// The window's allowance for ACK aggregation (`bbr_ack_aggregation_cwnd`).
    pub ack_aggregation: bool,
    /// The window's target in whole packets as Linux rounds it (`bbr_quantization_budget`).
    pub quantization: bool,
    /// RTprop taken only from a sample below it, or any once it is 10 s old
    /// (`bbr_update_min_rtt`'s `rs->rtt_us < bbr->min_rtt_us`).
    pub strict_min_rtt: bool,
}

/// §4.3: BBR's states.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Mode {
    Startup,
    Drain,
    ProbeBw,
    ProbeRtt,
}

impl Mode {
    /// Whether the state machine of §3.4.1 goes from `self` to `to`.
    fn leads_to(self, to: Mode) -> bool {
        use Mode::*;
        matches!(
            (self, to),
            (Startup, Drain | ProbeRtt)
                | (Drain, ProbeBw | ProbeRtt)
                | (ProbeBw, ProbeRtt)
                | (ProbeRtt, ProbeBw | Startup)
        ) || self == to
    }
}

/// BBR v1 (draft-cardwell-iccrg-bbr-congestion-control-00).
#[derive(Clone, Debug)]
pub struct Bbr {
    /// ProbeBW's cwnd gain (§4.3.4: 2).
    probe_cwnd_gain: f64,
    mode: Mode,
    /// The controller's own random stream (the gain cycle's first phase, §4.3.4.2).
    rng: Rng,
    /// BBR.BtlBw's max filter (packets/s over round trips).
    btlbw: WindowedFilter,
    /// BBR.RTprop, once there is an RTT sample, and when it was measured.
    rtprop: Option<SimTime>,
    rtprop_stamp: SimTime,
    rtprop_expired: bool,
    /// BBR.pacing_gain, BBR.cwnd_gain.
    pacing_gain: f64,
    cwnd_gain: f64,
    /// Packet-timed rounds (§4.1.1.3): count, the delivered count that ends the current one,
    /// and whether this ACK started one.
    round_count: u64,
    next_round_delivered: u64,
    round_start: bool,
    /// §4.3.2.2: BBR.filled_pipe, BBR.full_bw (packets/s), BBR.full_bw_count.
    filled_pipe: bool,
    full_bw: f64,
    full_bw_count: u32,
    /// §4.3.4: the gain cycle's phase and when it began.
    cycle_index: usize,
    cycle_stamp: SimTime,
    /// §4.3.5: when ProbeRTT may end (once inflight reached 4 packets), and whether a round
    /// has passed since.
    probe_rtt_done_stamp: Option<SimTime>,
    probe_rtt_round_done: bool,
    /// ProbeRTT asks the transport to count this ACK's sends as application-limited.
    mark_app_limited: bool,
    /// §4.2.3.4: the window before recovery or ProbeRTT, and packet conservation.
    prior_cwnd: f64,
    packet_conservation: bool,
    /// §4.3.4.3: the flow restarted from idle since the last ACK.
    idle_restart: bool,
    /// The congestion window (packets), finite, in [1, `MAX_WINDOW_PKTS`].
    cwnd: f64,
    initial_cwnd: f64,
    /// BBR.target_cwnd (packets).
    target_cwnd: f64,
    /// The pacing rate (packets/s), once set (§4.2.1).
    pacing_rate: Option<f64>,
    /// The send quantum (packets, §4.2.2).
    send_quantum: f64,
    /// The largest packet acknowledged so far (bytes): the pacing rate's packet size.
    smss_bytes: u64,
    /// C.delivered as of the last delivery-rate sample.
    delivered: u64,
    /// Packets marked lost since the last ACK (its `packets_lost`).
    lost_since_ack: u64,
    /// The transport's fast recovery as of the last ACK.
    in_fast_recovery: bool,
    /// After a timeout, the delivered count at which the data outstanding then has been
    /// delivered: the end of RTO recovery (Linux leaves `TCP_CA_Loss` when `snd_una` passes
    /// the highest sequence sent before it).
    rto_recovery_until: Option<u64>,
    /// What the last ACK left in flight and delivered (packets), for a recovery that begins
    /// after it.
    last_in_flight: u64,
    last_delivered: u64,
    /// Linux's ACK-aggregation allowance, when on (`None`: the draft's window alone).
    aggregation: Option<AckAggregation>,
    /// The window's target in whole packets as Linux's (else the draft's).
    quantization: bool,
    /// RTprop refreshed only by a sample below it, as Linux's (else at or below it, the
    /// draft's).
    strict_min_rtt: bool,
}

/// Linux tcp_bbr.c's estimate of ACK aggregation: the current epoch (its start and the packets
/// (S)ACKed since) and the extra-ACKed maximum in two slots of 5 rounds each.
#[derive(Clone, Debug, Default)]
struct AckAggregation {
    epoch_start: SimTime,
    epoch_acked: u64,
    /// The slots' maxima (packets), the current slot, and the rounds it has run.
    extra_acked: [f64; 2],
    slot: usize,
    slot_rounds: u32,
}

impl AckAggregation {
    /// `bbr_update_ack_aggregation` on an ACK at `now` of `acked` packets with a delivery-rate
    /// sample, `round_start` whether it started a round, `btlbw` BBR.BtlBw (packets/s) with
    /// this sample in it, `cwnd` the window before this ACK.
    fn update(&mut self, now: SimTime, acked: u64, round_start: bool, btlbw: f64, cwnd: f64) {
        if acked == 0 {
            return;
        }
        if round_start {
            self.slot_rounds += 1;
            if self.slot_rounds >= EXTRA_ACKED_WIN_ROUNDS {
                self.slot_rounds = 0;
                self.slot ^= 1;
                self.extra_acked[self.slot] = 0.0;
            }
        }
        let mut expected = btlbw * (now - self.epoch_start).secs();
        // ACKs no faster than BtlBw, or an epoch grown very long, start a new epoch.
        if self.epoch_acked as f64 <= expected || self.epoch_acked + acked >= ACK_EPOCH_RESET_PKTS {
            self.epoch_acked = 0;
            self.epoch_start = now;
            expected = 0.0;
        }
        self.epoch_acked += acked;
        let extra = (self.epoch_acked as f64 - expected).min(cwnd);
        self.extra_acked[self.slot] = self.extra_acked[self.slot].max(extra);
    }

    /// The extra-ACKed maximum of the last 5-10 rounds (`bbr_extra_acked`).
    fn extra_acked(&self) -> f64 {
        self.extra_acked[0].max(self.extra_acked[1])
    }

    /// An idle sender starts a new epoch (`bbr_cwnd_event` on `CA_EVENT_TX_START`).
    fn restart(&mut self, now: SimTime) {
        self.epoch_start = now;
        self.epoch_acked = 0;
    }
}

impl Bbr {
    /// BBR v1 with ProbeBW's cwnd gain `cwnd_gain` (the draft's 2), starting as `config` says
    /// (its initial window is InitialCwnd; BBR has no slow-start threshold), drawing from
    /// `rng`. Trusts its arguments: the catalogue checks them.
    pub fn new(cwnd_gain: f64, config: WindowConfig, rng: Rng) -> Self {
        Self::with_linux(cwnd_gain, BbrLinuxParts::default(), config, rng)
    }

    /// As [`Bbr::new`], with the parts of Linux's BBR that `linux` turns on.
    pub fn with_linux(
        cwnd_gain: f64,
        linux: BbrLinuxParts,
        config: WindowConfig,
        rng: Rng,
    ) -> Self {
        let w = config.initial_window;
        let mut b = Bbr {
            probe_cwnd_gain: cwnd_gain,
            mode: Mode::Startup,
            rng,
            btlbw: WindowedFilter::max(0, 0.0),
            rtprop: None,
            rtprop_stamp: SimTime::ZERO,
            rtprop_expired: false,
            pacing_gain: HIGH_GAIN,
            cwnd_gain: HIGH_GAIN,
            round_count: 0,
            next_round_delivered: 0,
            round_start: false,
            filled_pipe: false,
            full_bw: 0.0,
            full_bw_count: 0,
            cycle_index: 0,
            cycle_stamp: SimTime::ZERO,
            probe_rtt_done_stamp: None,
            probe_rtt_round_done: false,
            mark_app_limited: false,
            prior_cwnd: 0.0,
            packet_conservation: false,
            idle_restart: false,
            cwnd: w,
            initial_cwnd: w,
            target_cwnd: w,
            pacing_rate: None,
            send_quantum: 1.0,
            smss_bytes: 0,
            delivered: 0,
            lost_since_ack: 0,
            in_fast_recovery: false,
            rto_recovery_until: None,
            last_in_flight: 0,
            last_delivered: 0,
            aggregation: linux.ack_aggregation.then(AckAggregation::default),
            quantization: linux.quantization,
            strict_min_rtt: linux.strict_min_rtt,
        };
        b.enter(Mode::Startup);
        b
    }

    /// BBR.BtlBw (packets/s).
    fn btlbw(&self) -> f64 {
        self.btlbw.get()
    }

    /// Moves the state machine to `to` (§4.3), which must be one of its transitions.
    fn enter(&mut self, to: Mode) {
        debug_assert!(self.mode.leads_to(to), "{:?} -> {to:?}", self.mode);
        self.mode = to;
        match to {
            // §4.3.2.1 BBREnterStartup.
            Mode::Startup => (self.pacing_gain, self.cwnd_gain) = (HIGH_GAIN, HIGH_GAIN),
            // §4.3.3 BBREnterDrain.
            Mode::Drain => (self.pacing_gain, self.cwnd_gain) = (1.0 / HIGH_GAIN, HIGH_GAIN),
            Mode::ProbeBw => {}
            // §4.3.5 BBREnterProbeRTT.
            Mode::ProbeRtt => (self.pacing_gain, self.cwnd_gain) = (1.0, 1.0),
        }
    }

    /// §4.3.4.2 BBREnterProbeBW: cwnd gain 2, and a phase drawn at random among all but the
    /// draining 0.75 one: cycle_index = 7 − random_int_between(0, 6), then advanced.
    fn enter_probe_bw(&mut self, now: SimTime) {
        self.enter(Mode::ProbeBw);
        self.pacing_gain = 1.0;
        self.cwnd_gain = self.probe_cwnd_gain;
        self.cycle_index = GAIN_CYCLE.len() - 1 - self.rng.gen_range(0..=GAIN_CYCLE.len() - 2);
        self.advance_cycle_phase(now);
    }

    /// §4.3.4 BBRAdvanceCyclePhase.
    fn advance_cycle_phase(&mut self, now: SimTime) {
        self.cycle_stamp = now;
        self.cycle_index = (self.cycle_index + 1) % GAIN_CYCLE.len();
        self.pacing_gain = GAIN_CYCLE[self.cycle_index];
    }

    /// §4.2.3.2 BBRInflight(gain): gain·BtlBw·RTprop plus 3 send quanta (packets);
    /// InitialCwnd before an RTT sample.
    fn inflight(&self, gain: f64) -> f64 {
        self.inflight_with(gain, 0.0)
    }

    /// [`Self::inflight`] with `extra` packets (the ACK-aggregation allowance) in it; with
    /// `quantization`, rounded as Linux's `bbr_bdp` and `bbr_quantization_budget` round it
    /// (Linux adds the budget before an RTT sample too).
    fn inflight_with(&self, gain: f64, extra: f64) -> f64 {
        let bdp = self.rtprop.map(|r| gain * self.btlbw() * r.secs());
        if !self.quantization {
            return match bdp {
                None => self.initial_cwnd + extra,
                Some(bdp) => bdp + 3.0 * self.send_quantum + extra,
            };
        }
        let bdp = bdp.map_or(self.initial_cwnd, f64::ceil);
        let whole = (bdp + extra + 3.0 * self.send_quantum).ceil();
        let even = whole + whole % 2.0;
        let probing = self.mode == Mode::ProbeBw && self.cycle_index == 0;
        even + if probing { 2.0 } else { 0.0 }
    }

    /// §4.2.3.4 BBRSaveCwnd.
    fn save_cwnd(&mut self) {
        self.prior_cwnd = if !self.in_loss_recovery() && self.mode != Mode::ProbeRtt {
            self.cwnd
        } else {
            self.prior_cwnd.max(self.cwnd)
        };
    }

    /// §4.2.3.4 BBRRestoreCwnd.
    fn restore_cwnd(&mut self) {
        self.cwnd = self.cwnd.max(self.prior_cwnd);
    }

    fn in_loss_recovery(&self) -> bool {
        self.in_fast_recovery || self.rto_recovery_until.is_some()
    }

    /// §4.1.1.5 BBRUpdateBtlBw, with §4.1.1.3 BBRUpdateRound: `prior_delivered` is P.delivered
    /// of the sampled packet, `rate` its delivery rate (packets/s).
    fn update_btlbw(&mut self, prior_delivered: u64, rate: f64, app_limited: bool) {
        self.round_start = prior_delivered >= self.next_round_delivered;
        if self.round_start {
            self.next_round_delivered = self.delivered;
            self.round_count += 1;
            // Linux `bbr_update_bw`: one round of recovery ends packet conservation.
            self.packet_conservation = false;
        }
        if rate >= self.btlbw() || !app_limited {
            self.btlbw
                .update(self.round_count, rate, BTLBW_FILTER_ROUNDS);
        }
    }

    /// §4.3.4 BBRIsNextCyclePhase, with `prior_inflight` the packets in flight before this
    /// ACK and `lost` those it marked lost.
    fn is_next_cycle_phase(&self, now: SimTime, prior_inflight: f64, lost: u64) -> bool {
        let is_full_length = self.rtprop.is_some_and(|r| now - self.cycle_stamp > r);
        if self.pacing_gain > 1.0 {
            is_full_length && (lost > 0 || prior_inflight >= self.inflight(self.pacing_gain))
        } else if self.pacing_gain < 1.0 {
            is_full_length || prior_inflight <= self.inflight(1.0)
        } else {
            is_full_length
        }
    }

    /// §4.3.2.2 BBRCheckFullPipe.
    fn check_full_pipe(&mut self, app_limited: bool) {
        if self.filled_pipe || !self.round_start || app_limited {
            return;
        }
        if self.btlbw() >= self.full_bw * FULL_BW_GROWTH {
            self.full_bw = self.btlbw();
            self.full_bw_count = 0;
            return;
        }
        self.full_bw_count += 1;
        self.filled_pipe = self.full_bw_count >= FULL_BW_ROUNDS;
    }

    /// §4.3.3 BBRCheckDrain.
    fn check_drain(&mut self, now: SimTime, in_flight: f64) {
        if self.mode == Mode::Startup && self.filled_pipe {
            self.enter(Mode::Drain);
        }
        if self.mode == Mode::Drain && in_flight <= self.inflight(1.0) {
            self.enter_probe_bw(now);
        }
    }

    /// §4.1.2.3 BBRUpdateRTprop; the filter's clock starts with the first sample (the draft
    /// starts it when the connection does, which the controller does not see).
    fn update_rtprop(&mut self, now: SimTime, rtt: Option<SimTime>) {
        self.rtprop_expired = self.rtprop.is_some() && now > self.rtprop_stamp + RTPROP_FILTER;
        if let Some(rtt) = rtt {
            // Linux's `<` leaves the stamp alone on a sample equal to RTprop, which a lone
            // flow's drained queue gives on an exact clock, so that ProbeRTT still comes.
            let lower = |r: SimTime| rtt < r || (rtt == r && !self.strict_min_rtt);
            if self.rtprop.is_none_or(lower) || self.rtprop_expired {
                self.rtprop = Some(rtt);
                self.rtprop_stamp = now;
            }
        }
    }

    /// §4.3.5 BBRCheckProbeRTT and BBRHandleProbeRTT.
    fn check_probe_rtt(&mut self, now: SimTime, in_flight: f64) {
        if self.mode != Mode::ProbeRtt && self.rtprop_expired && !self.idle_restart {
            self.enter(Mode::ProbeRtt);
            self.save_cwnd();
            self.probe_rtt_done_stamp = None;
        }
        if self.mode == Mode::ProbeRtt {
            // Ignore low rate samples during ProbeRTT.
            self.mark_app_limited = true;
            match self.probe_rtt_done_stamp {
                None if in_flight <= MIN_PIPE_CWND => {
                    self.probe_rtt_done_stamp = Some(now + PROBE_RTT_DURATION);
                    self.probe_rtt_round_done = false;
                    self.next_round_delivered = self.delivered;
                }
                None => {}
                Some(done) => {
                    self.probe_rtt_round_done |= self.round_start;
                    if self.probe_rtt_round_done && now > done {
                        self.rtprop_stamp = now;
                        self.restore_cwnd();
                        // §4.3.5 BBRExitProbeRTT.
                        if self.filled_pipe {
                            self.enter_probe_bw(now);
                        } else {
                            self.enter(Mode::Startup);
                        }
                    }
                }
            }
        }
        self.idle_restart = false;
    }

    /// §4.2.1 BBRSetPacingRateWithGain: gain·BtlBw, not lowered before the pipe is full.
    fn set_pacing_rate_with_gain(&mut self, gain: f64) {
        let rate = gain * self.btlbw();
        if self.filled_pipe || self.pacing_rate.is_none_or(|r| rate > r) {
            self.pacing_rate = Some(rate);
        }
    }

    /// §4.2.2 BBRSetSendQuantum: 1 packet below 1.2 Mb/s, 2 below 24 Mb/s, else 1 ms at the
    /// pacing rate, at most 64 KB; with `quantization`, Linux's `bbr_tso_segs_goal` instead.
    fn set_send_quantum(&mut self) {
        let (Some(rate), smss) = (self.pacing_rate, self.smss_bytes as f64) else {
            return;
        };
        let bps = rate * smss * 8.0;
        if self.quantization {
            let least = if bps < MIN_TSO_RATE_BPS { 1.0 } else { 2.0 };
            let bytes = (bps / 8.0 * TSO_BURST_SECS).min(MAX_SEND_QUANTUM_BYTES);
            self.send_quantum = (bytes / smss).floor().max(least).min(MAX_TSO_SEGS);
            return;
        }
        self.send_quantum = if bps < 1.2e6 {
            1.0
        } else if bps < 24e6 {
            2.0
        } else {
            (rate * 1e-3).min(MAX_SEND_QUANTUM_BYTES / smss)
        };
    }

    /// Linux tcp_bbr.c `bbr_ack_aggregation_cwnd`: once the pipe is full, the extra-ACKed
    /// maximum (times `bbr_extra_acked_gain`, 1), at most BtlBw × 100 ms; none when off.
    fn ack_aggregation_cwnd(&self) -> f64 {
        match &self.aggregation {
            Some(a) if self.filled_pipe => {
                a.extra_acked().min(self.btlbw() * EXTRA_ACKED_MAX.secs())
            }
            _ => 0.0,
        }
    }

    /// §4.2.3.6 BBRSetCwnd, with §4.2.3.4's recovery and §4.2.3.5's ProbeRTT modulation; the
    /// target includes the ACK-aggregation allowance (Linux `bbr_set_cwnd`).
    fn set_cwnd(&mut self, in_flight: f64, delivered: f64, lost: u64) {
        self.target_cwnd = self.inflight_with(self.cwnd_gain, self.ack_aggregation_cwnd());
        // §4.2.3.4 BBRModulateCwndForRecovery.
        if lost > 0 {
            self.cwnd = (self.cwnd - lost as f64).max(1.0);
        }
        if self.packet_conservation {
            self.cwnd = self.cwnd.max(in_flight + delivered);
        } else {
            if self.filled_pipe {
                self.cwnd = (self.cwnd + delivered).min(self.target_cwnd);
            } else if self.cwnd < self.target_cwnd || (self.delivered as f64) < self.initial_cwnd {
                self.cwnd += delivered;
            }
            self.cwnd = self.cwnd.max(MIN_PIPE_CWND);
        }
        // §4.2.3.5 BBRModulateCwndForProbeRTT.
        if self.mode == Mode::ProbeRtt {
            self.cwnd = self.cwnd.min(MIN_PIPE_CWND);
        }
        self.cwnd = clamp_window(self.cwnd);
    }

    /// The state machine's state, for tests.
    #[cfg(test)]
    pub(crate) fn mode(&self) -> Mode {
        self.mode
    }
}

impl Controller for Bbr {
    /// BBR, BBR(cwnd_gain), and BBR(cwnd_gain,1) with the ACK-aggregation allowance.
    fn name(&self) -> String {
        let gain = decimal(self.probe_cwnd_gain);
        let aggregation = u8::from(self.aggregation.is_some());
        let quantization = u8::from(self.quantization);
        match (
            self.quantization,
            self.aggregation.is_some(),
            self.probe_cwnd_gain == CWND_GAIN,
        ) {
            _ if self.strict_min_rtt => format!("BBR({gain},{aggregation},{quantization},1)"),
            (true, _, _) => format!("BBR({gain},{aggregation},1)"),
            (false, true, _) => format!("BBR({gain},1)"),
            (false, false, true) => "BBR".into(),
            (false, false, false) => format!("BBR({gain})"),
        }
    }

    fn wants_delivery_rate(&self) -> bool {
        true
    }

    /// BBR's model is built from per-ACK delivery-rate samples.
    fn runs_in_rounds(&self) -> bool {
        false
    }

    /// §3.5.2: on every ACK, the model and state machine, then the control parameters.
    fn on_ack(&mut self, ack: &AckSample) {
        self.mark_app_limited = false;
        let now = ack.now;
        self.smss_bytes = self.smss_bytes.max(acked_packet_bytes(ack));
        let lost = std::mem::take(&mut self.lost_since_ack);
        let in_flight = ack.in_flight_pkts as f64;
        let delivered = ack.delivered_pkts as f64;
        let prior_inflight = in_flight + delivered + lost as f64;
        if self.pacing_rate.is_none() {
            // §4.2.1 BBRInitPacingRate from the first RTT sample (draft-ietf-ccwg-bbr-06
            // §5.6.2; Linux `bbr_init_pacing_rate_from_rtt`).
            if let Some(srtt) = ack.srtt.filter(|s| *s > SimTime::ZERO) {
                self.pacing_rate = Some(self.pacing_gain * self.initial_cwnd / srtt.secs());
            }
        }
        // §4.2.3.4: leaving fast or RTO recovery restores the window from before it.
        let left_fast = self.in_fast_recovery && !ack.in_recovery;
        self.in_fast_recovery = ack.in_recovery;
        let app_limited = ack.delivery.is_some_and(|d| d.app_limited);
        self.round_start = false;
        if let Some(d) = ack.delivery {
            // Linux's rs->acked_sacked: the packets this ACK delivered, each counted once (not
            // again when the cumulative ACK passes a packet SACKed before).
            let newly_delivered = d.total_delivered_pkts.saturating_sub(self.delivered);
            self.delivered = d.total_delivered_pkts;
            let rate = d.delivered_pkts as f64 / d.interval.secs();
            let prior_delivered = d.total_delivered_pkts - d.delivered_pkts;
            self.update_btlbw(prior_delivered, rate, d.app_limited);
            // Linux `bbr_update_model`: the aggregation estimate right after the bandwidth's.
            let (round_start, btlbw, cwnd) = (self.round_start, self.btlbw(), self.cwnd);
            if let Some(a) = &mut self.aggregation {
                a.update(now, newly_delivered, round_start, btlbw, cwnd);
            }
        }
        let left_rto = self
            .rto_recovery_until
            .is_some_and(|until| self.delivered >= until);
        if left_rto {
            self.rto_recovery_until = None;
        }
        if left_fast || left_rto {
            self.packet_conservation = false;
            self.restore_cwnd();
        }
        // §3.5.2 BBRUpdateModelAndState.
        if self.mode == Mode::ProbeBw && self.is_next_cycle_phase(now, prior_inflight, lost) {
            self.advance_cycle_phase(now);
        }
        self.check_full_pipe(app_limited);
        self.check_drain(now, in_flight);
        self.update_rtprop(now, ack.rtt);
        self.check_probe_rtt(now, in_flight);
        // §3.5.2 BBRUpdateControlParameters.
        let gain = self.pacing_gain;
        self.set_pacing_rate_with_gain(gain);
        self.set_send_quantum();
        self.set_cwnd(in_flight, delivered, lost);
        self.last_in_flight = ack.in_flight_pkts;
        self.last_delivered = ack.delivered_pkts;
    }

    fn on_lost_packet(&mut self, _lost: &LostPacket) {
        self.lost_since_ack += 1;
    }

    fn on_loss(&mut self, loss: &LossEvent) {
        match loss.kind {
            // Linux reads the transport's state once an ACK (`bbr_set_cwnd_to_recover_or_restore`
            // keeps `prev_ca_state`): a recovery that begins on the ACK that ended the last one
            // (the transport's `recovery_on_lost`) is the same recovery to it, with no new
            // packet conservation and no restore between.
            LossKind::Gap if self.in_fast_recovery => self.save_cwnd(),
            // §4.2.3.4 BBROnEnterFastRecovery: what is in flight, and one packet for the fast
            // retransmit; the round restarts (Linux `bbr_set_cwnd_to_recover_or_restore`).
            LossKind::Gap => {
                self.save_cwnd();
                self.cwnd = clamp_window((self.last_in_flight + self.last_delivered.max(1)) as f64);
                self.packet_conservation = true;
                self.in_fast_recovery = true;
                self.next_round_delivered = self.delivered;
            }
            // §4.2.3.4: on a retransmission timeout, one packet; recovery lasts until what was
            // outstanding, all marked lost, is delivered again.
            LossKind::Timeout => {
                self.save_cwnd();
                self.cwnd = 1.0;
                let outstanding = std::mem::take(&mut self.lost_since_ack);
                self.rto_recovery_until = Some(self.delivered + outstanding);
                self.packet_conservation = false;
            }
            // The draft's BBR does not react to ECN.
            LossKind::Ecn => {}
        }
    }

    /// §4.2.3.4: undoing a recovery restores the window from before it.
    fn on_undo(&mut self, _now: SimTime) {
        self.in_fast_recovery = false;
        self.rto_recovery_until = None;
        self.packet_conservation = false;
        self.restore_cwnd();
    }

    /// §4.3.4.3 BBRHandleRestartFromIdle.
    fn on_restart_from_idle(&mut self, now: SimTime) {
        self.idle_restart = true;
        if let Some(a) = &mut self.aggregation {
            a.restart(now);
        }
        if self.mode == Mode::ProbeBw {
            self.set_pacing_rate_with_gain(1.0);
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
            ("btlbw_pkts_per_s", self.btlbw()),
            ("rtprop_s", self.rtprop.map_or(f64::NAN, SimTime::secs)),
            ("pacing_gain", self.pacing_gain),
            ("cwnd_gain", self.cwnd_gain),
            ("target_cwnd_pkts", self.target_cwnd),
        ]);
        if let Some(a) = &self.aggregation {
            out.push(("extra_acked_pkts", a.extra_acked()));
        }
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

    fn bbr(seed: u64) -> Bbr {
        let config = WindowConfig {
            initial_window: 10.0,
            ..WindowConfig::default()
        };
        Bbr::new(CWND_GAIN, config, crate::rng::Rng::seed_from_u64(seed))
    }

    /// The random stream of seed 1.
    fn rng() -> crate::rng::Rng {
        crate::rng::Rng::seed_from_u64(1)
    }

    /// An ACK at `now` of `acked` 1000-byte packets with RTT `rtt`, leaving `in_flight`, whose
    /// delivery-rate sample is `rate` packets/s and ends with `total` packets delivered.
    fn ack(
        now: SimTime,
        acked: u64,
        in_flight: u64,
        rtt: SimTime,
        rate: f64,
        total: u64,
    ) -> AckSample {
        AckSample {
            now,
            acked_pkts: acked,
            acked_bytes: 1000 * acked,
            delivered_pkts: acked,
            rtt: Some(rtt),
            srtt: Some(rtt),
            min_rtt: Some(rtt),
            in_flight_pkts: in_flight,
            in_flight_bytes: 1000 * in_flight,
            delivery: Some(DeliverySample {
                rate_bps: rate * 8000.0,
                delivered_pkts: acked,
                delivered_bytes: 1000 * acked,
                interval: SimTime::from_secs_f64(acked as f64 / rate),
                total_delivered_pkts: total,
                ..DeliverySample::default()
            }),
            ..AckSample::default()
        }
    }

    /// One ACK per 50 ms round carrying the round's deliveries at `rates` (packets/s), with
    /// `in_flight` packets left in flight; the clock ends at the last ACK.
    fn rounds(b: &mut Bbr, now: &mut SimTime, total: &mut u64, rates: &[f64], in_flight: u64) {
        for &rate in rates {
            *now += ms(50);
            let acked = (rate * 0.05) as u64;
            *total += acked;
            b.on_ack(&ack(*now, acked, in_flight, ms(50), rate, *total));
        }
    }

    #[test]
    fn the_gains_are_the_drafts() {
        // §4.3.2: 2/ln 2 = 2.885, the smallest gain that doubles the rate each round.
        assert_close(HIGH_GAIN, 2.885, 1e-3);
        assert_eq!(
            GAIN_CYCLE.iter().sum::<f64>(),
            8.0,
            "the cycle averages a gain of 1"
        );
        let b = bbr(1);
        assert_eq!((b.pacing_gain, b.cwnd_gain), (HIGH_GAIN, HIGH_GAIN));
        assert_eq!(b.window(), 10.0, "InitialCwnd");
        assert_eq!(
            b.pacing_rate_bps(),
            None,
            "no pace before an ACK shows the packet size"
        );
    }

    #[test]
    fn probe_bw_starts_at_a_random_phase_never_the_draining_one() {
        // §4.3.4.2: cycle_index = 7 − random_int_between(0, 6), then advanced: phases 0 and
        // 2-7, each about one time in seven.
        let mut seen = [0u32; 8];
        for seed in 0..7000 {
            let mut b = bbr(seed);
            b.enter(Mode::Drain);
            b.enter_probe_bw(SimTime::ZERO);
            seen[b.cycle_index] += 1;
        }
        assert_eq!(seen[1], 0, "{seen:?}");
        for (i, &n) in seen.iter().enumerate().filter(|(i, _)| *i != 1) {
            assert!((800..1200).contains(&n), "phase {i}: {n} of 7000");
        }
    }

    #[test]
    fn inflight_is_gain_bdp_plus_three_quanta() {
        // §4.2.3.2: 1000 packets/s × 50 ms = 50 packets; at 8 Mb/s the quantum is 2 packets.
        let (mut b, mut now, mut total) = (bbr(1), SimTime::ZERO, 0);
        rounds(&mut b, &mut now, &mut total, &[1000.0], 20);
        assert_eq!(b.btlbw(), 1000.0);
        assert_eq!(
            b.send_quantum, 2.0,
            "§4.2.2: 2 packets between 1.2 and 24 Mb/s"
        );
        assert_close(b.inflight(2.0), 2.0 * 50.0 + 6.0, 1e-12);
        assert_close(b.inflight(1.0), 56.0, 1e-12);
    }

    #[test]
    fn quantization_rounds_the_target_as_linux_does() {
        let config = WindowConfig {
            initial_window: 10.0,
            ..WindowConfig::default()
        };
        let linux = BbrLinuxParts {
            quantization: true,
            ..BbrLinuxParts::default()
        };
        let mut b = Bbr::with_linux(CWND_GAIN, linux, config, rng());
        let (mut now, mut total) = (SimTime::ZERO, 0);
        rounds(&mut b, &mut now, &mut total, &[1000.0], 20);
        // tcp_bbr.c bbr_tso_segs_goal: 1000 packets/s of 1000 bytes pace 976 bytes in 1/1024 s,
        // no whole segment, so bbr_min_tso_segs's 2 at 8 Mb/s.
        assert_eq!(b.send_quantum, 2.0);
        // bbr_bdp: 1.25 × 1000 packets/s × 50 ms = 62.5, rounded up to 63; with 3 bursts of 2,
        // 69; bbr_quantization_budget rounds it up to 70, and adds 2 in ProbeBW's 1.25 phase.
        b.mode = Mode::ProbeBw;
        b.cycle_index = 2;
        assert_eq!(b.inflight(1.25), 70.0);
        b.cycle_index = 0;
        assert_eq!(b.inflight(1.25), 72.0);
        // An even sum stays: 2 × 50 + 6.
        b.cycle_index = 2;
        assert_eq!(b.inflight(2.0), 106.0);
        // From 1.2 Mb/s down a burst is 1 segment: 100 packets/s of 1000 bytes is 0.8 Mb/s.
        b.pacing_rate = Some(100.0);
        b.set_send_quantum();
        assert_eq!(b.send_quantum, 1.0);
        // At 50 000 packets/s (400 Mb/s) a burst is ⌊48 828 / 1000⌋ = 48 segments; at 800
        // Mb/s its 97 656 bytes are held to 64 KB, 65 segments.
        b.pacing_rate = Some(50_000.0);
        b.set_send_quantum();
        assert_eq!(b.send_quantum, 48.0);
        b.pacing_rate = Some(100_000.0);
        b.set_send_quantum();
        assert_eq!(b.send_quantum, 65.0);
    }

    #[test]
    fn startup_ends_three_rounds_after_the_bandwidth_plateau_then_drain_then_probe_bw() {
        let (mut b, mut now, mut total) = (bbr(1), SimTime::ZERO, 0);
        // Doubling, then 1000 packets/s: 1000 ≥ 1.25 × 800 still counts as growth.
        rounds(
            &mut b,
            &mut now,
            &mut total,
            &[100.0, 200.0, 400.0, 800.0, 1000.0],
            200,
        );
        assert_eq!(b.mode(), Mode::Startup);
        rounds(&mut b, &mut now, &mut total, &[1000.0, 1000.0], 200);
        assert_eq!(b.mode(), Mode::Startup, "two rounds without 25% growth");
        rounds(&mut b, &mut now, &mut total, &[1000.0], 200);
        assert!(b.filled_pipe && b.mode() == Mode::Drain, "the third");
        assert_close(b.pacing_gain, 1.0 / HIGH_GAIN, 1e-15);
        // §4.3.3: Drain ends once what is in flight is at most one BDP (50 + 6 packets).
        rounds(&mut b, &mut now, &mut total, &[1000.0], 57);
        assert_eq!(b.mode(), Mode::Drain);
        rounds(&mut b, &mut now, &mut total, &[1000.0], 56);
        assert_eq!(b.mode(), Mode::ProbeBw);
        assert_eq!(b.cwnd_gain, 2.0);
        // From now on the pacing rate is the gain times BtlBw, 8 Mb/s.
        let rate = b.pacing_rate_bps().unwrap();
        assert_close(rate, b.pacing_gain * 8e6, 1e-12);
    }

    #[test]
    fn probe_bw_cycles_its_gains_once_per_rtprop() {
        let (mut b, mut now, mut total) = (bbr(3), SimTime::ZERO, 0);
        rounds(&mut b, &mut now, &mut total, &[1000.0; 5], 50);
        assert_eq!(b.mode(), Mode::ProbeBw);
        // ACKs every 50 ms with RTprop 50 ms: a phase ends at the first ACK more than an
        // RTprop after it began (§4.3.4 BBRIsNextCyclePhase; no loss, and 100 packets in flight
        // before each ACK, above a BDP), so each lasts two ACKs, in the cycle's order.
        let mut phases = vec![b.cycle_index];
        for _ in 0..32 {
            rounds(&mut b, &mut now, &mut total, &[1000.0], 50);
            phases.push(b.cycle_index);
            assert_eq!(b.pacing_gain, GAIN_CYCLE[b.cycle_index]);
        }
        let changes: Vec<usize> = (1..phases.len())
            .filter(|&i| phases[i] != phases[i - 1])
            .collect();
        assert!(changes.len() >= 15, "{phases:?}");
        for w in changes.windows(2) {
            assert_eq!(w[1] - w[0], 2, "{phases:?}");
            assert_eq!(phases[w[1]], (phases[w[0]] + 1) % 8, "{phases:?}");
        }
    }

    #[test]
    fn probe_rtt_every_10_s_holds_4_packets_for_200_ms_and_a_round() {
        let (mut b, mut now, mut total) = (bbr(1), SimTime::ZERO, 0);
        rounds(&mut b, &mut now, &mut total, &[1000.0; 5], 50);
        let stamp = b.rtprop_stamp;
        // RTTs above RTprop for 10 s leave it as it was...
        while now < stamp + RTPROP_FILTER {
            now += ms(50);
            total += 50;
            b.on_ack(&ack(now, 50, 50, ms(55), 1000.0, total));
            assert_ne!(b.mode(), Mode::ProbeRtt);
        }
        let before = b.window();
        // ... then RTprop has expired: ProbeRTT, at 4 packets, its samples app-limited.
        now += ms(50);
        total += 50;
        b.on_ack(&ack(now, 50, 50, ms(55), 1000.0, total));
        assert_eq!(b.mode(), Mode::ProbeRtt);
        assert_eq!((b.window(), b.pacing_gain), (MIN_PIPE_CWND, 1.0));
        assert!(b.marks_app_limited());
        // Inflight reaches 4 packets: 200 ms and a round from now.
        now += ms(50);
        total += 46;
        b.on_ack(&ack(now, 46, 4, ms(50), 1000.0, total));
        let done = now + PROBE_RTT_DURATION;
        while now <= done {
            now += ms(50);
            total += 4;
            b.on_ack(&ack(now, 4, 4, ms(45), 80.0, total));
        }
        assert_eq!(
            b.mode(),
            Mode::ProbeBw,
            "back in ProbeBW, the pipe being full"
        );
        assert_eq!(b.rtprop, Some(ms(45)));
        // The window from before ProbeRTT (2 × 1000 × 50 ms + 6) restored, then bounded by
        // the target at the new RTprop: 2 × 1000 × 45 ms + 6.
        assert_close(before, 106.0, 1e-12);
        assert_close(b.window(), 96.0, 1e-12);
        // The ACK that ends ProbeRTT still marks its sends app-limited, the next does not.
        assert!(b.marks_app_limited());
        now += ms(50);
        b.on_ack(&ack(now, 4, 4, ms(45), 80.0, total + 4));
        assert!(!b.marks_app_limited());
    }

    #[test]
    fn fast_recovery_conserves_packets_for_a_round_and_restores_the_window() {
        let (mut b, mut now, mut total) = (bbr(1), SimTime::ZERO, 0);
        rounds(&mut b, &mut now, &mut total, &[1000.0; 5], 50);
        let before = b.window();
        // §4.2.3.4: the ACK before the loss left 30 in flight and delivered 50: cwnd = 80.
        now += ms(1);
        b.on_ack(&AckSample {
            delivery: None,
            ..ack(now, 50, 30, ms(50), 1000.0, total)
        });
        b.on_lost_packet(&LostPacket::default());
        b.on_loss(&LossEvent {
            now,
            kind: LossKind::Gap,
            ..LossEvent::default()
        });
        assert!(b.packet_conservation);
        assert_eq!(b.window(), (30 + 50) as f64);
        // An ACK in recovery: one loss less, but what it delivered may go (packet conservation).
        now += ms(1);
        b.on_ack(&AckSample {
            in_recovery: true,
            delivery: None,
            ..ack(now, 1, 60, ms(50), 1000.0, total)
        });
        assert_eq!(
            b.window(),
            79.0,
            "cwnd − 1 lost, at least in flight + delivered = 61"
        );
        // The end of recovery restores the window from before it.
        now += ms(50);
        total += 50;
        b.on_ack(&ack(now, 50, 60, ms(50), 1000.0, total));
        assert!(!b.packet_conservation);
        assert!(b.window() >= before);
    }

    /// Linux `bbr_set_cwnd_to_recover_or_restore` compares the transport's state with the last
    /// ACK's: a recovery that begins on the ACK that ends one (seen in recovery) goes on, the
    /// window neither cut to what is in flight nor restored.
    #[test]
    fn a_recovery_begun_on_the_ack_that_ends_one_goes_on() {
        let (mut b, mut now, mut total) = (bbr(1), SimTime::ZERO, 0);
        rounds(&mut b, &mut now, &mut total, &[1000.0; 5], 50);
        let gap = |b: &mut Bbr, now| {
            b.on_loss(&LossEvent {
                now,
                kind: LossKind::Gap,
                ..LossEvent::default()
            })
        };
        now += ms(1);
        b.on_ack(&AckSample {
            delivery: None,
            ..ack(now, 50, 30, ms(50), 1000.0, total)
        });
        gap(&mut b, now);
        assert_eq!(b.window(), 80.0);
        // A round of recovery later the window has grown back to the target, 106.
        for _ in 0..3 {
            now += ms(50);
            total += 50;
            b.on_ack(&AckSample {
                in_recovery: true,
                ..ack(now, 50, 50, ms(50), 1000.0, total)
            });
        }
        assert!(!b.packet_conservation);
        let grown = b.window();
        assert_close(grown, 106.0, 1e-12);
        // The ACK that ends it (still in recovery as the transport told it) begins the next.
        now += ms(1);
        total += 1;
        b.on_ack(&AckSample {
            in_recovery: true,
            ..ack(now, 1, 30, ms(50), 1000.0, total)
        });
        gap(&mut b, now);
        assert!(!b.packet_conservation);
        assert_eq!(b.window(), grown);
    }

    #[test]
    fn a_timeout_leaves_one_packet() {
        let (mut b, mut now, mut total) = (bbr(1), SimTime::ZERO, 0);
        rounds(&mut b, &mut now, &mut total, &[1000.0; 5], 50);
        for _ in 0..50 {
            b.on_lost_packet(&LostPacket::default());
        }
        b.on_loss(&LossEvent {
            now,
            kind: LossKind::Timeout,
            ..LossEvent::default()
        });
        assert_eq!(b.window(), 1.0);
        assert_eq!(b.rto_recovery_until, Some(total + 50));
    }

    /// The aggregation estimate fed by hand: `(now, acked)` ACKs at BtlBw 1000 packets/s with
    /// a window of 100 packets, none starting a round.
    fn aggregate(a: &mut AckAggregation, acks: &[(SimTime, u64)]) {
        for &(now, acked) in acks {
            a.update(now, acked, false, 1000.0, 100.0);
        }
    }

    #[test]
    fn extra_acked_counts_what_an_epoch_acks_beyond_btlbw_at_most_the_window() {
        // Linux tcp_bbr.c bbr_update_ack_aggregation at 1000 packets/s, so 1 packet per ms.
        let mut a = AckAggregation::default();
        // 2 at 0 ms opens an epoch (nothing ACKed in it yet); 2 more at 1 ms: 4 ACKed, 1
        // expected, 3 extra.
        aggregate(&mut a, &[(ms(0), 2), (ms(1), 2)]);
        assert_eq!((a.epoch_start, a.epoch_acked), (ms(0), 4));
        assert_close(a.extra_acked(), 3.0, 1e-12);
        // At 10 ms the epoch's 4 packets are below the 10 expected: a new epoch begins with
        // this ACK's 2; the maximum keeps 3.
        aggregate(&mut a, &[(ms(10), 2)]);
        assert_eq!((a.epoch_start, a.epoch_acked), (ms(10), 2));
        assert_close(a.extra_acked(), 3.0, 1e-12);
        // A burst of 20 at the same instant: 22 beyond the 0 expected.
        aggregate(&mut a, &[(ms(10), 20)]);
        assert_close(a.extra_acked(), 22.0, 1e-12);
        // 200 more: 222 extra, held to the window of 100 packets.
        aggregate(&mut a, &[(ms(10), 200)]);
        assert_close(a.extra_acked(), 100.0, 1e-12);
        // An ACK without newly delivered packets changes nothing.
        aggregate(&mut a, &[(ms(500), 0)]);
        assert_eq!((a.epoch_start, a.epoch_acked), (ms(10), 222));
        // An epoch that would reach 2^20 packets starts afresh.
        a.epoch_acked = ACK_EPOCH_RESET_PKTS - 1;
        aggregate(&mut a, &[(ms(11), 1)]);
        assert_eq!((a.epoch_start, a.epoch_acked), (ms(11), 1));
        // A restart from idle opens an epoch.
        a.restart(ms(20));
        assert_eq!((a.epoch_start, a.epoch_acked), (ms(20), 0));
    }

    #[test]
    fn extra_acked_is_the_maximum_of_two_five_round_slots() {
        // A 30-packet burst in round 0, then an ACK of one packet every 100 ms, each starting a
        // round and, slower than BtlBw, opening an epoch with 1 extra: slot 0 holds 30 until
        // round 5 moves to slot 1, and round 10 back to slot 0, which it empties. So a maximum
        // lasts 5-10 rounds (Linux tcp_bbr.c bbr_extra_acked).
        let mut a = AckAggregation::default();
        aggregate(&mut a, &[(ms(0), 30)]);
        let mut seen = vec![];
        for round in 1..=12u64 {
            a.update(ms(100 * round), 1, true, 1000.0, 100.0);
            seen.push(a.extra_acked());
        }
        let expected = [
            30.0, 30.0, 30.0, 30.0, 30.0, 30.0, 30.0, 30.0, 30.0, 1.0, 1.0, 1.0,
        ];
        assert_eq!(seen, expected);
        assert_eq!((a.slot, a.slot_rounds), (0, 2));
    }

    #[test]
    fn the_allowance_joins_the_target_once_the_pipe_is_full_at_most_100_ms_of_btlbw() {
        // One ACK a 50 ms round for all 50 packets of the round at 1000 packets/s: each ACK is
        // a whole round's burst, 50 packets beyond the 0 expected of the epoch it opens.
        let mut b = Bbr::with_linux(
            CWND_GAIN,
            BbrLinuxParts {
                ack_aggregation: true,
                ..BbrLinuxParts::default()
            },
            WindowConfig {
                initial_window: 10.0,
                ..WindowConfig::default()
            },
            rng(),
        );
        let (mut now, mut total) = (SimTime::ZERO, 0);
        rounds(&mut b, &mut now, &mut total, &[1000.0; 3], 50);
        assert!(!b.filled_pipe);
        assert_eq!(b.ack_aggregation_cwnd(), 0.0, "none in Startup");
        assert_close(b.aggregation.as_ref().unwrap().extra_acked(), 50.0, 1e-9);
        rounds(&mut b, &mut now, &mut total, &[1000.0; 2], 50);
        assert_eq!(b.mode(), Mode::ProbeBw);
        // §4.2.3.2's 2 × 50 + 3 × 2 packets, plus the 50 (under 1000 × 100 ms = 100).
        assert_close(b.target_cwnd, 106.0 + 50.0, 1e-9);
        let mut state = vec![];
        b.state(&mut state);
        assert!(state.contains(&(
            "extra_acked_pkts",
            b.aggregation.as_ref().unwrap().extra_acked()
        )));
        // A larger maximum is held to 100 ms at BtlBw.
        b.aggregation.as_mut().unwrap().extra_acked = [300.0, 0.0];
        assert_close(b.ack_aggregation_cwnd(), 100.0, 1e-9);
        // Off, the same feedback leaves the draft's target and no state field.
        let (mut off, mut now, mut total) = (bbr(1), SimTime::ZERO, 0);
        rounds(&mut off, &mut now, &mut total, &[1000.0; 5], 50);
        assert_close(off.target_cwnd, 106.0, 1e-9);
        let mut state = vec![];
        off.state(&mut state);
        assert!(state.iter().all(|(name, _)| *name != "extra_acked_pkts"));
    }

    #[test]
    fn named_in_notation() {
        assert_eq!(bbr(1).name(), "BBR");
        let b = Bbr::new(3.0, WindowConfig::default(), rng());
        assert_eq!(b.name(), "BBR(3)");
        let linux = |ack_aggregation, quantization| {
            Bbr::with_linux(
                2.0,
                BbrLinuxParts {
                    ack_aggregation,
                    quantization,
                    ..BbrLinuxParts::default()
                },
                WindowConfig::default(),
                rng(),
            )
            .name()
        };
        assert_eq!(linux(true, false), "BBR(2,1)");
        assert_eq!(linux(false, true), "BBR(2,0,1)");
        assert_eq!(linux(true, true), "BBR(2,1,1)");
        let strict = BbrLinuxParts {
            strict_min_rtt: true,
            ..BbrLinuxParts::default()
        };
        let b = Bbr::with_linux(2.0, strict, WindowConfig::default(), rng());
        assert_eq!(b.name(), "BBR(2,0,0,1)");
    }

    #[test]
    fn a_sample_equal_to_rtprop_refreshes_it_in_the_draft_and_not_in_linux() {
        for strict_min_rtt in [false, true] {
            let linux = BbrLinuxParts {
                strict_min_rtt,
                ..BbrLinuxParts::default()
            };
            let mut b = Bbr::with_linux(CWND_GAIN, linux, WindowConfig::default(), rng());
            let rtt = SimTime::from_ms(50);
            b.update_rtprop(SimTime::from_ms(50), Some(rtt));
            b.update_rtprop(SimTime::from_ms(5000), Some(rtt));
            let stamp = if strict_min_rtt { 50 } else { 5000 };
            assert_eq!(b.rtprop_stamp, SimTime::from_ms(stamp), "{strict_min_rtt}");
            // Below it, or once 10 s old, either takes the sample.
            b.update_rtprop(SimTime::from_ms(6000), Some(SimTime::from_ms(49)));
            assert_eq!(b.rtprop_stamp, SimTime::from_ms(6000));
            b.update_rtprop(SimTime::from_ms(17000), Some(SimTime::from_ms(60)));
            assert_eq!(b.rtprop, Some(SimTime::from_ms(60)));
        }
    }

    proptest! {
        /// Whatever the feedback, the window stays finite and at least one packet, the pace
        /// finite and positive, and the state machine moves only along its transitions (a
        /// debug assertion in `enter`).
        #[test]
        fn any_feedback_keeps_the_invariants(
            gain in 1.0..10.0f64,
            ack_aggregation in any::<bool>(),
            quantization in any::<bool>(),
            strict_min_rtt in any::<bool>(),
            seed in any::<u64>(),
            ops in ops(),
        ) {
            let b = Bbr::with_linux(
                gain,
                BbrLinuxParts { ack_aggregation, quantization, strict_min_rtt },
                WindowConfig::default(),
                crate::rng::Rng::seed_from_u64(seed),
            );
            Driver::started(b).run_checked(&ops);
        }
    }
}
