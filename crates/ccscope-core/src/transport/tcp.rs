//! TCP in the packet engine: Reno, NewReno and SACK loss recovery in the manner of ns-2's
//! one-way agents (`Agent/TCP/Reno`, `/Newreno`, `/Sack1` in `tcp/tcp-reno.cc`,
//! `tcp-newreno.cc`, `tcp-sack1.cc`; SACK recovery follows RFC 6675's scoreboard and pipe, the
//! conservative form of Sack1), with the congestion window supplied by any window controller
//! from the catalogue (TCP itself is AIMD(1, 1/2)).
//!
//! The sender sends only data its application offered ([`crate::apps`]): a bulk transfer by
//! default, a finite one when `transfer_pkts` is set. It takes new data from the application's
//! buffer when the window opens, keeps each packet's size and tag until it is acknowledged
//! (retransmissions carry the same), and tells the application of sent and acknowledged data.
//! With nothing to send it waits, window unchanged (no RFC 2861 window validation), until the
//! application offers more. The receiver delivers data to its application in order.
//!
//! Sequence numbers count packets from 0. The receiver acknowledges cumulatively (`ack` = next
//! packet expected) and reports up to three SACK blocks. What the transport owns: sequence
//! state, duplicate-ACK counting, fast retransmit and recovery, the retransmission timer
//! (RFC 6298 with a clock tick, minimum, initial value and exponential backoff), ECN echo
//! handling, the detection of spurious retransmissions (Eifel, RFC 3522), pacing at the rate a
//! controller gives, and, for controllers that ask, delivery-rate samples
//! (draft-cheng-iccrg-delivery-rate-estimation). What the controller owns: the congestion
//! window and its response to ACKs, losses, timeouts and marks, and the pacing rate.
//!
//! Header fields (see [`crate::net::packet::Header`]):
//! - data: `seq`; `stamp` = send time; flag [`RETX`] on retransmissions.
//! - ACK: `ack` = next expected; `echo` = send time of the packet that triggered the ACK; flags
//!   [`ECE`] (that packet carried a CE mark) and [`RETX`] (it was a retransmission: no RTT
//!   sample, Karn's rule); `blocks` = up to three SACK blocks as `[start, end)` pairs.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::fmt;
use std::sync::Arc;

use rand::Rng as _;

use crate::apps::TransportView;
use crate::apps::{Bulk, Chunk, Delivery, Finite, Inbox, Outbox, ReceiveApp, SendApp, Sink};
use crate::control::catalog::ControllerChoice;
use crate::control::{AckSample, Controller, LossEvent, LossKind, WindowConfig};
use crate::net::packet::{Ecn, Packet};
use crate::net::trace::{Probe, StateFields};
use crate::net::{Ctx, Endpoint, Stat};
use crate::time::{ceil_nonneg, OptTime, SimTime};
use crate::transport::arm_wakeup;
use crate::transport::delivery::DeliveryRate;
use crate::transport::ranges::SeqRanges;

/// ACK flag: the acknowledged packet carried a congestion mark (RFC 3168 ECN-Echo).
pub const ECE: u32 = 1;
/// Data flag: retransmission. ACK flag: the packet that triggered the ACK was one.
pub const RETX: u32 = 2;
/// The connection's SYN, and the receiver's ACK of it ([`Handshake`]).
pub const SYN: u32 = 4;

// Each endpoint has its own timers: the sender's retransmission timer and the receiver's
// delayed ACK share a number.
/// The sender's retransmission timer.
const RTO_TIMER: usize = 0;
/// The receiver's delayed ACK.
const DELACK_TIMER: usize = 0;
/// The sender's delayed send: ns-2's `delsnd_timer_` (with `overhead_`), or the pace.
const SEND_TIMER: usize = 1;
/// The sender's application's wake-ups.
const APP_TIMER: usize = 2;
/// The controller's wake-ups ([`Controller::wakeup`]).
const WAKE_TIMER: usize = 3;
/// The receiver's application's wake-ups.
const RECV_APP_TIMER: usize = 1;
/// Duplicate ACKs that trigger fast retransmit (ns-2 `numdupacks_`).
const DUPACK_THRESHOLD: u32 = 3;
/// SACK blocks an ACK carries.
const SACK_BLOCKS: usize = 3;

/// The pacing rate (bits/s) a controller gives, when it gives a usable one.
fn pace(ctl: &dyn Controller) -> Option<f64> {
    ctl.pacing_rate_bps().filter(|r| r.is_finite() && *r > 0.0)
}

/// Loss recovery flavour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    /// Fast retransmit and fast recovery; any new ACK ends recovery.
    Reno,
    /// Partial ACKs retransmit the next hole and keep recovery going (RFC 6582).
    NewReno,
    /// SACK scoreboard; in recovery send while the pipe estimate is below cwnd (RFC 6675).
    Sack,
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Variant::Reno => "Reno",
            Variant::NewReno => "NewReno",
            Variant::Sack => "SACK",
        })
    }
}

/// A TCP flow's configuration in the engine's units. Its values come from the scenario
/// (`scenario::packet::Tcp`, where the defaults are declared, after ns-2.35) and are taken as
/// they are: the scenario checked them. `TcpSpec::default()` is the scenario's default TCP
/// source (see `build`).
#[derive(Clone, Debug, PartialEq)]
pub struct TcpSpec {
    pub variant: Variant,
    /// The window controller, resolved from the catalogue when the scenario was built, or one
    /// supplied from outside it.
    pub controller: ControllerChoice,
    /// Data packet size on the wire (bytes).
    pub packet_bytes: u32,
    pub ack_bytes: u32,
    /// Receiver (advertised) window: the most packets outstanding (ns-2 `window_`).
    pub max_window_pkts: f64,
    /// Congestion window at the start (ns-2 `windowInit_`).
    pub initial_window_pkts: f64,
    pub min_rto_ns: u64,
    /// RTO before the first RTT sample (ns-2 `rtxcur_init_`; RFC 6298 says 1 s).
    pub initial_rto_ns: u64,
    pub max_rto_ns: u64,
    /// Clock granularity G of RFC 6298 (ns-2 `tcpTick_`).
    pub tick_ns: u64,
    /// Largest backoff multiplier of the RTO ([`MAX_BACKOFF`]: none below `max_rto_ns`, RFC
    /// 6298 §5.5).
    pub max_backoff: u32,
    /// Which ACKs give RTT samples.
    pub rtt_samples: RttSamples,
    /// Once the backoff multiplier exceeds this, SRTT and RTTVAR start afresh with the next
    /// sample (RFC 6298 §5; ns-2.35 `rtt_backoff()`: 8); `u32::MAX`: never.
    pub forget_rtt_above_backoff: u32,
    /// ns-2.35's RTT estimator: samples in whole ticks, SRTT and RTTVAR in fixed point (see
    /// [`RtoEstimator::sample_ns2`]); else RFC 6298's in floating point.
    pub ns2_rtt: bool,
    /// Every ACK restarts the retransmission timer, duplicates included (ns-2.35's TCP/Linux);
    /// else an ACK of new data (RFC 6298 §5.3).
    pub rto_every_ack: bool,
    /// Send one new packet on each of the first two duplicate ACKs (RFC 3042; ns-2 `singledup_`).
    pub limited_transmit: bool,
    /// Delayed ACKs: every second packet, or after `delack_ns` (ns-2 `TCPSink/DelAck`).
    pub delayed_ack: bool,
    pub delack_ns: u64,
    /// With delayed ACKs, a packet that fills the last hole is acknowledged at once (RFC 5681
    /// §4.2; Linux net/ipv4/tcp_input.c `tcp_data_queue`, `ICSK_ACK_NOW`).
    pub ack_filled_hole: bool,
    /// The window grows a step per packet acknowledged (RFC 3465; Linux), not per ACK
    /// ([`AckSample::growth_pkts`]).
    pub growth_per_packet: bool,
    /// Packets to transfer; `None` is a bulk (FTP-like) transfer that never ends.
    pub transfer_pkts: Option<u64>,
    /// Window reductions leave whole packets, as real stacks do (Cai et al. §III-C).
    pub integer_window: bool,
    /// ssthresh in whole packets, at least 2, as ns-2.35's `slowdown()` keeps its integer
    /// `ssthresh_` (see [`WindowConfig::whole_ssthresh`]).
    pub whole_ssthresh: bool,
    /// With `integer_window`: reductions cut from the whole-packet window, ⌊β·⌊cwnd⌋⌋, as
    /// ns-2.35's `slowdown()` with `precisionReduce_` false (see
    /// [`WindowConfig::cut_from_whole_window`]).
    pub cut_from_whole_window: bool,
    /// SACK: SACKed packets above a hole that make it lost (RFC 6675 IsLost: DupThresh, 3);
    /// ns-2.35's Sack1 retransmits any hole below a SACKed packet (`scoreboard-rq.cc`
    /// `GetNextRetran`), which is 1.
    pub sack_lost_after: u32,
    /// SACK: the pipe of a recovery is ns-2.35 Sack1's counter `pipe_` (`tcp-sack1.cc`): the
    /// packets outstanding less DupThresh at the fast retransmit, one less per ACK (two for a
    /// partial ACK), one more per packet sent after the fast retransmit; else RFC 6675 SetPipe.
    pub sack_pipe_counter: bool,
    /// SACK: a timeout's go-back-N resends the packets the receiver reports holding, with
    /// ns-2.35 Sack1's scoreboard (`tcp-sack1.cc` `recv()`, `timeout()`): blocks read from
    /// duplicate ACKs and the ACKs of a recovery only, none from a timeout to the next new ACK,
    /// emptied by each new ACK outside a recovery; a duplicate ACK outside a recovery counts
    /// only if it SACKs a packet not yet SACKed. Else RFC 6675 §5.1 (SACKed packets skipped).
    /// For [`Variant::Sack`] only: Reno and NewReno ignore it.
    pub sack_go_back_n: bool,
    /// SACK: a timeout keeps the scoreboard, so that its go-back-N skips the packets the
    /// receiver reported holding before it, as Linux does unless it detects reneging
    /// (net/ipv4/tcp_input.c `tcp_timeout_mark_lost`; RFC 6675 §5.1 notes the practice). Else
    /// the scoreboard is emptied (RFC 2018 §8) and refilled from the ACKs that follow. Not with
    /// [`Self::sack_go_back_n`]; for [`Variant::Sack`] only.
    pub sack_kept_at_timeout: bool,
    /// SACK: a packet retransmitted in a recovery is lost again once a packet sent after it is
    /// delivered, and is retransmitted once more (RFC 8985 §6.2 for retransmissions, with the
    /// reordering window of 0 that Linux uses in a recovery while it has seen no reordering:
    /// net/ipv4/tcp_recovery.c `tcp_rack_detect_loss`, `tcp_rack_reo_wnd`). Else only a
    /// timeout finds it. With the scoreboard's pipe only.
    pub rack_lost_retransmissions: bool,
    /// SACK: a recovery also begins on any ACK after which the first unacknowledged packet is
    /// lost by RFC 6675 IsLost, the one that ends a recovery included (RFC 6675 §5 step 2;
    /// Linux net/ipv4/tcp_input.c `tcp_time_to_recover` while `lost_out`). Else only the
    /// DupThresh-th duplicate ACK begins one (RFC 5681 §3.2, ns-2.35).
    pub recovery_on_lost: bool,
    /// SACK: a recovery sends by Proportional Rate Reduction (RFC 6937; Linux
    /// net/ipv4/tcp_input.c `tcp_cwnd_reduction`), not whenever the pipe is below the window.
    pub prr: bool,
    /// Packets past the recovery point the cumulative ACK must reach before another fast
    /// retransmit or ECN response (0: RFC 6582 §3.2 step 1; ns-2.35 `dupack_action()`: 1).
    pub recover_margin: u32,
    /// Send jitter (ns-2 `overhead_`, `tcp.cc` `send_much`): when the window lets packets go,
    /// they wait a uniform draw in [0, overhead) from the sender's own random stream and then
    /// leave together; 0 sends at once.
    pub overhead_ns: u64,
    /// A SYN exchange before the data, as ns-2.35 models one (`syn_` and `delay_growth_`, see
    /// [`Handshake`]).
    pub syn: bool,
}

/// Which ACKs give a TCP sender its RTT samples (the scenario's `rtt_timing`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RttSamples {
    /// Every ACK of a packet sent once.
    #[default]
    EveryAck,
    /// One packet timed at a time (ns-2.35 without timestamps).
    OnePerRtt,
    /// TCP timestamps as Linux uses them: the ACK of a retransmission gives a sample too, and
    /// so does a duplicate ACK that SACKs new data.
    Timestamps,
}

impl TcpSpec {
    /// How the window controller starts: slow start from the initial window, whole-packet
    /// reductions unless asked otherwise.
    pub fn window_config(&self) -> WindowConfig {
        WindowConfig {
            initial_window: self.initial_window_pkts,
            slow_start: true,
            integer: self.integer_window,
            whole_ssthresh: self.whole_ssthresh,
            cut_from_whole_window: self.cut_from_whole_window,
        }
    }
}

/// The backoff multiplier a scenario without `max_backoff` stops at: the scenario's largest
/// `max_backoff`; from the 200 ms minimum RTO it is far above any `max_rto`.
pub const MAX_BACKOFF: u32 = 1 << 16;

/// [`RtoEstimator::timed`] when no packet is timed.
const NOT_TIMED: u64 = u64::MAX;

/// RTT estimation and the retransmission timeout (RFC 6298; ns-2 `tcp/tcp.cc` `rtt_update()`,
/// `rtt_timeout()`, `rtt_backoff()`), within its [`RtoLimits`].
#[derive(Clone, Debug)]
struct RtoEstimator {
    /// Smoothed RTT (s); meaningful once there is a sample (`samples` > 0). With ns-2.35's
    /// estimator a whole number of 1/8 ticks.
    srtt: f64,
    /// RTT variation (s); with ns-2.35's estimator a whole number of 1/4 ticks.
    rttvar: f64,
    backoff: u32,
    /// SRTT and RTTVAR were forgotten after a long backoff: the next sample starts them as the
    /// first one does (RFC 6298 §5, §2.2).
    forgotten: bool,
    /// With ns-2.35's estimator: where the flow's clock ticks fall, in 1/65536 of a tick after
    /// the run's tick boundaries (ns-2's `boot_time_`, drawn uniform in a tick when the agent
    /// starts, `tcp.cc` `reset()`).
    phase: u16,
    /// A timeout came and no new ACK since (ns-2 Sack1's `timeout_`); kept here, in the room
    /// `phase` leaves, rather than in the sender.
    timed_out: bool,
    /// With one packet timed at a time: the packet being timed ([`NOT_TIMED`]: none). It is new
    /// data and timing stops when it is sent again, so the sender's record of when it left is
    /// its only send.
    timed: u64,
    /// RTO before backoff (s).
    base: f64,
    samples: u64,
    sample_sum: f64,
    /// The smallest sample (s); meaningful once there is one.
    min: f64,
    /// The smallest sample as a time, converted when it falls rather than for every ACK's
    /// controller sample; meaningful once there is one.
    min_ns: SimTime,
}

/// The timeout's bounds, clock tick and most backoff, from the [`TcpSpec`].
#[derive(Clone, Copy, Debug, PartialEq)]
struct RtoLimits {
    min: f64,
    max: f64,
    tick: f64,
    max_backoff: u32,
    samples: RttSamples,
    forget_above: u32,
    /// ns-2.35's estimator ([`TcpSpec::ns2_rtt`]), counting in ticks of `tick_ns`.
    ns2: bool,
    tick_ns: u64,
}

impl RtoEstimator {
    fn new(spec: &TcpSpec) -> Self {
        RtoEstimator {
            srtt: 0.0,
            rttvar: 0.0,
            backoff: 1,
            forgotten: false,
            phase: 0,
            timed_out: false,
            timed: NOT_TIMED,
            base: spec.initial_rto_ns as f64 * 1e-9,
            samples: 0,
            sample_sum: 0.0,
            min: f64::INFINITY,
            min_ns: SimTime::ZERO,
        }
    }

    /// The smoothed RTT (s); none before the first sample.
    fn srtt(&self) -> Option<f64> {
        (self.samples > 0).then_some(self.srtt)
    }

    /// An RTT sample: a packet sent at `sent` acknowledged at `now`.
    fn measure(&mut self, sent: SimTime, now: SimTime, limits: &RtoLimits) {
        let r = (now - sent).secs();
        if limits.ns2 {
            self.sample_ns2(ns2_ticks(sent, now, self.phase, limits), r, limits);
        } else {
            self.sample(r, limits);
        }
    }

    /// RFC 6298's estimator, with sample `r` (s).
    fn sample(&mut self, r: f64, limits: &RtoLimits) {
        match self.srtt().filter(|_| !std::mem::take(&mut self.forgotten)) {
            // RFC 6298 §2.2.
            None => {
                self.srtt = r;
                self.rttvar = r / 2.0;
            }
            // RFC 6298 §2.3: RTTVAR first, with the old SRTT; alpha = 1/8, beta = 1/4.
            Some(s) => {
                self.rttvar = 0.75 * self.rttvar + 0.25 * (s - r).abs();
                self.srtt = 0.875 * s + 0.125 * r;
            }
        }
        let s = self.srtt;
        // RFC 6298 §2.3: RTO = SRTT + max(G, 4 RTTVAR), rounded up to whole ticks; §2.4 minimum.
        let tick = limits.tick;
        let mut rto = s + (4.0 * self.rttvar).max(tick);
        if tick > 0.0 {
            rto = ceil_nonneg(rto / tick) * tick;
        }
        self.base = rto.clamp(limits.min, limits.max);
        self.sampled(r);
    }

    /// ns-2.35's estimator (`tcp.cc` `rtt_update()` with its defaults `T_SRTT_BITS` 3,
    /// `T_RTTVAR_BITS` 2, `rttvar_exp_` 2), with a sample of `m` ticks (`t_rtt_`, at least 1)
    /// and `r` seconds. SRTT is kept in eighths of a tick and RTTVAR in quarters, integers whose
    /// whole-tick parts are taken by truncation: SRTT += m - trunc(SRTT), RTTVAR += |m -
    /// trunc(SRTT)| - trunc(RTTVAR) (scaled, so the gains are 1/8 and 1/4), neither below one
    /// unit; the first sample (or the first after SRTT was forgotten) sets SRTT = m, RTTVAR = m/2.
    /// The RTO (`t_rtxcur_`) is trunc(SRTT + 4 RTTVAR) ticks, then `rtt_timeout()`'s bounds:
    /// `minrto_` before the backoff, `maxrto_` after it. (Its floor of two ticks never binds:
    /// SRTT stays at least one tick and RTTVAR at least a quarter.)
    fn sample_ns2(&mut self, m: u64, r: f64, limits: &RtoLimits) {
        // Far above any run (2^40 ticks), and keeps the shifts below from overflowing.
        let m = m.min(1 << 40) as i64;
        let tick = limits.tick;
        let (srtt8, rttvar4) = match self.srtt().filter(|_| !std::mem::take(&mut self.forgotten)) {
            None => (m << 3, m << 1),
            Some(s) => {
                let srtt8 = (s / tick * 8.0).round() as i64;
                let rttvar4 = (self.rttvar / tick * 4.0).round() as i64;
                let delta = m - (srtt8 >> 3);
                let rttvar4 = rttvar4 + delta.abs() - (rttvar4 >> 2);
                ((srtt8 + delta).max(1), rttvar4.max(1))
            }
        };
        self.srtt = srtt8 as f64 / 8.0 * tick;
        self.rttvar = rttvar4 as f64 / 4.0 * tick;
        let rto_ticks = ((rttvar4 << 3) + srtt8) >> 3;
        self.base = (rto_ticks as f64 * tick).clamp(limits.min, limits.max);
        self.sampled(r);
    }

    /// What any sample does besides smoothing: the backoff ends (Karn), the sample is counted.
    fn sampled(&mut self, r: f64) {
        self.backoff = 1;
        self.samples += 1;
        self.sample_sum += r;
        if r < self.min {
            self.min = r;
            self.min_ns = SimTime::from_secs_f64(r);
        }
    }

    /// Draws the phase of the flow's clock for ns-2.35's estimator (its `boot_time_`).
    fn start(&mut self, limits: &RtoLimits, rng: &mut crate::rng::Rng) {
        if limits.ns2 {
            self.phase = rng.gen();
        }
    }

    /// The smallest RTT sample; none before the first.
    fn min_rtt(&self) -> Option<SimTime> {
        (self.samples > 0).then_some(self.min_ns)
    }

    /// The current timeout, backed off (RFC 6298 §5.5), at most `max`.
    fn timeout(&self, limits: &RtoLimits) -> f64 {
        (self.base * self.backoff as f64).min(limits.max)
    }

    /// A timeout: the RTO doubles (RFC 6298 §5.5) unless it is at `max` or the multiplier at
    /// its cap; timing stops (Karn: what is sent next is a retransmission).
    fn back_off(&mut self, limits: &RtoLimits) {
        if self.backoff < limits.max_backoff && self.timeout(limits) < limits.max {
            self.backoff *= 2;
        }
        self.forgotten |= self.backoff > limits.forget_above;
        self.timed = NOT_TIMED;
    }

    /// With one packet timed at a time: packet `seq` of new data leaves; it is timed unless
    /// another one is (ns-2.35 `tcp.cc` `output()`).
    fn sent_new(&mut self, seq: u64, limits: &RtoLimits) {
        if limits.samples == RttSamples::OnePerRtt && self.timed == NOT_TIMED {
            self.timed = seq;
        }
    }

    /// With one packet timed at a time: the timed packet, when an ACK for everything below
    /// `ack` covers it (its timing then ends).
    fn timed_acked(&mut self, ack: u64) -> Option<u64> {
        let seq = self.timed;
        (seq < ack).then(|| std::mem::replace(&mut self.timed, NOT_TIMED))
    }

    /// Stops timing (ns-2.35 at a fast retransmit, `reset_rtx_timer(1, 0)`; Karn's rule when
    /// the timed packet itself is sent again).
    fn stop_timing(&mut self) {
        self.timed = NOT_TIMED;
    }
}

/// An RTT sample in ticks as ns-2.35 takes it (`tcp.cc` `rtt_update()`, at least 1): with one
/// packet timed at a time, the boundaries of the flow's clock (ticks of `limits.tick_ns`,
/// shifted by `phase`/65536 of a tick) between `sent` and `now`; with every ACK timed (ns-2's
/// `timestamps_`), the sample rounded to the nearest tick.
fn ns2_ticks(sent: SimTime, now: SimTime, phase: u16, limits: &RtoLimits) -> u64 {
    let tick = limits.tick_ns;
    let ticks = if limits.samples == RttSamples::OnePerRtt {
        let shift = ((u128::from(phase) * u128::from(tick)) >> 16) as u64;
        (now.0.saturating_add(shift) / tick).saturating_sub(sent.0.saturating_add(shift) / tick)
    } else {
        ((u128::from((now - sent).0) * 2 + u128::from(tick)) / (2 * u128::from(tick))) as u64
    };
    ticks.max(1)
}

/// Where a sender that starts with a SYN exchange ([`TcpSpec::syn`]) stands, as ns-2.35 models
/// one (`syn_` and `delay_growth_` true, its defaults): the first packet is a header-only SYN;
/// the window lets nothing else go until its ACK (ns-2's `cwnd_` is 1, `set_initial_window()`),
/// and that ACK opens the window at the initial one (`tcp-sack1.cc` `recv()`: `cwnd_ =
/// initial_window()` on the ACK of packet 0). The SYN is timed for the first RTT sample. A
/// timeout resends it: ns-2.35's `timeout()` at its window of 1 (`slowdown(CLOSE_SSTHRESH_HALF |
/// CLOSE_CWND_RESTART)`: ssthresh 2, window 1, and `bugfix_ss_` makes the initial window 1), which
/// the controller's timeout gives here. The controller sees neither the SYN nor its ACK but for
/// that timeout.
///
/// ns-2 gives the SYN packet number 0 and the data the numbers after it; here the SYN stands
/// outside the data's numbers (the receiver answers it without counting it as data).
///
/// One byte: a SYN sent again is one sent after a timeout (the sender's timeouts before the
/// exchange ends are the SYN's).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Handshake {
    /// No SYN exchange, or it is over: data flows.
    Open,
    /// The SYN is to be sent.
    Due,
    /// The SYN left and its ACK has not come.
    Sent,
}

/// Counters a sender reports.
#[derive(Clone, Copy, Debug, Default)]
struct SenderStats {
    timeouts: u64,
    fast_retransmits: u64,
    retransmits: u64,
    ecn_reductions: u64,
}

/// The application data of the packets sent and not yet acknowledged, run-length coded:
/// runs of consecutive packets carrying equal chunks (bulk data is one run), front = `snd_una`.
#[derive(Clone, Debug, Default)]
struct Chunks {
    runs: VecDeque<(u64, Chunk)>,
}

impl Chunks {
    /// Appends the chunk of the next packet.
    #[inline]
    fn push(&mut self, chunk: Chunk) {
        match self.runs.back_mut() {
            Some((n, c)) if *c == chunk => *n += 1,
            _ => {
                // Room for one run at first, not a deque's least of four (later growth
                // doubles as usual): bulk data is one run.
                if self.runs.capacity() == 0 {
                    self.runs.reserve_exact(1);
                }
                self.runs.push_back((1, chunk));
            }
        }
    }

    /// The chunk of the `i`-th packet from the front.
    fn get(&self, mut i: u64) -> Option<Chunk> {
        for &(n, c) in &self.runs {
            if i < n {
                return Some(c);
            }
            i -= n;
        }
        None
    }

    /// Forgets the first `k` packets; returns their bytes.
    #[inline]
    fn drop_front(&mut self, mut k: u64) -> u64 {
        let mut bytes = 0;
        while k > 0 {
            let Some((n, c)) = self.runs.front_mut() else {
                break;
            };
            if *n > k {
                *n -= k;
                bytes += k * u64::from(c.bytes);
                break;
            }
            k -= *n;
            bytes += *n * u64::from(c.bytes);
            self.runs.pop_front();
        }
        bytes
    }
}

/// What a sender reads of its [`TcpSpec`] once it runs (the rest went into its estimator and
/// controller). Senders with equal settings share one copy ([`SenderSettings::shared`]).
#[derive(Clone, Copy, Debug, PartialEq)]
struct SenderSettings {
    variant: Variant,
    limited_transmit: bool,
    growth_per_packet: bool,
    packet_bytes: u32,
    /// The SYN's size: header only, an ACK's.
    syn_bytes: u32,
    sack_lost_after: u32,
    sack_pipe_counter: bool,
    sack_go_back_n: bool,
    sack_kept_at_timeout: bool,
    rack_lost_retransmissions: bool,
    recovery_on_lost: bool,
    prr: bool,
    rto_every_ack: bool,
    recover_margin: u32,
    max_window_pkts: f64,
    overhead_ns: u64,
    rto: RtoLimits,
}

impl SenderSettings {
    /// The settings of `spec`: the very copy the last sender built on this thread has when
    /// they are equal, as for every flow of one scenario entry. A copy a flow would cost 64
    /// bytes of every flow's sender, 640 kB at ten thousand flows.
    fn shared(spec: &TcpSpec) -> Arc<SenderSettings> {
        thread_local! {
            static LAST: RefCell<Option<Arc<SenderSettings>>> = const { RefCell::new(None) };
        }
        let settings = SenderSettings {
            variant: spec.variant,
            limited_transmit: spec.limited_transmit,
            growth_per_packet: spec.growth_per_packet,
            packet_bytes: spec.packet_bytes,
            syn_bytes: spec.ack_bytes,
            sack_lost_after: spec.sack_lost_after,
            sack_pipe_counter: spec.sack_pipe_counter,
            // A sender without SACK blocks has no scoreboard to keep as Sack1 does.
            sack_go_back_n: spec.sack_go_back_n && spec.variant == Variant::Sack,
            sack_kept_at_timeout: spec.sack_kept_at_timeout && spec.variant == Variant::Sack,
            rack_lost_retransmissions: spec.rack_lost_retransmissions
                && spec.variant == Variant::Sack
                && !spec.sack_pipe_counter,
            recovery_on_lost: spec.recovery_on_lost && spec.variant == Variant::Sack,
            prr: spec.prr,
            rto_every_ack: spec.rto_every_ack,
            recover_margin: spec.recover_margin,
            max_window_pkts: spec.max_window_pkts,
            overhead_ns: spec.overhead_ns,
            rto: RtoLimits {
                min: spec.min_rto_ns as f64 * 1e-9,
                max: spec.max_rto_ns as f64 * 1e-9,
                tick: spec.tick_ns as f64 * 1e-9,
                max_backoff: spec.max_backoff,
                samples: spec.rtt_samples,
                forget_above: spec.forget_rtt_above_backoff,
                ns2: spec.ns2_rtt,
                tick_ns: spec.tick_ns,
            },
        };
        LAST.with_borrow_mut(|last| match last {
            Some(same) if **same == settings => Arc::clone(same),
            _ => Arc::clone(last.insert(Arc::new(settings))),
        })
    }
}

/// A sender's last window reduction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Cut {
    None,
    /// A gap, an ECN mark, or (for ns-2.35's count) a SYN's timeout.
    Signal,
    /// A retransmission timeout of the data.
    Timeout,
}

/// The sending side of a TCP connection.
pub struct TcpSender {
    spec: Arc<SenderSettings>,
    ctl: Box<dyn Controller>,
    rto: RtoEstimator,
    /// Lowest unacknowledged packet.
    snd_una: u64,
    /// Next packet to send (below `snd_max` after a timeout's go-back-N).
    snd_nxt: u64,
    /// One past the highest packet ever sent.
    snd_max: u64,
    /// `snd_max` at the last window reduction; no new reduction until `snd_una` passes it.
    recover: u64,
    /// The last window reduction, if any.
    last_cut: Cut,
    in_recovery: bool,
    /// A gap or timeout reduction retransmitted `snd_una`; the ACK that first covers it says
    /// whether the retransmission was needed (Eifel detection, RFC 3522 §3.2).
    undo_armed: bool,
    /// The SYN exchange before the data, if the spec asks for one.
    handshake: Handshake,
    dupacks: u32,
    /// In a recovery, Reno/NewReno's window inflation (packets), or with
    /// [`TcpSpec::sack_pipe_counter`] SACK's pipe as ns-2.35 Sack1 counts it (`pipe_`, a whole
    /// number of packets, may be negative); 0 outside recovery. One field: a sender pays for
    /// one of the two.
    dupwnd: f64,
    /// SACK scoreboard: packets above `snd_una` the receiver holds.
    sacked: SeqRanges,
    /// SACK: the packets retransmitted in this recovery that the receiver has not reported
    /// since, in order: RFC 6675 SetPipe counts them once more. Kept apart from `sacked`, the
    /// pipe needs their number, not a merge of the two sets.
    rexmitted: Vec<u64>,
    /// SACK: where the search for the next hole to retransmit starts.
    rxt_next: u64,
    /// When each packet from `snd_una` to `snd_max` was last sent (front = `snd_una`).
    outstanding: VecDeque<SimTime>,
    /// The application data of the same packets.
    chunks: Chunks,
    /// When the application's data, once it closed it, was all acknowledged.
    completed: OptTime,
    /// The application and the data it offered and the sender has not taken yet.
    outbox: Outbox,
    stats: SenderStats,
    /// What only some controllers need (boxed: the others pay 8 bytes).
    extras: Option<Box<Extras>>,
}

/// The sender's state for controllers that pace or take delivery-rate samples.
#[derive(Debug, Default)]
struct Extras {
    /// The earliest time the next packet may leave at the controller's pacing rate.
    next_send: SimTime,
    /// The delivery-rate estimator, for a controller that wants samples.
    delivery: Option<DeliveryRate>,
    /// SACK: the holes below this packet have been marked lost (RFC 6675 IsLost) since they
    /// were last sent; the next ACK marks from here.
    lost_mark: u64,
    /// With [`TcpSpec::prr`], the recovery's Proportional Rate Reduction.
    prr: Prr,
    /// With [`TcpSpec::rack_lost_retransmissions`], the send time and number of the packet
    /// sent last among those delivered so far (RFC 8985's RACK.xmit_ts and RACK.end_seq).
    rack: Option<(SimTime, u64)>,
    /// After a timeout that kept the scoreboard, the packets below this one not SACKed are
    /// lost: all but those sent within the last round trip ([`TcpSender::on_timeout`]), until
    /// a packet sent after the timeout, at `timeout_at`, is delivered.
    timeout_lost_below: u64,
    timeout_at: SimTime,
}

/// Proportional Rate Reduction's counts in one recovery (RFC 6937 §3, as Linux's
/// net/ipv4/tcp_input.c `tcp_init_cwnd_reduction` and `tcp_cwnd_reduction` keep them).
#[derive(Debug, Default)]
struct Prr {
    /// The window before the reduction (Linux `prior_cwnd`, RFC 6937's RecoverFS).
    prior_cwnd: f64,
    /// The window after it (RFC 6937's ssthresh).
    ssthresh: f64,
    /// Packets delivered (newly acknowledged or SACKed) since the recovery began.
    delivered: u64,
    /// Packets sent since the recovery began.
    out: u64,
    /// Packets the last ACK lets go (RFC 6937 `sndcnt`) not sent yet.
    allowed: u64,
}

impl Prr {
    /// A new recovery: the window goes from `prior_cwnd` to `ssthresh`.
    fn start(prior_cwnd: f64, ssthresh: f64) -> Self {
        Prr {
            prior_cwnd,
            ssthresh,
            ..Prr::default()
        }
    }

    /// An ACK of the recovery delivered `delivered` packets and leaves `pipe` in flight;
    /// `una_advanced`: it moved the cumulative ACK; `newly_lost`: it found a packet lost.
    /// Sets what the sender may now send: RFC 6937 §3.1's proportional part while the pipe is
    /// above ssthresh, else the slow-start reduction bound, each as Linux computes it. The
    /// recovery's first ACK lets at least the fast retransmit go, which the sender has already
    /// sent ([`TcpSender::enter_recovery`]), so it counts it here.
    fn on_ack(&mut self, delivered: u64, pipe: f64, una_advanced: bool, newly_lost: bool) {
        if delivered == 0 {
            return;
        }
        self.delivered += delivered;
        let (delivered_total, out) = (self.delivered as f64, self.out as f64);
        let sndcnt = if pipe > self.ssthresh {
            (delivered_total * self.ssthresh / self.prior_cwnd).ceil() - out
        } else {
            let bound = (delivered_total - out).max(delivered as f64)
                + f64::from(u8::from(una_advanced && !newly_lost));
            bound.min(self.ssthresh - pipe)
        };
        // The fast retransmit, already gone, is the least the first ACK lets go.
        let sndcnt = if self.out == 0 {
            self.out = 1;
            sndcnt.max(1.0) - 1.0
        } else {
            sndcnt
        };
        self.allowed = sndcnt.max(0.0) as u64;
    }
}

impl TcpSender {
    /// A sender with window controller `ctl` that sends what `app` offers.
    pub fn new(spec: &TcpSpec, ctl: Box<dyn Controller>, app: Box<dyn SendApp>) -> Self {
        let delivery = ctl.wants_delivery_rate();
        let extras = (delivery || spec.prr).then(|| {
            Box::new(Extras {
                delivery: delivery.then(DeliveryRate::default),
                ..Extras::default()
            })
        });
        TcpSender {
            ctl,
            extras,
            rto: RtoEstimator::new(spec),
            spec: SenderSettings::shared(spec),
            snd_una: 0,
            snd_nxt: 0,
            snd_max: 0,
            recover: 0,
            last_cut: Cut::None,
            in_recovery: false,
            undo_armed: false,
            handshake: if spec.syn {
                Handshake::Due
            } else {
                Handshake::Open
            },
            dupacks: 0,
            dupwnd: 0.0,
            sacked: SeqRanges::default(),
            rexmitted: Vec::new(),
            rxt_next: 0,
            outstanding: VecDeque::new(),
            chunks: Chunks::default(),
            completed: OptTime::NONE,
            outbox: Outbox::new(app),
            stats: SenderStats::default(),
        }
    }

    /// Whether there is a packet to send at `snd_nxt`: one sent before (go-back-N after a
    /// timeout) or new data the application offered.
    #[inline]
    fn has_data(&self) -> bool {
        self.snd_nxt < self.snd_max || self.outbox.has_data()
    }

    /// What the application sees of the sender.
    fn view(&self, now: SimTime) -> TransportView {
        let p = self.probe();
        TransportView {
            now,
            rate_bps: p.rate_bps,
            window_pkts: p.window_pkts,
            packet_bytes: self.spec.packet_bytes,
        }
    }

    /// The window that limits sending: controller's cwnd capped by the receiver window.
    fn cwnd(&self) -> f64 {
        self.ctl.window().min(self.spec.max_window_pkts)
    }

    /// Sends packet `seq`: a retransmission below `snd_max`, else new data from the
    /// application (callers check [`TcpSender::has_data`]).
    fn transmit(&mut self, ctx: &mut Ctx, seq: u64) {
        let now = ctx.now();
        let retx = seq < self.snd_max;
        if self.snd_una == self.snd_max
            && self
                .extras
                .as_deref()
                .and_then(|x| x.delivery.as_ref())
                .is_some_and(DeliveryRate::is_app_limited)
        {
            // Nothing in flight and the application had run out of data: a restart from idle.
            self.ctl.on_restart_from_idle(now);
        }
        let chunk = if retx {
            let held = self.chunks.get(seq - self.snd_una);
            debug_assert!(
                held.is_some(),
                "retransmission of {seq} outside [snd_una, snd_max)"
            );
            held.unwrap_or_default()
        } else {
            debug_assert_eq!(seq, self.snd_max);
            let Some(chunk) = self.outbox.take(self.spec.packet_bytes) else {
                debug_assert!(false, "new data sent without data offered");
                return;
            };
            chunk
        };
        let mut pkt = Packet {
            size_bytes: chunk.bytes,
            tag: chunk.tag,
            ..Packet::default()
        };
        pkt.ecn = Ecn {
            capable: ctx.ecn(),
            congestion: false,
        };
        pkt.header.seq = seq;
        pkt.header.stamp = now;
        if retx {
            pkt.header.flags = RETX;
            self.stats.retransmits += 1;
            if self.rto.timed == seq {
                // Karn: a packet sent twice gives no sample.
                self.rto.stop_timing();
            }
        } else {
            self.snd_max = seq + 1;
            self.outstanding.push_back(now);
            self.chunks.push(chunk);
            self.rto.sent_new(seq, &self.spec.rto);
        }
        let index = (seq - self.snd_una) as usize;
        if let Some(sent_at) = self.outstanding.get_mut(index) {
            *sent_at = now;
        }
        let rate = pace(&*self.ctl);
        if rate.is_some() || self.extras.is_some() {
            let x = self.extras.get_or_insert_with(Box::default);
            if let Some(d) = x.delivery.as_mut() {
                // The packets outstanding before this one (a new one is already counted).
                let before = self.snd_max - self.snd_una - u64::from(!retx);
                d.on_send(index, now, chunk.bytes, before);
            }
            if let Some(rate) = rate {
                // The next packet may leave this one's size at the pacing rate later (Linux
                // `tcp_update_skb_after_send`).
                let gap = SimTime::from_secs_f64(8.0 * f64::from(chunk.bytes) / rate);
                x.next_send = x.next_send.max(now) + gap;
            }
        }
        ctx.send(pkt);
        if !ctx.timer_armed(RTO_TIMER) {
            self.arm_rto(ctx);
        }
        if !retx && self.outbox.watches_progress() {
            let view = self.view(now);
            self.outbox.sent(ctx, view, &chunk);
        }
    }

    fn arm_rto(&self, ctx: &mut Ctx) {
        let at = ctx.now() + SimTime::from_secs_f64(self.rto.timeout(&self.spec.rto));
        ctx.set_timer(RTO_TIMER, at);
    }

    /// Sends the SYN: header only, not ECN-capable (RFC 3168 §6.1.1; ns-2 clears `ect` on it),
    /// timed through the send time its ACK echoes unless it is a retransmission (Karn).
    fn send_syn(&mut self, ctx: &mut Ctx) {
        let again = self.stats.timeouts > 0;
        let mut pkt = Packet {
            size_bytes: self.spec.syn_bytes,
            ..Packet::default()
        };
        pkt.header.stamp = ctx.now();
        pkt.header.flags = SYN | if again { RETX } else { 0 };
        if again {
            self.stats.retransmits += 1;
        }
        self.handshake = Handshake::Sent;
        ctx.send(pkt);
        if !ctx.timer_armed(RTO_TIMER) {
            self.arm_rto(ctx);
        }
    }

    /// The ACK of the SYN: the first RTT sample unless it acknowledges a SYN sent again (Karn;
    /// with one packet timed at a time, as ns-2.35 times, unless the SYN timed out at all), and
    /// the data may go, in the window the controller holds (its initial one, or 1 after a
    /// timeout).
    fn syn_acked(&mut self, ctx: &mut Ctx, ack: &Packet) {
        if self.handshake == Handshake::Open {
            // A second ACK of a SYN sent twice: nothing more to open.
            return;
        }
        let timed = self.spec.rto.samples != RttSamples::OnePerRtt || self.stats.timeouts == 0;
        if ack.header.flags & RETX == 0 && timed {
            self.rto.measure(ack.header.echo, ctx.now(), &self.spec.rto);
        }
        self.handshake = Handshake::Open;
        ctx.cancel_timer(RTO_TIMER);
        self.send_more(ctx);
    }

    /// The SYN's timer expired: ns-2.35's `timeout()` before any ACK (a timeout to the
    /// controller, the RTO backed off), and the SYN goes again.
    fn syn_timeout(&mut self, ctx: &mut Ctx) {
        let now = ctx.now();
        self.stats.timeouts += 1;
        // The timer was armed when the SYN left (but for the send jitter).
        let armed = now.saturating_sub(SimTime::from_secs_f64(self.rto.timeout(&self.spec.rto)));
        self.ctl.on_loss(&LossEvent {
            now,
            kind: LossKind::Timeout,
            sent_at: armed,
            lost_pkts: 1.0,
        });
        // ns-2.35 sets `recover_` to the SYN's number, which the data's first ACK passes.
        self.last_cut = Cut::Signal;
        self.rto.back_off(&self.spec.rto);
        self.handshake = Handshake::Due;
        self.arm_rto(ctx);
        self.send_more(ctx);
    }

    /// Sends what the window and the application's data allow, after the send jitter.
    fn send_more(&mut self, ctx: &mut Ctx) {
        self.send(ctx, false);
    }

    /// Whether a packet the window lets go must wait for the send jitter (ns-2 `overhead_`):
    /// unless `force`d (the delayed send itself), it waits for the pending delayed send, or
    /// arms one a uniform draw in [0, overhead) from now.
    ///
    /// A controller that gives a pacing rate is paced instead: a packet waits until the
    /// previous one's time at that rate has passed.
    fn hold(&mut self, ctx: &mut Ctx, force: bool) -> bool {
        if pace(&*self.ctl).is_some() {
            let x = self.extras.get_or_insert_with(Box::default);
            if ctx.now() < x.next_send {
                ctx.set_timer(SEND_TIMER, x.next_send);
                return true;
            }
            return false;
        }
        if force || self.spec.overhead_ns == 0 {
            return false;
        }
        if !ctx.timer_armed(SEND_TIMER) {
            let delay = ctx.rng().gen_range(0..self.spec.overhead_ns);
            let at = ctx.now() + SimTime(delay);
            ctx.set_timer(SEND_TIMER, at);
        }
        true
    }

    /// Sends what the window and the application's data allow; `force`: now, without the
    /// send jitter.
    fn send(&mut self, ctx: &mut Ctx, force: bool) {
        if self.handshake != Handshake::Open {
            // Until the SYN is acknowledged the window holds the SYN alone (ns-2 `cwnd_` 1).
            if self.handshake == Handshake::Due && !self.hold(ctx, force) {
                self.send_syn(ctx);
            }
            return;
        }
        if self.spec.variant == Variant::Sack && (self.in_recovery || self.in_timeout_recovery()) {
            // RFC 6675 §5 step (C): retransmit lost packets first, then new data, while
            // cwnd − pipe ≥ 1 packet (ns-2.35 Sack1 `send_much()`: `pipe_ < int(cwnd_)`);
            // after a timeout that kept the scoreboard, so does Linux (`tcp_xmit_retransmit_queue`
            // while `tcp_packets_in_flight` is below the window).
            let counter = self.spec.sack_pipe_counter;
            let mut pipe = if counter { self.dupwnd } else { self.pipe() };
            while self.may_send_in_recovery(pipe) {
                if let Some(hole) = self.next_hole() {
                    if self.hold(ctx, force) {
                        return;
                    }
                    self.retransmitted(hole);
                    self.rxt_next = hole + 1;
                    self.transmit(ctx, hole);
                } else if self.has_data()
                    && ((self.snd_nxt - self.snd_una) as f64) < self.spec.max_window_pkts
                {
                    if self.hold(ctx, force) {
                        return;
                    }
                    let seq = self.snd_nxt;
                    self.snd_nxt += 1;
                    self.transmit(ctx, seq);
                } else {
                    break;
                }
                pipe += 1.0;
                if counter {
                    self.dupwnd += 1.0;
                }
                if let Some(prr) = self.recovery_prr() {
                    prr.allowed -= 1;
                    prr.out += 1;
                }
            }
            return;
        }
        let mut window = self.cwnd() + self.dupwnd;
        if self.spec.limited_transmit && !self.in_recovery && self.dupacks < DUPACK_THRESHOLD {
            window += self.dupacks as f64;
        }
        // Whole packets: `as` truncates, which for a window (not negative) is its floor.
        let window = window.min(self.spec.max_window_pkts + self.dupwnd) as u64;
        while self.has_data() && self.snd_nxt < self.snd_una + window.max(1) {
            let seq = self.snd_nxt;
            // RFC 6675 §5.1: after a timeout the sender uses the SACK information that arrives
            // during the recovery that follows: what the receiver reports holding is not sent
            // again by go-back-N.
            if seq < self.snd_max && !self.spec.sack_go_back_n && self.sacked.contains(seq) {
                self.snd_nxt += 1;
                continue;
            }
            if self.hold(ctx, force) {
                return;
            }
            self.snd_nxt += 1;
            self.transmit(ctx, seq);
        }
        if !self.has_data() && self.snd_nxt < self.snd_una + window.max(1) {
            // The application, not the window, stops the sender (the draft's §3.4).
            let in_flight = self.in_flight_pkts();
            if let Some(d) = self.extras.as_deref_mut().and_then(|x| x.delivery.as_mut()) {
                d.app_limited(in_flight);
            }
        }
    }

    /// Whether a SACK recovery with `pipe` packets in flight sends one more: by RFC 6937's
    /// count with [`TcpSpec::prr`] (not after a timeout), else while the pipe is a packet below
    /// the window.
    fn may_send_in_recovery(&mut self, pipe: f64) -> bool {
        match self.recovery_prr() {
            Some(prr) => prr.allowed > 0,
            None => pipe + 1.0 <= self.cwnd(),
        }
    }

    /// The recovery's Proportional Rate Reduction, with [`TcpSpec::prr`].
    fn prr(&mut self) -> Option<&mut Prr> {
        if !self.spec.prr {
            return None;
        }
        self.extras.as_deref_mut().map(|x| &mut x.prr)
    }

    /// [`Self::prr`] while it paces the sends: in a fast recovery, not after a timeout (Linux
    /// sends by the window in its Loss state).
    fn recovery_prr(&mut self) -> Option<&mut Prr> {
        if !self.in_recovery {
            return None;
        }
        self.prr()
    }

    /// RFC 6675 IsLost, for all packets at once: a packet is lost when at least
    /// `sack_lost_after` (DupThresh) SACKed packets lie above it, i.e. when it is below the
    /// `sack_lost_after`-th highest SACKed one.
    /// After a timeout that kept the scoreboard, the packets below the timeout's mark are lost
    /// too unless SACKed ([`Self::in_timeout_recovery`]).
    fn lost_below(&self) -> u64 {
        let n = self.spec.sack_lost_after.max(1) as usize;
        let is_lost = self.sacked.nth_highest(n as u64).unwrap_or(0);
        match self.extras.as_deref() {
            Some(x) if self.in_timeout_recovery() => is_lost.max(x.timeout_lost_below),
            _ => is_lost,
        }
    }

    /// After a timeout with [`TcpSpec::sack_kept_at_timeout`], until the cumulative ACK passes
    /// what was outstanding then (Linux's `TCP_CA_Loss` state): every packet sent a round trip
    /// before the timeout or earlier and not SACKed is lost (Linux `tcp_timeout_mark_lost`),
    /// and the sender resends them by the pipe, as in a recovery.
    fn in_timeout_recovery(&self) -> bool {
        self.spec.sack_kept_at_timeout && self.timeout_outstanding()
    }

    /// Packets the last timeout found outstanding are not all acknowledged yet (Linux's
    /// `TCP_CA_Loss` state, whatever the scoreboard rule).
    fn timeout_outstanding(&self) -> bool {
        self.last_cut == Cut::Timeout && self.snd_una < self.recover
    }

    /// RFC 6675 SetPipe: packets believed in the network. An unSACKed packet counts unless it
    /// is lost, and once more if it was retransmitted in this recovery.
    fn pipe(&self) -> f64 {
        let from = self.lost_below().max(self.snd_una);
        // Above `from` lie at most DupThresh SACKed packets (the highest ones).
        let sacked_above = self.sacked.count_from(from);
        let not_lost = self.snd_max.saturating_sub(from) - sacked_above;
        // Counted once more: retransmitted in this recovery, neither acknowledged nor SACKed.
        debug_assert!(self.rexmitted.windows(2).all(|w| w[0] < w[1]));
        debug_assert!(self
            .rexmitted
            .iter()
            .all(|&s| s >= self.snd_una && !self.sacked.contains(s)));
        (not_lost + self.rexmitted.len() as u64) as f64
    }

    /// Packets in flight: the pipe for a SACK sender that has SACK information or is in
    /// recovery, else the packets outstanding.
    fn in_flight_pkts(&self) -> u64 {
        if self.spec.variant == Variant::Sack && (self.in_recovery || !self.sacked.is_empty()) {
            self.pipe() as u64
        } else {
            self.snd_max - self.snd_una
        }
    }

    /// SACK: packet `seq` is retransmitted in this recovery.
    fn retransmitted(&mut self, seq: u64) {
        if !self.sacked.contains(seq) {
            if let Err(i) = self.rexmitted.binary_search(&seq) {
                self.rexmitted.insert(i, seq);
            }
        }
    }

    /// SACK: the receiver holds the packets `start..end`, which an ACK at `now` reports;
    /// returns how many of them it reports for the first time.
    fn sack(&mut self, (now, echo): (SimTime, SimTime), start: u64, end: u64) -> u64 {
        let una = self.snd_una;
        let rack = self.spec.rack_lost_retransmissions;
        let min_rtt = self.rto.min_rtt().unwrap_or(SimTime::ZERO);
        let outstanding = &self.outstanding;
        let mut latest = None;
        let mut seen = |a, b| {
            if rack {
                latest = latest.max(sent_last(outstanding, una, (a, b), (now, echo), min_rtt));
            }
        };
        let delivery = self.extras.as_deref_mut().and_then(|x| x.delivery.as_mut());
        let new = match delivery {
            Some(d) => self.sacked.insert_reporting(start, end, |a, b| {
                for seq in a..b {
                    d.on_delivered((seq - una) as usize, now);
                }
                seen(a, b);
            }),
            None => self.sacked.insert_reporting(start, end, seen),
        };
        self.forget_retransmitted(start, end);
        self.rack_seen(latest);
        new
    }

    /// Drops the retransmitted packets `start..end` (the receiver reported them); an emptied
    /// set gives back its room, as the scoreboard does.
    #[inline]
    fn forget_retransmitted(&mut self, start: u64, end: u64) {
        if self.rexmitted.is_empty() {
            return;
        }
        let from = self.rexmitted.partition_point(|&s| s < start);
        let to = self.rexmitted.partition_point(|&s| s < end);
        self.rexmitted.drain(from..to);
        if self.rexmitted.is_empty() {
            self.rexmitted = Vec::new();
        }
    }

    /// RFC 6675 NextSeg rule 1: the lowest lost packet not yet retransmitted in this recovery.
    /// Holes are retransmitted in order, so the search starts after the last one, or at a
    /// retransmission found lost since ([`TcpSpec::rack_lost_retransmissions`]), passing over
    /// the retransmissions still in flight above it.
    fn next_hole(&self) -> Option<u64> {
        let lost_below = self.lost_below();
        let mut seq = self.rxt_next.max(self.snd_una);
        loop {
            seq = self.sacked.next_absent(seq);
            if seq >= lost_below {
                return None;
            }
            if self.rexmitted.binary_search(&seq).is_err() {
                return Some(seq);
            }
            seq += 1;
        }
    }

    /// RFC 8985 §6.1: `latest` (send time, number) of the packets an ACK delivered, if sent
    /// after RACK's packet, becomes it.
    fn rack_seen(&mut self, latest: Option<(SimTime, u64)>) {
        if latest.is_some() {
            let x = self.extras.get_or_insert_with(Box::default);
            x.rack = x.rack.max(latest);
        }
    }

    /// RFC 8985 §6.2 for the retransmissions of this recovery, with a reordering window of 0:
    /// one sent before RACK's packet (earlier, or at the same instant with a lower number) is
    /// lost; it leaves the pipe and NextSeg sends it again. The recovery goes on: no second
    /// reduction.
    fn rack_detect_lost(&mut self, now: SimTime) {
        let Some(rack) = self.extras.as_deref().and_then(|x| x.rack) else {
            return;
        };
        let una = self.snd_una;
        let lost: Vec<u64> = self
            .rexmitted
            .iter()
            .copied()
            .filter(|&seq| {
                self.outstanding
                    .get((seq - una) as usize)
                    .is_some_and(|&t| (t, seq) < rack)
            })
            .collect();
        for seq in lost {
            self.forget_retransmitted(seq, seq + 1);
            self.rxt_next = self.rxt_next.min(seq);
            self.mark_lost(seq, now);
        }
    }

    /// Send time of an outstanding packet.
    fn sent_time(&self, seq: u64, otherwise: SimTime) -> SimTime {
        let i = seq.saturating_sub(self.snd_una) as usize;
        self.outstanding.get(i).copied().unwrap_or(otherwise)
    }

    /// A congestion signal about a packet sent at `sent_at`.
    fn reduce(&mut self, now: SimTime, kind: LossKind, sent_at: SimTime) {
        self.ctl.on_loss(&LossEvent {
            now,
            kind,
            sent_at,
            lost_pkts: 1.0,
        });
        self.recover = self.snd_max;
        self.last_cut = if kind == LossKind::Timeout {
            Cut::Timeout
        } else {
            Cut::Signal
        };
        // A gap or a timeout retransmits `snd_una`; a mark retransmits nothing.
        self.undo_armed = kind != LossKind::Ecn;
    }

    /// One ACK: the scoreboard and the cumulative ACK first, then the controller sees the ACK
    /// ([`Controller::on_ack`]), then the congestion signal it carries, if any (three duplicates,
    /// an ECN-Echo), then what the window lets go.
    fn on_ack(&mut self, ctx: &mut Ctx, pkt: &Packet) {
        let now = ctx.now();
        let h = &pkt.header;
        let mut sacked_pkts = 0;
        // For PRR: where IsLost stood before this ACK.
        let lost_before = if self.spec.prr { self.lost_below() } else { 0 };
        let delivered_before = self.delivery().map(DeliveryRate::delivered_pkts);
        if self.spec.variant == Variant::Sack && self.reads_sack_blocks(h.ack) {
            for b in h.blocks.chunks(2) {
                // Unused blocks are empty ([0, 0]), as is a block the cumulative ACK covers once
                // it starts there: nothing to add to the scoreboard or to forget.
                let (start, end) = ((b[0] as u64).max(self.snd_una), b[1] as u64);
                if start < end {
                    sacked_pkts += self.sack((now, h.echo), start, end);
                }
            }
        }
        if self.in_timeout_recovery() {
            // RACK (RFC 8985 §6.2) in Linux's Loss state: once a packet sent after the timeout
            // is delivered, those left in flight at it and still not delivered are lost too.
            let recover = self.recover;
            if let Some(x) = self
                .extras
                .as_deref_mut()
                .filter(|x| h.echo >= x.timeout_at)
            {
                x.timeout_lost_below = recover;
            }
        }
        let ack = h.ack.min(self.snd_max);
        let ece = h.flags & ECE != 0;
        let mut sample = AckSample {
            now,
            sacked_pkts,
            delivered_pkts: sacked_pkts,
            ece,
            in_recovery: self.in_recovery,
            timeout_outstanding: self.timeout_outstanding(),
            rwnd_limited: self.ctl.window() >= self.spec.max_window_pkts,
            ..AckSample::default()
        };
        let mut newly_acked = 0;
        if ack > self.snd_una {
            let acked = ack - self.snd_una;
            let echo = (h.flags & RETX == 0).then_some(h.echo);
            let sent = match self.spec.rto.samples {
                RttSamples::OnePerRtt => {
                    let timed = self.rto.timed_acked(ack);
                    timed.map(|seq| self.sent_time(seq, now))
                }
                // The echoed timestamp is the retransmission's own: no need for Karn's rule
                // for the RTO (the controller's sample keeps it, as Linux's rate sample does).
                RttSamples::Timestamps => Some(h.echo),
                RttSamples::EveryAck => echo,
            };
            if let Some(sent) = sent {
                self.rto.measure(sent, now, &self.spec.rto);
            }
            let rtt = echo.map(|e| now - e);
            // Eifel (RFC 3522 §3.2): the ACK that covers the retransmitted packet echoes the
            // original's send time, earlier than the retransmission's, when the original
            // arrived.
            let spurious = std::mem::take(&mut self.undo_armed)
                && h.flags & RETX == 0
                && self.outstanding.front().is_some_and(|&last| h.echo < last);
            newly_acked = acked;
            // Delivered now: acknowledged and not SACKed before (RFC 6937 DeliveredData).
            let sacked_below = self.sacked.count_from(self.snd_una) - self.sacked.count_from(ack);
            sample.delivered_pkts += acked - sacked_below;
            if self.spec.rack_lost_retransmissions {
                let min_rtt = self.rto.min_rtt().unwrap_or(SimTime::ZERO);
                let span = (self.snd_una, ack);
                let at = (now, h.echo);
                self.rack_seen(sent_last(
                    &self.outstanding,
                    self.snd_una,
                    span,
                    at,
                    min_rtt,
                ));
            }
            if let Some(d) = self.extras.as_deref_mut().and_then(|x| x.delivery.as_mut()) {
                for i in 0..acked as usize {
                    d.on_delivered(i, now);
                }
                d.forget(acked as usize);
            }
            self.outstanding
                .drain(..(acked as usize).min(self.outstanding.len()));
            // All acknowledged: give back the room of the largest flight (the next one takes
            // what it needs), as the scoreboard and the receiver's held packets do.
            if self.outstanding.is_empty() {
                self.outstanding = VecDeque::new();
            }
            let acked_bytes = self.chunks.drop_front(acked);
            self.snd_una = ack;
            self.snd_nxt = self.snd_nxt.max(ack);
            self.sacked.forget_below(ack);
            self.forget_retransmitted(0, ack);
            if self.spec.sack_go_back_n && (!self.in_recovery || ack >= self.recover) {
                // Sack1 empties its scoreboard on a new ACK outside a recovery and on the one
                // that ends it (`ClearScoreBoard()`), and reads SACK blocks again.
                self.sacked.clear();
            }
            self.rto.timed_out = false;
            sample.acked_pkts = acked;
            sample.growth_pkts = if self.spec.growth_per_packet {
                acked
            } else {
                1
            };
            sample.acked_bytes = acked_bytes;
            sample.rtt = rtt;
            if ece {
                (sample.ce_pkts, sample.ce_bytes) = (acked, acked_bytes);
            }
            self.tell_ack(&mut sample, delivered_before);
            if spurious {
                self.ctl.on_undo(now);
            }
            if self.in_recovery {
                self.partial_or_full_ack(ctx, acked);
            } else {
                self.dupacks = 0;
            }
            if ece {
                self.on_ecn(now, h.echo);
            }
            if self.outbox.drained() && self.snd_una == self.snd_max && self.completed.is_none() {
                self.completed = OptTime::some(now);
            }
            if self.snd_una == self.snd_max {
                ctx.cancel_timer(RTO_TIMER);
            } else {
                self.arm_rto(ctx);
            }
        } else if ack == self.snd_una && self.snd_max > self.snd_una {
            let timestamps = self.spec.rto.samples == RttSamples::Timestamps;
            if timestamps && sacked_pkts > 0 && h.flags & RETX == 0 {
                // Linux's `sack_rtt_us`: a newly SACKed packet sent once.
                self.rto.measure(h.echo, now, &self.spec.rto);
                sample.rtt = Some(now - h.echo);
            }
            self.tell_ack(&mut sample, delivered_before);
            // Sack1 counts a duplicate ACK outside a recovery only if it SACKs a packet not yet
            // SACKed (`CheckUpdate()`; RFC 6675 §2's DupAck).
            let counted = !self.spec.sack_go_back_n || self.in_recovery || sacked_pkts > 0;
            self.dupacks += u32::from(counted);
            if self.spec.rto_every_ack {
                self.arm_rto(ctx);
            }
            if self.in_recovery {
                // Reno/NewReno inflate the window by one per duplicate ACK; SACK's pipe is
                // recomputed from the scoreboard instead, or Sack1's counter drops by one.
                if self.spec.variant != Variant::Sack {
                    self.dupwnd += 1.0;
                } else if self.spec.sack_pipe_counter {
                    self.dupwnd -= 1.0;
                }
            } else if counted && self.dupacks == DUPACK_THRESHOLD {
                // bugFix_: at most one fast retransmit per window of data.
                if self.past_recover() {
                    self.enter_recovery(ctx);
                    if self.spec.sack_pipe_counter && self.spec.variant == Variant::Sack {
                        // Sack1 sends nothing more on the ACK that starts its recovery
                        // (`recv()` calls `send_much()` only with no duplicate ACKs counted).
                        return;
                    }
                }
            } else if ece {
                self.on_ecn(now, h.echo);
            }
        }
        if self.spec.recovery_on_lost
            && !self.in_recovery
            && self.snd_una < self.lost_below()
            && self.past_recover()
        {
            self.enter_recovery(ctx);
        }
        if newly_acked > 0 && self.outbox.watches_progress() {
            let view = self.view(now);
            self.outbox.acked(ctx, view, newly_acked);
        }
        if self.in_recovery && self.spec.prr {
            let lost_after = self.lost_below();
            let newly_lost = self.sacked.next_absent(lost_before.max(self.snd_una)) < lost_after;
            let pipe = self.pipe();
            if let Some(prr) = self.prr() {
                prr.on_ack(sample.delivered_pkts, pipe, newly_acked > 0, newly_lost);
            }
        }
        self.send_more(ctx);
    }

    /// The per-packet delivery records, for a controller that asks for delivery rates.
    fn delivery(&self) -> Option<&DeliveryRate> {
        self.extras.as_deref().and_then(|x| x.delivery.as_ref())
    }

    /// Completes `sample` with the sender's view after the ACK (RTT estimates, what is in
    /// flight, a delivery-rate sample) and hands it to the controller. With per-packet
    /// delivery records (`delivered_before`: their count before the ACK), what the ACK
    /// delivered is counted from them: each packet once, even when a timeout emptied the
    /// scoreboard (RFC 2018 §8) and the receiver reports the packet held again.
    fn tell_ack(&mut self, sample: &mut AckSample, delivered_before: Option<u64>) {
        if self.spec.variant == Variant::Sack {
            self.mark_sack_losses(sample.now);
        }
        // RACK works in Linux's Loss state too (`tcp_rack_mark_lost` from `tcp_process_loss`).
        if self.spec.rack_lost_retransmissions && (self.in_recovery || self.in_timeout_recovery()) {
            self.rack_detect_lost(sample.now);
        }
        sample.srtt = self.rto.srtt().map(SimTime::from_secs_f64);
        sample.min_rtt = self.rto.min_rtt();
        sample.in_flight_pkts = self.in_flight_pkts();
        sample.in_flight_bytes = sample.in_flight_pkts * u64::from(self.spec.packet_bytes);
        let Some(d) = self.extras.as_deref_mut().and_then(|x| x.delivery.as_mut()) else {
            self.ctl.on_ack(sample);
            return;
        };
        if let Some(before) = delivered_before {
            sample.delivered_pkts = d.delivered_pkts() - before;
        }
        sample.delivery = d.sample(sample.min_rtt);
        self.ctl.on_ack(sample);
        if self.ctl.marks_app_limited() {
            d.app_limited(sample.in_flight_pkts);
        }
    }

    /// Marks packet `seq` lost for a controller that reads per-packet losses
    /// ([`Controller::on_lost_packet`]); nothing for other controllers.
    fn mark_lost(&mut self, seq: u64, now: SimTime) {
        let index = (seq - self.snd_una) as usize;
        let d = self.extras.as_deref_mut().and_then(|x| x.delivery.as_mut());
        if let Some(lost) = d.and_then(|d| d.mark_lost(index, now)) {
            self.ctl.on_lost_packet(&lost);
        }
    }

    /// SACK: marks the holes that RFC 6675 IsLost finds lost since the last ACK (those below
    /// the `sack_lost_after`-th highest SACKed packet), for a controller that reads per-packet
    /// losses.
    fn mark_sack_losses(&mut self, now: SimTime) {
        let lost_below = self.lost_below();
        let Some(x) = self.extras.as_deref_mut().filter(|x| x.delivery.is_some()) else {
            return;
        };
        let mut seq = x.lost_mark.max(self.snd_una);
        x.lost_mark = x.lost_mark.max(lost_below);
        loop {
            seq = self.sacked.next_absent(seq);
            if seq >= lost_below {
                break;
            }
            self.mark_lost(seq, now);
            seq += 1;
        }
    }

    /// Whether an ACK's SACK blocks go into the scoreboard: always, or with
    /// [`TcpSpec::sack_go_back_n`] as ns-2.35 Sack1's `recv()` reads them: in a recovery from
    /// any ACK but the one that ends it, outside one from a duplicate ACK unless no new ACK came
    /// since a timeout (`timeout_`).
    fn reads_sack_blocks(&self, ack: u64) -> bool {
        if !self.spec.sack_go_back_n {
            return true;
        }
        if self.in_recovery {
            ack < self.recover
        } else {
            ack == self.snd_una && !self.rto.timed_out
        }
    }

    /// Whether a new congestion signal may reduce the window: none has yet, or the cumulative
    /// ACK passed the data sent before the last reduction (RFC 6582 §3.2 step 1: the ACK field
    /// exceeds `recover`, the highest sequence number then sent), by `recover_margin` packets
    /// more (ns-2.35 compares packet numbers, `highest_ack_ > recover_`: one more).
    fn past_recover(&self) -> bool {
        self.last_cut == Cut::None
            || self.snd_una >= self.recover + u64::from(self.spec.recover_margin)
    }

    fn enter_recovery(&mut self, ctx: &mut Ctx) {
        self.stats.fast_retransmits += 1;
        let lost = self.snd_una;
        self.mark_lost(lost, ctx.now());
        let prior_cwnd = self.cwnd();
        self.reduce(ctx.now(), LossKind::Gap, self.sent_time(lost, ctx.now()));
        let ssthresh = self.cwnd();
        if let Some(prr) = self.prr() {
            *prr = Prr::start(prior_cwnd, ssthresh);
        }
        self.rto.stop_timing();
        self.in_recovery = true;
        match self.spec.variant {
            Variant::Sack => {
                // RFC 6675 §5 steps (A)–(C): the first unacknowledged packet goes first. With
                // RACK a retransmission keeps its mark until it is delivered or found lost, as
                // Linux keeps TCPCB_SACKED_RETRANS (net/ipv4/tcp_input.c
                // `tcp_mark_skb_lost`): one still in flight from the last recovery, past its
                // recovery point, is not sent again.
                let in_flight = self.spec.rack_lost_retransmissions
                    && self.rexmitted.binary_search(&lost).is_ok();
                if !self.spec.rack_lost_retransmissions {
                    self.rexmitted = Vec::new();
                }
                self.retransmitted(lost);
                self.rxt_next = lost + 1;
                if self.spec.sack_pipe_counter {
                    // Sack1 `dupack_action()`: numdupacks_ of the packets outstanding have
                    // left; the retransmission is not counted.
                    let outstanding = (self.snd_max - self.snd_una) as f64;
                    self.dupwnd = outstanding - f64::from(DUPACK_THRESHOLD);
                }
                if !in_flight {
                    self.transmit(ctx, lost);
                }
            }
            _ => {
                self.dupwnd = DUPACK_THRESHOLD as f64;
                self.transmit(ctx, lost);
            }
        }
        self.arm_rto(ctx);
    }

    fn partial_or_full_ack(&mut self, ctx: &mut Ctx, acked: u64) {
        if self.snd_una >= self.recover || self.spec.variant == Variant::Reno {
            // Full ACK (or any new ACK in Reno): recovery ends at the reduced window.
            self.in_recovery = false;
            self.dupwnd = 0.0;
            self.dupacks = 0;
            if self.spec.variant == Variant::Sack {
                // The recovery point is passed; ns-2.35's Sack1 clears it (`recover_ = 0`), so
                // `recover_margin` holds after a timeout only. (With margin 0 a no-op.)
                self.recover = 0;
            }
            return;
        }
        if self.spec.variant == Variant::Sack && self.spec.sack_pipe_counter {
            // Sack1 `recv()`: one less for the ACK, and one more for the retransmission it
            // acknowledges (`partial_ack_` false).
            self.dupwnd -= 2.0;
        }
        if self.spec.variant == Variant::NewReno {
            // RFC 6582 / ns-2: retransmit the next hole, deflate by the amount acked less one.
            self.dupwnd = (self.dupwnd - acked as f64 + 1.0).max(0.0);
            let hole = self.snd_una;
            self.mark_lost(hole, ctx.now());
            self.transmit(ctx, hole);
        }
    }

    /// An ECN-Echo for a packet sent at `marked_sent_at`.
    fn on_ecn(&mut self, now: SimTime, marked_sent_at: SimTime) {
        // RFC 3168 §6.1.2: at most one reduction per window of data.
        if !self.in_recovery && self.past_recover() {
            self.stats.ecn_reductions += 1;
            self.reduce(now, LossKind::Ecn, marked_sent_at);
        }
    }

    fn on_timeout(&mut self, ctx: &mut Ctx) {
        if self.handshake != Handshake::Open {
            self.syn_timeout(ctx);
            return;
        }
        if self.snd_una == self.snd_max {
            return;
        }
        self.stats.timeouts += 1;
        // Every packet outstanding is presumed lost (RFC 6675 §5.1, Linux `tcp_enter_loss`).
        if let Some(x) = self.extras.as_deref_mut().filter(|x| x.delivery.is_some()) {
            x.lost_mark = self.snd_max;
            for seq in self.snd_una..self.snd_max {
                self.mark_lost(seq, ctx.now());
            }
        }
        self.reduce(
            ctx.now(),
            LossKind::Timeout,
            self.sent_time(self.snd_una, ctx.now()),
        );
        self.rto.back_off(&self.spec.rto);
        // Go-back-N from the first unacknowledged packet, the scoreboard forgotten unless the
        // sender keeps it; one that keeps it resends the holes by the pipe instead.
        self.in_recovery = false;
        self.dupacks = 0;
        self.dupwnd = 0.0;
        if !self.spec.sack_kept_at_timeout {
            self.sacked.clear();
        }
        self.rexmitted = Vec::new();
        if self.in_timeout_recovery() {
            // Linux marks lost every packet not SACKed but those sent within RACK's round trip
            // (`tcp_timeout_mark_lost`, `tcp_rack_skb_timeout`), the first always; the model
            // takes its smoothed RTT for RACK's. The holes are resent from the first on; new
            // data follows where it stopped.
            let rtt = self
                .rto
                .srtt()
                .map_or(SimTime::ZERO, SimTime::from_secs_f64);
            let recent = ctx.now().saturating_sub(rtt);
            let old = self.outstanding.iter().rposition(|&sent| sent <= recent);
            let below = self.snd_una + old.map_or(1, |i| i as u64 + 1);
            let x = self.extras.get_or_insert_with(Box::default);
            (x.timeout_lost_below, x.timeout_at) = (below, ctx.now());
            self.rxt_next = self.snd_una;
        } else {
            self.snd_nxt = self.snd_una;
        }
        self.rto.timed_out = true;
        self.arm_rto(ctx);
        self.send_more(ctx);
    }
}

impl Endpoint for TcpSender {
    fn start(&mut self, ctx: &mut Ctx) {
        self.rto.start(&self.spec.rto, ctx.rng());
        let view = self.view(ctx.now());
        self.outbox.start(ctx, view);
        self.send_more(ctx);
        self.outbox.arm(ctx, APP_TIMER);
        arm_wakeup(&*self.ctl, ctx, WAKE_TIMER);
    }

    fn stop(&mut self, ctx: &mut Ctx) {
        // The application stops offering data: what is outstanding is still delivered.
        let view = self.view(ctx.now());
        self.outbox.stop(ctx, view, APP_TIMER);
        if self.snd_una == self.snd_max {
            ctx.cancel_timer(RTO_TIMER);
        }
    }

    fn on_packet(&mut self, ctx: &mut Ctx, pkt: &Packet) {
        if pkt.header.flags & SYN != 0 {
            self.syn_acked(ctx, pkt);
        } else {
            self.on_ack(ctx, pkt);
        }
        self.outbox.arm(ctx, APP_TIMER);
        arm_wakeup(&*self.ctl, ctx, WAKE_TIMER);
    }

    fn on_timer(&mut self, ctx: &mut Ctx, timer: usize) {
        match timer {
            RTO_TIMER => self.on_timeout(ctx),
            SEND_TIMER => self.send(ctx, true),
            APP_TIMER => {
                let view = self.view(ctx.now());
                self.outbox.wake(ctx, view);
                self.send_more(ctx);
            }
            WAKE_TIMER => {
                self.ctl.on_wakeup(ctx.now());
                self.send_more(ctx);
            }
            _ => {}
        }
        self.outbox.arm(ctx, APP_TIMER);
        arm_wakeup(&*self.ctl, ctx, WAKE_TIMER);
    }

    fn label(&self) -> String {
        if self.ctl.name() == "TCP" {
            format!("TCP/{}", self.spec.variant)
        } else {
            format!("{} ({})", self.ctl.name(), self.spec.variant)
        }
    }

    fn probe(&self) -> Probe {
        let w = self.cwnd();
        let srtt = self.rto.srtt().unwrap_or(0.0);
        let rate = match srtt {
            s if s > 0.0 => w * self.spec.packet_bytes as f64 * 8.0 / s,
            _ => 0.0,
        };
        Probe {
            window_pkts: w,
            rate_bps: rate,
            srtt_s: srtt,
        }
    }

    fn state(&self, out: &mut StateFields) {
        out.extend([
            ("cwnd_pkts", self.cwnd()),
            ("srtt_s", self.rto.srtt().unwrap_or(f64::NAN)),
            ("rto_s", self.rto.timeout(&self.spec.rto)),
        ]);
        self.ctl.state(out);
    }

    fn stats(&self) -> Vec<(&'static str, Stat)> {
        let count = |x: u64| Stat::Count(x as f64);
        let mut out = vec![
            ("cwnd_pkts", Stat::Level(self.cwnd())),
            ("srtt_s", Stat::Level(self.rto.srtt().unwrap_or(0.0))),
            ("rtt_samples", count(self.rto.samples)),
            ("rtt_sum_s", Stat::Count(self.rto.sample_sum)),
            ("rto_s", Stat::Level(self.rto.timeout(&self.spec.rto))),
            ("timeouts", count(self.stats.timeouts)),
            ("fast_retransmits", count(self.stats.fast_retransmits)),
            ("retransmits", count(self.stats.retransmits)),
            ("ecn_reductions", count(self.stats.ecn_reductions)),
            ("acked_pkts", count(self.snd_una)),
        ];
        if let Some(t) = self.completed.get() {
            out.push(("completion_time_s", Stat::Level(t.secs())));
        }
        out
    }
}

/// The receiving side: cumulative ACKs with SACK blocks, optional delayed ACKs, ECN echo;
/// in-order delivery to the application.
pub struct TcpReceiver {
    ack_bytes: u32,
    delayed: OptTime,
    /// [`TcpSpec::ack_filled_hole`].
    ack_filled_hole: bool,
    /// Next packet expected in order.
    rcv_nxt: u64,
    /// The packets received above `rcv_nxt`, as runs of consecutive numbers: what SACK blocks
    /// report (RFC 2018 §4).
    above: SeqRanges,
    /// What those packets carry, in sequence order, for in-order delivery to an application
    /// that watches deliveries ([`ReceiveApp::watches_deliveries`]); boxed, as a sink's flows
    /// keep none (a deque, not a map: most arrive in order behind a hole, and a map's first
    /// node alone takes 632 bytes).
    // The box keeps 8 bytes where the deque would take 32 in every flow.
    #[allow(clippy::box_collection)]
    above_data: Option<Box<VecDeque<Delivery>>>,
    /// An in-order packet held for a delayed ACK: (its send time, retransmission, CE).
    held: Option<(SimTime, bool, bool)>,
    /// For a controller that wants every change of CE state echoed at once
    /// ([`Controller::wants_exact_ce_echo`]): RFC 8257 §3.2's DCTCP.CE, the CE state of the
    /// last data packet; `None` for RFC 3168's echo of each ACK's own packet.
    ce_state: Option<bool>,
    /// Duplicate packets received (already delivered or held).
    duplicates: u64,
    /// Where the SACK blocks of the last ACK sent start, in its order (0: none): the next
    /// repeats them first (RFC 2018 §4).
    reported: [u32; SACK_BLOCKS],
    inbox: Inbox,
}

impl TcpReceiver {
    /// A receiver that delivers to `app`; `exact_ce`: it echoes every change of CE state at
    /// once (RFC 8257 §3.2).
    pub fn new(spec: &TcpSpec, app: Box<dyn ReceiveApp>, exact_ce: bool) -> Self {
        TcpReceiver {
            ack_bytes: spec.ack_bytes,
            delayed: if spec.delayed_ack {
                OptTime::some(SimTime(spec.delack_ns))
            } else {
                OptTime::NONE
            },
            ack_filled_hole: spec.ack_filled_hole,
            rcv_nxt: 0,
            above: SeqRanges::default(),
            above_data: app.watches_deliveries().then(Box::default),
            held: None,
            ce_state: exact_ce.then_some(false),
            duplicates: 0,
            reported: [0; SACK_BLOCKS],
            inbox: Inbox::new(app),
        }
    }

    /// Up to three SACK blocks, as RFC 2018 §4 fills them (and ns-2.35's Sack1 sink's
    /// `SackStack`, and Linux's net/ipv4/tcp_input.c `tcp_sack_new_ofo_skb`): the run holding
    /// `latest` first, then the runs of the blocks the last ACK reported, in its order (each
    /// as it has grown since), then the highest others; each run once.
    fn sack_blocks(&mut self, latest: u64) -> [u32; 2 * SACK_BLOCKS] {
        let mut runs = [(0u64, 0u64); SACK_BLOCKS];
        let mut n = 0;
        let first = self.above.run_holding(latest);
        let recent = self
            .reported
            .iter()
            .filter_map(|&start| self.above.run_holding(u64::from(start)));
        for run in first
            .into_iter()
            .chain(recent)
            .chain(self.above.runs_descending())
        {
            if n == SACK_BLOCKS {
                break;
            }
            if !runs[..n].contains(&run) {
                runs[n] = run;
                n += 1;
            }
        }
        let mut out = [0u32; 2 * SACK_BLOCKS];
        self.reported = [0; SACK_BLOCKS];
        for (i, &(a, b)) in runs[..n].iter().enumerate() {
            (out[2 * i], out[2 * i + 1]) = (a as u32, b as u32);
            self.reported[i] = a as u32;
        }
        out
    }

    /// Holds packet `data` above a hole until the hole is filled.
    fn hold(&mut self, data: Delivery) {
        self.above.insert(data.seq, data.seq + 1);
        if let Some(held) = &mut self.above_data {
            // Room for one packet at first, not a deque's least of four (later growth doubles
            // as usual): a flow with a small window holds one or two above a hole.
            if held.capacity() == 0 {
                held.reserve_exact(1);
            }
            held.insert(held.partition_point(|d| d.seq < data.seq), data);
        }
    }

    /// Packet `data` arrived in order: delivers it and the packets held right above it.
    fn deliver_in_order(&mut self, ctx: &mut Ctx, data: &Delivery) {
        self.rcv_nxt = self.above.next_absent(data.seq + 1);
        self.above.forget_below(self.rcv_nxt);
        self.inbox.deliver(ctx, data);
        let Some(held) = &mut self.above_data else {
            return;
        };
        while let Some(next) = held.front().filter(|d| d.seq < self.rcv_nxt).copied() {
            held.pop_front();
            self.inbox.deliver(ctx, &next);
        }
        // The hole is filled: give back the room the deque keeps (as `forget_below`).
        if held.is_empty() {
            **held = VecDeque::new();
        }
    }

    /// Acknowledges the data below `ack_seq`.
    fn send_ack(
        &mut self,
        ctx: &mut Ctx,
        ack_seq: u64,
        echo: SimTime,
        retx: bool,
        ce: bool,
        latest: u64,
    ) {
        let mut ack = Packet {
            size_bytes: self.ack_bytes,
            ..Packet::default()
        };
        ack.header.ack = ack_seq;
        ack.header.echo = echo;
        ack.header.flags = if retx { RETX } else { 0 } | if ce { ECE } else { 0 };
        ack.header.blocks = self.sack_blocks(latest);
        ctx.send(ack);
    }
}

impl Endpoint for TcpReceiver {
    fn start(&mut self, ctx: &mut Ctx) {
        self.inbox.start(ctx);
        self.inbox.arm(ctx, RECV_APP_TIMER);
    }

    fn stop(&mut self, ctx: &mut Ctx) {
        self.inbox.stop(ctx, RECV_APP_TIMER);
    }

    fn on_packet(&mut self, ctx: &mut Ctx, pkt: &Packet) {
        let retx = pkt.header.flags & RETX != 0;
        if pkt.header.flags & SYN != 0 {
            // The SYN is answered at once (ns-2.35 `TCPSink` `SYN_immediate_ack_`), no data.
            let mut ack = Packet {
                size_bytes: self.ack_bytes,
                ..Packet::default()
            };
            ack.header.ack = self.rcv_nxt;
            ack.header.echo = pkt.header.stamp;
            ack.header.flags = SYN | if retx { RETX } else { 0 };
            ctx.send(ack);
            return;
        }
        let seq = pkt.header.seq;
        let ce = pkt.ecn.congestion;
        let in_order = seq == self.rcv_nxt;
        let before = self.rcv_nxt;
        // An in-order packet while packets wait above a hole fills it, or the first of several.
        let fills = in_order && !self.above.is_empty();
        if seq < self.rcv_nxt || self.above.contains(seq) {
            self.duplicates += 1;
        } else {
            let data = Delivery {
                seq,
                bytes: pkt.size_bytes,
                tag: pkt.tag,
                sent_at: pkt.sent_at,
                arrived_at: ctx.now(),
                resent: false,
            };
            if in_order {
                self.deliver_in_order(ctx, &data);
            } else {
                self.hold(data);
            }
        }
        // RFC 3168 §6.1.3 as ns-2's DelAck: a CE packet is acknowledged at once. RFC 8257 §3.2:
        // a change of CE state is, after the ACK the held packet was waiting for, which keeps the
        // state it arrived in (Linux `dctcp_ece_ack_update`); packets of one state are
        // acknowledged as any others.
        let urgent = match self.ce_state {
            None => ce,
            Some(state) => {
                self.ce_state = Some(ce);
                if state != ce {
                    if let Some((stamp, retx, _)) = self.held.take() {
                        ctx.cancel_timer(DELACK_TIMER);
                        let latest = before.saturating_sub(1);
                        self.send_ack(ctx, before, stamp, retx, state, latest);
                    }
                }
                state != ce
            }
        };
        match self.delayed.get() {
            // ns-2 DelAck: hold an in-order packet when nothing is held and no gap is open (and,
            // with `ack_filled_hole`, it did not just close the last one).
            Some(delay)
                if in_order
                    && self.above.is_empty()
                    && self.held.is_none()
                    && !urgent
                    && !(fills && self.ack_filled_hole) =>
            {
                self.held = Some((pkt.header.stamp, retx, ce));
                ctx.set_timer(DELACK_TIMER, ctx.now() + delay);
            }
            _ => {
                self.held = None;
                ctx.cancel_timer(DELACK_TIMER);
                self.send_ack(ctx, self.rcv_nxt, pkt.header.stamp, retx, ce, seq);
            }
        }
        self.inbox.arm(ctx, RECV_APP_TIMER);
    }

    fn on_timer(&mut self, ctx: &mut Ctx, timer: usize) {
        match timer {
            DELACK_TIMER => {
                if let Some((stamp, retx, ce)) = self.held.take() {
                    let latest = self.rcv_nxt.saturating_sub(1);
                    self.send_ack(ctx, self.rcv_nxt, stamp, retx, ce, latest);
                }
            }
            RECV_APP_TIMER => self.inbox.wake(ctx),
            _ => {}
        }
        self.inbox.arm(ctx, RECV_APP_TIMER);
    }

    fn stats(&self) -> Vec<(&'static str, Stat)> {
        let mut out = vec![
            ("goodput_pkts", Stat::Count(self.rcv_nxt as f64)),
            ("duplicate_pkts", Stat::Count(self.duplicates as f64)),
        ];
        out.extend(self.inbox.stats());
        out
    }

    fn series(&self) -> Vec<(&'static str, Vec<f64>)> {
        self.inbox.series()
    }
}

/// A flow's sender and receiver endpoints.
type Endpoints = (Box<dyn Endpoint>, Box<dyn Endpoint>);

/// The endpoints of a TCP flow with controller `ctl` and the spec's application (a finite
/// transfer of `transfer_pkts` packets, else bulk) into a [`Sink`].
pub fn endpoints_with_controller(spec: &TcpSpec, ctl: Box<dyn Controller>) -> Endpoints {
    let app: Box<dyn SendApp> = match spec.transfer_pkts {
        Some(n) => Box::new(Finite::packets(n, spec.packet_bytes)),
        None => Box::new(Bulk),
    };
    build(spec, ctl, app, Box::new(Sink::default()))
}

/// The endpoints of a TCP flow with controller `ctl` carrying `app` to `sink`
/// (`transfer_pkts` is ignored: the application decides what is sent).
pub fn endpoints(
    spec: &TcpSpec,
    ctl: Box<dyn Controller>,
    app: Box<dyn SendApp>,
    sink: Box<dyn ReceiveApp>,
) -> Endpoints {
    build(spec, ctl, app, sink)
}

fn build(
    spec: &TcpSpec,
    ctl: Box<dyn Controller>,
    app: Box<dyn SendApp>,
    sink: Box<dyn ReceiveApp>,
) -> Endpoints {
    let exact_ce = ctl.wants_exact_ce_echo();
    let sender = TcpSender::new(spec, ctl, app);
    (
        Box::new(sender),
        Box::new(TcpReceiver::new(spec, sink, exact_ce)),
    )
}

/// RFC 8985 §6.1: of the packets `start..end` delivered at `now` by an ACK that echoes the
/// send time `echo` (`outstanding` their send times from packet `una` on), the one sent last,
/// as (send time, number). A packet last sent after the echoed one, or less than `min_rtt`
/// ago, is passed over: what was delivered is an earlier transmission of it (step 2).
fn sent_last(
    outstanding: &VecDeque<SimTime>,
    una: u64,
    (start, end): (u64, u64),
    (now, echo): (SimTime, SimTime),
    min_rtt: SimTime,
) -> Option<(SimTime, u64)> {
    (start..end)
        .filter_map(|seq| {
            let sent = *outstanding.get((seq - una) as usize)?;
            (sent <= echo && now.saturating_sub(sent) >= min_rtt).then_some((sent, seq))
        })
        .max()
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;

    #[test]
    fn sack_blocks_are_the_runs_held_the_latest_first_then_the_highest() {
        use rand::SeedableRng as _;
        let mut rng = crate::rng::Rng::seed_from_u64(5);
        for _ in 0..500 {
            let mut r = TcpReceiver::new(&TcpSpec::default(), Box::new(Sink::default()), false);
            r.rcv_nxt = 10;
            let held: BTreeSet<u64> = (0..rng.gen_range(0..40))
                .map(|_| rng.gen_range(11..60))
                .collect();
            for &seq in &held {
                r.above.insert(seq, seq + 1);
            }
            // The blocks by definition (RFC 2018 §4): maximal runs, the one holding the
            // packet that triggered the ACK first, then the highest.
            let mut runs: Vec<(u64, u64)> = Vec::new();
            for &s in &held {
                match runs.last_mut() {
                    Some((_, end)) if *end == s => *end += 1,
                    _ => runs.push((s, s + 1)),
                }
            }
            let latest = rng.gen_range(9..61);
            runs.sort_by_key(|&(a, b)| (!(a <= latest && latest < b), u64::MAX - a));
            let mut want = [0u32; 2 * SACK_BLOCKS];
            for (i, (a, b)) in runs.into_iter().take(SACK_BLOCKS).enumerate() {
                want[2 * i] = a as u32;
                want[2 * i + 1] = b as u32;
            }
            assert_eq!(r.sack_blocks(latest), want, "{held:?}, latest {latest}");
        }
    }

    /// RFC 2018 §4, worked by hand: packets 2, 4, 6, 8 and 10 arrive above the hole at 0,
    /// then 3 (joining 2 and 4), then 12. The ACK of 12 reports its run, then the two most
    /// recently reported, [2, 5) among them, where the highest runs would be [10, 11) and
    /// [8, 9) and the sender would not hear of 3 again.
    #[test]
    fn sack_blocks_repeat_the_most_recently_reported() {
        let mut r = TcpReceiver::new(&TcpSpec::default(), Box::new(Sink::default()), false);
        let mut arrive = |seq: u64| {
            r.above.insert(seq, seq + 1);
            r.sack_blocks(seq)
        };
        for seq in [2, 4, 6, 8] {
            arrive(seq);
        }
        assert_eq!(arrive(10), [10, 11, 8, 9, 6, 7]);
        assert_eq!(arrive(3), [2, 5, 10, 11, 8, 9]);
        assert_eq!(arrive(12), [12, 13, 2, 5, 10, 11]);
    }

    /// Runs a SACK sender with `spec` against a receiver for 200 000 steps, first
    /// transmissions and retransmissions alike lost at random (4%) on the way to the receiver,
    /// ACKs all arriving in order; after each step that leaves the sender in recovery, calls
    /// `check` with the sender, the packets it sent in that step, whether it was in recovery
    /// before the step and whether the step was an ACK reaching it.
    fn drive_recoveries(spec: &TcpSpec, mut check: impl FnMut(&TcpSender, &[Packet], bool, bool)) {
        use crate::net::{HostIo, Side};
        use crate::rng::Rng;
        use rand::SeedableRng as _;
        let tcp = crate::control::Aimd::tcp().starting(spec.window_config());
        let mut snd = TcpSender::new(spec, Box::new(tcp), Box::new(Bulk));
        let mut rcv = TcpReceiver::new(spec, Box::new(Sink::default()), false);
        let (mut sio, mut rio) = (
            HostIo::new(false, Rng::seed_from_u64(1)),
            HostIo::new(false, Rng::seed_from_u64(2)),
        );
        let mut loss = Rng::seed_from_u64(3);
        snd.start(&mut Ctx::host(&mut sio, 0, Side::Sender));
        rcv.start(&mut Ctx::host(&mut rio, 0, Side::Receiver));
        // Packets on the way: to the receiver (data) or to the sender (ACKs).
        let mut wire: VecDeque<(Side, Packet)> = VecDeque::new();
        let mut now = SimTime::ZERO;
        for _ in 0..200_000 {
            wire.extend(
                sio.sent
                    .drain(..)
                    .filter(|_| !loss.gen_bool(0.04))
                    .map(|p| (Side::Receiver, p)),
            );
            wire.extend(rio.sent.drain(..).map(|p| (Side::Sender, p)));
            now += SimTime(100_000);
            let armed = |io: &HostIo| {
                io.timers
                    .iter()
                    .enumerate()
                    .filter_map(|(k, &t)| Some((t?, k)))
                    .min()
            };
            let was_in_recovery = snd.in_recovery;
            let mut acked = false;
            let due = |io: &HostIo| armed(io).filter(|&(t, _)| t <= now).map(|(_, k)| k);
            if let Some(k) = due(&sio) {
                (sio.now, sio.timers[k]) = (now, None);
                snd.on_timer(&mut Ctx::host(&mut sio, 0, Side::Sender), k);
            } else if let Some(k) = due(&rio) {
                (rio.now, rio.timers[k]) = (now, None);
                rcv.on_timer(&mut Ctx::host(&mut rio, 0, Side::Receiver), k);
            } else if let Some((side, pkt)) = wire.pop_front() {
                if side == Side::Sender {
                    (sio.now, acked) = (now, true);
                    snd.on_packet(&mut Ctx::host(&mut sio, 0, side), &pkt);
                } else {
                    rio.now = now;
                    rcv.on_packet(&mut Ctx::host(&mut rio, 0, side), &pkt);
                }
            } else {
                // Nothing on the wire: on to the next timer.
                now = [armed(&sio), armed(&rio)]
                    .into_iter()
                    .flatten()
                    .min()
                    .expect("a timer armed")
                    .0;
                continue;
            }
            if snd.in_recovery {
                check(&snd, &sio.sent, was_in_recovery, acked);
            }
        }
    }

    /// RFC 6675 SetPipe by its definition, after every ACK a SACK sender takes in recovery:
    /// each packet from `snd_una` to `snd_max` that is not SACKed counts once unless it is lost
    /// (`sack_lost_after` SACKed packets above it), and once more if it was retransmitted in this
    /// recovery.
    #[test]
    fn the_pipe_is_rfc_6675_setpipe() {
        let spec = TcpSpec {
            variant: Variant::Sack,
            initial_window_pkts: 40.0,
            ..TcpSpec::default()
        };
        let mut resent_in_recovery = BTreeSet::new();
        let (mut checked, mut checked_with_resent) = (0, 0);
        drive_recoveries(&spec, |snd, sent, was_in_recovery, _| {
            if !was_in_recovery {
                resent_in_recovery.clear();
            }
            resent_in_recovery.extend(
                sent.iter()
                    .filter(|p| p.header.flags & RETX != 0)
                    .map(|p| p.header.seq),
            );
            let sacked_above = |s: u64| {
                (s + 1..snd.snd_max)
                    .filter(|&t| snd.sacked.contains(t))
                    .count() as u32
            };
            let pipe: u64 = (snd.snd_una..snd.snd_max)
                .filter(|&s| !snd.sacked.contains(s))
                .map(|s| {
                    (sacked_above(s) < spec.sack_lost_after) as u64
                        + resent_in_recovery.contains(&s) as u64
                })
                .sum();
            assert_eq!(
                snd.pipe(),
                pipe as f64,
                "una {} max {} resent {resent_in_recovery:?}",
                snd.snd_una,
                snd.snd_max
            );
            checked += 1;
            checked_with_resent +=
                (snd.snd_una..snd.snd_max).any(|s| resent_in_recovery.contains(&s)) as u32;
        });
        assert!(
            checked_with_resent > 1000,
            "{checked_with_resent} of {checked} checks had a retransmission in flight"
        );
    }

    /// With `sack_pipe_counter`, ns-2.35 Sack1's `pipe_` by its definition (`tcp-sack1.cc`
    /// `dupack_action()`, `recv()`, `send_much()`): the packets outstanding less 3 when the fast
    /// retransmit leaves, one less for every ACK of the recovery and one more for a partial
    /// one, one more for every packet sent after the fast retransmit; and it sends only while
    /// the pipe is below the whole window.
    #[test]
    fn the_counter_pipe_is_sack1s_pipe() {
        let spec = TcpSpec {
            variant: Variant::Sack,
            initial_window_pkts: 40.0,
            sack_pipe_counter: true,
            sack_lost_after: 1,
            ..TcpSpec::default()
        };
        let (mut pipe, mut una, mut checked, mut partial) = (0i64, 0, 0, 0);
        drive_recoveries(&spec, |snd, sent, was_in_recovery, acked| {
            if was_in_recovery {
                if acked {
                    pipe -= 1 + i64::from(snd.snd_una > una);
                }
                partial += u32::from(snd.snd_una > una);
                pipe += sent.len() as i64;
            } else {
                // The fast retransmit, alone: nothing else leaves on the ACK that starts it.
                assert_eq!(sent.len(), 1);
                let retransmitted = sent[0].header.seq;
                assert_eq!(retransmitted, snd.snd_una);
                pipe = (snd.snd_max - snd.snd_una) as i64 - i64::from(DUPACK_THRESHOLD);
            }
            una = snd.snd_una;
            assert_eq!(snd.dupwnd, pipe as f64);
            if snd.has_data() && !sent.is_empty() {
                assert!(
                    pipe >= snd.cwnd().floor() as i64,
                    "{pipe} below {}",
                    snd.cwnd()
                );
            }
            checked += 1;
        });
        assert!(
            checked > 10_000 && partial > 100,
            "{checked} checks, {partial} partial ACKs"
        );
    }

    /// A receiver of `spec` fed `packets` (sequence number, CE mark) a millisecond apart: the
    /// ACKs it sends, as (cumulative ACK, ECN-Echo), then a held packet's after its timer.
    fn receiver_acks(spec: &TcpSpec, exact_ce: bool, packets: &[(u64, bool)]) -> Vec<(u64, bool)> {
        use crate::net::{HostIo, Side};
        use rand::SeedableRng as _;
        let mut rcv = TcpReceiver::new(spec, Box::new(Sink::default()), exact_ce);
        let mut io = HostIo::new(false, crate::rng::Rng::seed_from_u64(1));
        rcv.start(&mut Ctx::host(&mut io, 0, Side::Receiver));
        for (ms, &(seq, ce)) in packets.iter().enumerate() {
            let mut pkt = Packet::default();
            (pkt.header.seq, pkt.ecn.congestion) = (seq, ce);
            io.now = SimTime::from_ms(ms as u64);
            rcv.on_packet(&mut Ctx::host(&mut io, 0, Side::Receiver), &pkt);
        }
        (io.now, io.timers[DELACK_TIMER]) = (SimTime::from_ms(500), None);
        rcv.on_timer(&mut Ctx::host(&mut io, 0, Side::Receiver), DELACK_TIMER);
        io.sent
            .iter()
            .map(|a| (a.header.ack, a.header.flags & ECE != 0))
            .collect()
    }

    /// A delayed-ACK receiver fed packets 0–6, with packets 1, 2 and 4 CE-marked: the ACKs it
    /// sends, as (cumulative ACK, ECN-Echo), then the held packet's after its timer.
    fn delayed_acks(exact_ce: bool) -> Vec<(u64, bool)> {
        let spec = TcpSpec {
            delayed_ack: true,
            ..TcpSpec::default()
        };
        let marks = [false, true, true, false, true, false, false];
        let packets: Vec<_> = (0..).zip(marks).collect();
        receiver_acks(&spec, exact_ce, &packets)
    }

    #[test]
    fn a_packet_that_fills_the_last_hole_is_acknowledged_at_once_when_asked() {
        // Packets 0, 1, then 3 and 5 above holes at 2 and 4, then 2 (fills the first hole),
        // 4 (fills the last), 6. A delayed-ACK receiver acknowledges 0-1 as a pair and each
        // packet above a hole at once (cumulative ACK 2, with SACK blocks), and 2 at once as
        // the hole at 4 stays open (ACK 4): RFC 5681 §4.2 and ns-2's DelAck alike.
        let packets: Vec<_> = [0, 1, 3, 5, 2, 4, 6].map(|s| (s, false)).into();
        let acks = |ack_filled_hole| {
            let spec = TcpSpec {
                delayed_ack: true,
                ack_filled_hole,
                ..TcpSpec::default()
            };
            let acks = receiver_acks(&spec, false, &packets);
            acks.into_iter().map(|(ack, _)| ack).collect::<Vec<_>>()
        };
        // ns-2's DelAck holds 4, which closes the last hole, as any in-order packet; 6 then
        // makes the pair (ACK 7) and the timer finds nothing held.
        assert_eq!(acks(false), [2, 2, 2, 4, 7]);
        // Linux (net/ipv4/tcp_input.c tcp_data_queue, ICSK_ACK_NOW once the out-of-order
        // queue is empty): 4 is acknowledged at once (ACK 6), so 6 is held, for the timer.
        assert_eq!(acks(true), [2, 2, 2, 4, 6, 7]);
    }

    /// The packets a sender counts as marked: every packet an ACK with ECN-Echo newly
    /// acknowledges (RFC 8257 §3.3).
    fn counted_marks(acks: &[(u64, bool)]) -> u64 {
        let mut acked = 0;
        let mut marked = 0;
        for &(ack, ece) in acks {
            marked += if ece { ack - acked } else { 0 };
            acked = ack;
        }
        marked
    }

    #[test]
    fn an_exact_echo_acknowledges_each_change_of_ce_state_at_once() {
        // RFC 8257 §3.2: a change of state sends the held packet's ACK with the old state, then
        // the new packet's at once; packets of one state are acknowledged two by two.
        let exact = delayed_acks(true);
        let expected = [
            (1, false),
            (2, true),
            (3, true),
            (4, false),
            (5, true),
            (6, false),
            (7, false),
        ];
        assert_eq!(exact, expected);
        assert_eq!(counted_marks(&exact), 3);
        // RFC 3168's echo (ns-2's DelAck): a CE packet is acknowledged at once, together with
        // the packet held before it, which the sender then counts as marked too.
        let classic = delayed_acks(false);
        assert_eq!(classic, [(2, true), (3, true), (5, true), (7, false)]);
        assert_eq!(counted_marks(&classic), 5);
    }

    /// A SACK sender with a window of 20 packets (TCP's AIMD, so the loss halves it to 10),
    /// ACKed one packet at a time, whose packet 0 is lost and whose packets sent after the first
    /// 20 never arrive: how many packets it sends on each of the 19 duplicate ACKs.
    fn sent_per_dupack(prr: bool) -> Vec<usize> {
        use crate::net::{HostIo, Side};
        use rand::SeedableRng as _;
        let spec = TcpSpec {
            initial_window_pkts: 20.0,
            limited_transmit: false,
            prr,
            ..TcpSpec::default()
        };
        let tcp = crate::control::Aimd::tcp().starting(spec.window_config());
        let mut snd = TcpSender::new(&spec, Box::new(tcp), Box::new(Bulk));
        let mut rcv = TcpReceiver::new(&spec, Box::new(Sink::default()), false);
        let mut sio = HostIo::new(false, crate::rng::Rng::seed_from_u64(1));
        let mut rio = HostIo::new(false, crate::rng::Rng::seed_from_u64(2));
        snd.start(&mut Ctx::host(&mut sio, 0, Side::Sender));
        rcv.start(&mut Ctx::host(&mut rio, 0, Side::Receiver));
        let first: Vec<Packet> = sio.sent.drain(..).collect();
        assert_eq!(first.len(), 20);
        let mut sent = Vec::new();
        for (ms, pkt) in (1..).zip(&first[1..]) {
            (sio.now, rio.now) = (SimTime::from_ms(ms), SimTime::from_ms(ms));
            rcv.on_packet(&mut Ctx::host(&mut rio, 0, Side::Receiver), pkt);
            let ack = rio.sent.pop().expect("an ACK per packet");
            snd.on_packet(&mut Ctx::host(&mut sio, 0, Side::Sender), &ack);
            sent.push(sio.sent.drain(..).count());
        }
        sent
    }

    #[test]
    fn proportional_rate_reduction_spreads_the_reduction_over_the_recovery() {
        // Worked by hand. The third duplicate ACK (k = 3 SACKed) starts the recovery: window
        // 20 -> ssthresh 10, packet 0 lost (three SACKed above it) and sent again; the pipe on
        // the k-th duplicate is (20 - k - 1) originals + the new packets sent + 1 retransmission.
        // RFC 6675 §5 sends while pipe + 1 <= 10: nothing until k = 11 (pipe 9), then one per
        // ACK.
        let rfc6675 = [0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1];
        assert_eq!(sent_per_dupack(false), rfc6675);
        // RFC 6937 (Linux tcp_cwnd_reduction): delivered d = k - 2 since the start; while the
        // pipe is above 10, sent so far = ceil(d * 10 / 20), one packet every second ACK; at
        // k = 15 the pipe is 4 + 5 + 1 = 10, no longer above ssthresh, and the reduction bound
        // min(ssthresh - pipe, max(d - out, 1)) = 0 holds it; from k = 16 the pipe is 9 and
        // the bound lets one go per ACK. Both send ssthresh = 10 in all.
        let prr = [0, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 0, 1, 1, 1, 1];
        assert_eq!(sent_per_dupack(true), prr);
        assert_eq!(rfc6675.iter().sum::<usize>(), 10);
        assert_eq!(prr.iter().sum::<usize>(), 10);
    }

    #[test]
    fn the_reduction_bound_adds_a_packet_when_the_cumulative_ack_advances_without_a_loss() {
        // RFC 6937 §3.1 PRR-SSRB as Linux tcp_cwnd_reduction: with the pipe (5) at or below
        // ssthresh (10), sndcnt = min(ssthresh - pipe, max(prr_delivered - prr_out,
        // DeliveredData) + 1 if the ACK advanced snd.una and found nothing lost).
        let allowed = |una_advanced, newly_lost| {
            let mut prr = Prr {
                delivered: 6,
                out: 6,
                ..Prr::start(20.0, 10.0)
            };
            prr.on_ack(1, 5.0, una_advanced, newly_lost);
            prr.allowed
        };
        assert_eq!(allowed(true, false), 2);
        assert_eq!(allowed(false, false), 1);
        assert_eq!(allowed(true, true), 1);
    }

    /// An estimator and its limits for `spec`, after 50 samples of 100 ms.
    fn settled(spec: &TcpSpec) -> (RtoEstimator, RtoLimits) {
        let limits = SenderSettings::shared(spec).rto;
        let mut e = RtoEstimator::new(spec);
        for _ in 0..50 {
            e.sample(0.1, &limits);
        }
        (e, limits)
    }

    #[test]
    fn the_ns2_estimator_is_tcp_cc_fixed_point_arithmetic() {
        // ns-2.35 `tcp.cc` `rtt_update()` with its defaults (tick 10 ms, T_SRTT_BITS 3,
        // T_RTTVAR_BITS 2, rttvar_exp_ 2), worked by hand in its integers: t_srtt_ = 8 SRTT,
        // t_rttvar_ = 4 RTTVAR (ticks), t_rtxcur_ = ((t_rttvar_ << 3) + t_srtt_) >> 3 ticks.
        let spec = TcpSpec {
            ns2_rtt: true,
            min_rto_ns: 0,
            ..TcpSpec::default()
        };
        let limits = SenderSettings::shared(&spec).rto;
        let mut e = RtoEstimator::new(&spec);
        let mut step = |m: u64| {
            e.sample_ns2(m, m as f64 * 0.01, &limits);
            let scaled = |x: f64, k: f64| (x / 0.01 * k).round() as i64;
            (
                scaled(e.srtt, 8.0),
                scaled(e.rttvar, 4.0),
                scaled(e.base, 1.0),
            )
        };
        // First sample, 10 ticks: t_srtt_ = 10 << 3, t_rttvar_ = 10 << 1, RTO (160 + 80) >> 3.
        assert_eq!(step(10), (80, 20, 30));
        // 21 ticks: delta = 21 - (80 >> 3) = 11; t_srtt_ = 91; t_rttvar_ = 20 + 11 - (20 >> 2)
        // = 26; RTO (208 + 91) >> 3 = 37 ticks (RFC 6298 in floating point: 0.11375 s + 4 x
        // 0.065 s, 38 ticks rounded up).
        assert_eq!(step(21), (91, 26, 37));
        // 10 ticks: delta = 10 - 11 = -1; t_srtt_ = 90; t_rttvar_ = 26 + 1 - 6 = 21; RTO 32.
        assert_eq!(step(10), (90, 21, 32));
        // Ten ticks for ever: t_srtt_ falls while its truncation exceeds 10 (89, 88, 87) and
        // stays at 87 (10.875 ticks), t_rttvar_ loses a quarter a sample (17, 14, 12, 9, 7, 6,
        // 5, 4, 3) and stays at 3 (3 >> 2 = 0): RTO (24 + 87) >> 3 = 13 ticks, where RFC 6298's
        // RTTVAR decays to nothing and its RTO to SRTT + G = 11 ticks.
        let last = (0..30).map(|_| step(10)).last();
        assert_eq!(last, Some((87, 3, 13)));
        assert_eq!(e.backoff, 1);
        // minrto_ applies before the backoff (`rtt_timeout()` with `rfc2988_`).
        let spec = TcpSpec {
            ns2_rtt: true,
            ..TcpSpec::default()
        };
        let limits = SenderSettings::shared(&spec).rto;
        let mut e = RtoEstimator::new(&spec);
        e.sample_ns2(5, 0.05, &limits);
        assert!((e.timeout(&limits) - 0.2).abs() < 1e-12);
        e.back_off(&limits);
        assert!((e.timeout(&limits) - 0.4).abs() < 1e-12);
    }

    #[test]
    fn an_ns2_sample_counts_the_ticks_of_the_flows_clock() {
        // `rtt_update()` without timestamps: t_rtt_ = int((tao + fmod(sent + boot_time_,
        // tick)) / tick), the tick boundaries of a clock shifted by boot_time_ between the send
        // and the ACK; with timestamps int(tao / tick + 0.5); at least 1 either way.
        let ms = |x: f64| SimTime((x * 1e6).round() as u64);
        let spec = TcpSpec {
            ns2_rtt: true,
            rtt_samples: RttSamples::OnePerRtt,
            ..TcpSpec::default()
        };
        let timed = SenderSettings::shared(&spec).rto;
        let (sent, acked) = (ms(1004.0), ms(1101.0));
        // 97 ms from 1.004 s: boundaries 1.01 ... 1.10 with no shift (10), 1.013 ... 1.093 with
        // boot_time_ 7 ms (0.7 x 65536 = 45875; tickoff 1 ms, int(9.8) = 9).
        assert_eq!(ns2_ticks(sent, acked, 0, &timed), 10);
        assert_eq!(ns2_ticks(sent, acked, 45875, &timed), 9);
        assert_eq!(ns2_ticks(ms(1000.0), ms(1000.5), 0, &timed), 1);
        let every = SenderSettings::shared(&TcpSpec {
            rtt_samples: RttSamples::EveryAck,
            ..spec
        })
        .rto;
        assert_eq!(ns2_ticks(sent, acked, 45875, &every), 10);
        assert_eq!(ns2_ticks(ms(1000.0), ms(1094.0), 0, &every), 9);
        assert_eq!(ns2_ticks(ms(1000.0), ms(1003.0), 0, &every), 1);
    }

    #[test]
    fn a_long_backoff_forgets_the_rtt_when_asked() {
        // RFC 6298 §5: SRTT and RTTVAR may be cleared after repeated backoffs, and the next
        // sample then starts them as a first one does (2.2): RTO = R + 4 R/2 = 3R. ns-2.35
        // clears them once the multiplier exceeds 8.
        let spec = TcpSpec {
            min_rto_ns: 0,
            tick_ns: 0,
            forget_rtt_above_backoff: 8,
            ..TcpSpec::default()
        };
        let (mut e, limits) = settled(&spec);
        for _ in 0..3 {
            e.back_off(&limits);
        }
        e.sample(0.1, &limits);
        assert!(e.base < 0.12, "{}", e.base);
        for _ in 0..4 {
            e.back_off(&limits);
        }
        assert_eq!(e.backoff, 16);
        e.sample(0.1, &limits);
        assert!((e.base - 0.3).abs() < 1e-9, "{}", e.base);
        assert_eq!(e.backoff, 1);
        // Without the setting the same history keeps the smoothed values.
        let (mut e, limits) = settled(&TcpSpec {
            forget_rtt_above_backoff: u32::MAX,
            ..spec
        });
        for _ in 0..4 {
            e.back_off(&limits);
        }
        e.sample(0.1, &limits);
        assert!(e.base < 0.12, "{}", e.base);
    }

    #[test]
    fn one_timed_packet_is_sampled_when_acknowledged_and_dropped_at_a_timeout() {
        let spec = TcpSpec {
            rtt_samples: RttSamples::OnePerRtt,
            ..TcpSpec::default()
        };
        let (mut e, limits) = settled(&spec);
        e.sent_new(5, &limits);
        e.sent_new(6, &limits);
        // An ACK below the timed packet ends nothing; the one that covers it ends its timing.
        assert_eq!(e.timed_acked(5), None);
        assert_eq!(e.timed_acked(7), Some(5));
        assert_eq!(e.timed_acked(8), None);
        // A timeout stops the timing (Karn: the next packet sent is a retransmission), as
        // does a fast retransmit.
        e.sent_new(9, &limits);
        e.back_off(&limits);
        assert_eq!(e.timed_acked(10), None);
        e.sent_new(11, &limits);
        e.stop_timing();
        assert_eq!(e.timed_acked(12), None);
        // Without the setting nothing is timed this way.
        let (mut e, limits) = settled(&TcpSpec::default());
        e.sent_new(5, &limits);
        assert_eq!(e.timed_acked(6), None);
    }

    /// A sender and a receiver of `spec` driven by hand (no network between them), started
    /// at time 0.
    struct Pair {
        snd: TcpSender,
        rcv: TcpReceiver,
        sio: crate::net::HostIo,
        rio: crate::net::HostIo,
    }

    /// `pkts` reach endpoint `ep` (on `side`, driven through `io`) at `at` (ms); returns what
    /// it sends.
    fn arrive(
        ep: &mut dyn Endpoint,
        io: &mut crate::net::HostIo,
        side: crate::net::Side,
        at: u64,
        pkts: &[Packet],
    ) -> Vec<Packet> {
        io.now = SimTime::from_ms(at);
        for pkt in pkts {
            ep.on_packet(&mut Ctx::host(io, 0, side), pkt);
        }
        std::mem::take(&mut io.sent)
    }

    impl Pair {
        fn new(spec: &TcpSpec) -> Self {
            use crate::net::{HostIo, Side};
            use rand::SeedableRng as _;
            let tcp = crate::control::Aimd::tcp().starting(spec.window_config());
            let mut p = Pair {
                snd: TcpSender::new(spec, Box::new(tcp), Box::new(Bulk)),
                rcv: TcpReceiver::new(spec, Box::new(Sink::default()), false),
                sio: HostIo::new(false, crate::rng::Rng::seed_from_u64(1)),
                rio: HostIo::new(false, crate::rng::Rng::seed_from_u64(2)),
            };
            p.snd.start(&mut Ctx::host(&mut p.sio, 0, Side::Sender));
            p.rcv.start(&mut Ctx::host(&mut p.rio, 0, Side::Receiver));
            p
        }

        /// What the sender sent since last asked.
        fn sent(&mut self) -> Vec<Packet> {
            std::mem::take(&mut self.sio.sent)
        }

        /// `pkts` reach the receiver at `at` (ms); returns the ACKs it sends.
        fn reach_receiver(&mut self, at: u64, pkts: &[Packet]) -> Vec<Packet> {
            let side = crate::net::Side::Receiver;
            arrive(&mut self.rcv, &mut self.rio, side, at, pkts)
        }

        /// `acks` reach the sender at `at` (ms); returns what it sends.
        fn reach_sender(&mut self, at: u64, acks: &[Packet]) -> Vec<Packet> {
            arrive(
                &mut self.snd,
                &mut self.sio,
                crate::net::Side::Sender,
                at,
                acks,
            )
        }

        /// The sender's retransmission timer fires (it must be armed); returns what it sends.
        fn rto_fires(&mut self) -> Vec<Packet> {
            let at = self.sio.timers[RTO_TIMER].take().expect("the RTO armed");
            self.sio.now = at;
            let mut ctx = Ctx::host(&mut self.sio, 0, crate::net::Side::Sender);
            self.snd.on_timer(&mut ctx, RTO_TIMER);
            self.sent()
        }

        fn ssthresh(&self) -> f64 {
            let mut out = StateFields::default();
            self.snd.state(&mut out);
            out.iter()
                .find(|(k, _)| *k == "ssthresh_pkts")
                .expect("ssthresh")
                .1
        }
    }

    fn seqs(pkts: &[Packet]) -> Vec<u64> {
        pkts.iter().map(|p| p.header.seq).collect()
    }

    /// A SACK sender of initial window 6 whose packets 0, 2, 4 and 5 are lost: 1 and 3 arrive,
    /// their two duplicate ACKs let 6 and 7 go (limited transmit), both held up, and the timer
    /// fires. Returns the pair at that moment (in ms), 6 and 7, and what the timeout resent.
    fn timed_out_over_sacked_packets(
        go_back_n: bool,
        kept: bool,
    ) -> (Pair, u64, Vec<Packet>, Vec<Packet>) {
        let spec = TcpSpec {
            variant: Variant::Sack,
            initial_window_pkts: 6.0,
            sack_lost_after: 1,
            sack_go_back_n: go_back_n,
            sack_kept_at_timeout: kept,
            ..TcpSpec::default()
        };
        let mut p = Pair::new(&spec);
        let first = p.sent();
        assert_eq!(seqs(&first), [0, 1, 2, 3, 4, 5]);
        let acks = p.reach_receiver(50, &[first[1], first[3]]);
        let limited = p.reach_sender(100, &acks);
        assert_eq!(seqs(&limited), [6, 7]);
        let resent = p.rto_fires();
        let now_ms = p.sio.now.0 / 1_000_000;
        (p, now_ms, limited, resent)
    }

    /// After a timeout RFC 6675 §5.1's go-back-N skips what the receiver reports holding, and
    /// ns-2.35's Sack1 resends it, worked by hand from `tcp-sack1.cc` and `tcp.cc`: the timeout
    /// (`timeout()`, `reset_rtx_timer()`) empties the scoreboard, sets `timeout_` and goes back
    /// to packet 0 at a window of 1; the resent 0 fills the first hole, and its ACK (2, with
    /// SACK block [3, 4)) is a new ACK, whose blocks Sack1 does not read and whose arrival
    /// empties the scoreboard (`recv()`), so `send_much()` sends from `t_seqno_` = 2 at a
    /// window of 2: 2 and 3, though the receiver holds 3. RFC 6675 sends 2 alone: 3, SACKed,
    /// is skipped and the window of 2 from 2 ends there.
    #[test]
    fn sack1_goes_back_n_over_sacked_packets_after_a_timeout() {
        for (go_back_n, want) in [(false, &[2][..]), (true, &[2, 3][..])] {
            let (mut p, t, _, resent) = timed_out_over_sacked_packets(go_back_n, false);
            assert_eq!(seqs(&resent), [0]);
            let acks = p.reach_receiver(t + 50, &resent);
            assert_eq!(acks[0].header.ack, 2);
            assert_eq!(acks[0].header.blocks[..2], [3, 4]);
            assert_eq!(seqs(&p.reach_sender(t + 100, &acks)), want, "{go_back_n}");
        }
    }

    /// The timeout forgets the scoreboard (RFC 2018 §8) unless the sender keeps it, as Linux
    /// does (`tcp_timeout_mark_lost`): then 1 and 3, SACKed before, are still known held.
    #[test]
    fn a_timeout_keeps_the_scoreboard_only_when_asked() {
        for (kept, held) in [(false, 0), (true, 2)] {
            let (p, ..) = timed_out_over_sacked_packets(false, kept);
            assert_eq!(p.snd.sacked.count_from(0), held, "kept: {kept}");
        }
    }

    /// After a timeout that kept the scoreboard, every packet sent before it and not SACKed is
    /// lost (Linux `tcp_timeout_mark_lost`) and the holes go again by the pipe, as Linux's
    /// `TCP_CA_Loss` state sends them: the resent 0's ACK (2, block [3, 4)) opens a window of 2
    /// with nothing in flight, so 2 and 4 go, 3 skipped. A sender that forgot the scoreboard
    /// sends from 2 in a window of 2 packets counted from there: 2 alone.
    #[test]
    fn a_kept_scoreboard_resends_the_holes_by_the_pipe_after_a_timeout() {
        for (kept, want) in [(false, &[2][..]), (true, &[2, 4][..])] {
            let (mut p, t, _, resent) = timed_out_over_sacked_packets(false, kept);
            assert_eq!(seqs(&resent), [0]);
            let acks = p.reach_receiver(t + 50, &resent);
            assert_eq!(acks[0].header.ack, 2);
            assert_eq!(seqs(&p.reach_sender(t + 100, &acks)), want, "kept: {kept}");
        }
    }

    /// With timestamps (Linux `tcp_ack_update_rtt`) a duplicate ACK that SACKs a packet sent
    /// once is timed (`sack_rtt_us`), and so is the ACK of a retransmission, whose echo is the
    /// retransmission's own send time (RFC 7323 §4), which ends the timeout's backoff (RFC 6298
    /// §5.7). By Karn's rule neither is: the RTO stays at its initial 1 s and, after the
    /// timeout, backed off until a packet sent once is acknowledged.
    #[test]
    fn timestamps_time_sacks_and_retransmissions() {
        for rtt_samples in [RttSamples::EveryAck, RttSamples::Timestamps] {
            let timestamps = rtt_samples == RttSamples::Timestamps;
            let spec = TcpSpec {
                variant: Variant::Sack,
                initial_window_pkts: 6.0,
                rtt_samples,
                ..TcpSpec::default()
            };
            let mut p = Pair::new(&spec);
            let first = p.sent();
            // 1 and 3 arrive, 0 is lost: two duplicate ACKs, each SACKing a packet sent at 0.
            let acks = p.reach_receiver(50, &[first[1], first[3]]);
            p.reach_sender(100, &acks);
            let srtt = p.snd.rto.srtt();
            assert_eq!(srtt, timestamps.then_some(0.1), "timestamps: {timestamps}");
            let resent = p.rto_fires();
            assert_eq!((seqs(&resent)[0], p.snd.rto.backoff), (0, 2));
            let t = p.sio.now.0 / 1_000_000;
            let acks = p.reach_receiver(t + 50, &resent[..1]);
            assert_eq!(acks[0].header.flags & RETX, RETX);
            p.reach_sender(t + 100, &acks);
            let backoff = if timestamps { 1 } else { 2 };
            assert_eq!(p.snd.rto.backoff, backoff, "timestamps: {timestamps}");
        }
    }

    /// Sack1 from a timeout to the next new ACK (`timeout_`): a late duplicate ACK (7 arrives
    /// after the timeout: ACK 0, blocks [7, 8), [3, 4), [1, 2)) is not read, not counted, and
    /// lets nothing go (`send_much()` at window 1 from `t_seqno_` = 1: 1 > `last_ack_` + 1 =
    /// 0). RFC 6675 reads and counts it; limited transmit's window of 1 + 1 from 0 holds 1,
    /// SACKed: nothing goes either.
    /// After the new ACK a duplicate ACK counts only if it SACKs something new
    /// (`CheckUpdate()`): the resent 2 and 3 bring ACK 4 and a duplicate with block [7, 8),
    /// new to the scoreboard the new ACK emptied (counted: 1); 3 once more repeats the same
    /// block (not counted).
    #[test]
    fn sack1_ignores_duplicate_acks_from_a_timeout_to_the_next_new_ack() {
        let (mut p, t, limited, resent) = timed_out_over_sacked_packets(false, false);
        let late = p.reach_receiver(t + 10, &limited[1..]);
        assert!(p.reach_sender(t + 20, &late).is_empty());
        assert_eq!(p.snd.dupacks, 1);
        assert_eq!(p.snd.sacked.count_from(0), 3);
        let (mut p, t, limited, resent2) = timed_out_over_sacked_packets(true, false);
        assert_eq!(seqs(&resent), seqs(&resent2));
        let late = p.reach_receiver(t + 10, &limited[1..]);
        assert_eq!(late[0].header.ack, 0);
        assert_eq!(late[0].header.blocks, [7, 8, 3, 4, 1, 2]);
        assert!(p.reach_sender(t + 20, &late).is_empty());
        assert_eq!(p.snd.dupacks, 0);
        assert!(p.snd.sacked.is_empty());
        let acks = p.reach_receiver(t + 50, &resent2);
        let next = p.reach_sender(t + 100, &acks);
        assert_eq!(seqs(&next), [2, 3]);
        let acks = p.reach_receiver(t + 150, &next);
        assert_eq!(
            acks.iter().map(|a| a.header.ack).collect::<Vec<_>>(),
            [4, 4]
        );
        p.reach_sender(t + 200, &acks);
        assert_eq!(p.snd.dupacks, 1);
        let again = p.reach_receiver(t + 250, &next[1..]);
        assert_eq!(again[0].header.blocks[..2], [7, 8]);
        p.reach_sender(t + 300, &again);
        assert_eq!(p.snd.dupacks, 1);
    }

    /// A SACK sender's retransmission of packet 0 is lost too. With RACK the ACKs of the new
    /// packets sent after it show it lost, and it goes again at once (RFC 8985 §6.2); without,
    /// only the timer will find it.
    #[test]
    fn rack_finds_a_lost_retransmission_without_a_timeout() {
        for rack in [false, true] {
            let spec = TcpSpec {
                variant: Variant::Sack,
                initial_window_pkts: 10.0,
                rack_lost_retransmissions: rack,
                ..TcpSpec::default()
            };
            let mut p = Pair::new(&spec);
            let first = p.sent();
            let acks = p.reach_receiver(50, &first[1..]);
            let recovery = p.reach_sender(100, &acks);
            assert!(seqs(&recovery).contains(&0), "the fast retransmit");
            let new: Vec<Packet> = recovery.into_iter().filter(|p| p.header.seq != 0).collect();
            let acks = p.reach_receiver(150, &new);
            assert!(!acks.is_empty());
            let again = p.reach_sender(200, &acks);
            assert_eq!(seqs(&again).contains(&0), rack, "rack: {rack}");
            assert_eq!(p.snd.stats.timeouts, 0);
        }
    }

    /// Packet 0 is lost; the duplicate ACKs of 1-9 reach the sender 10 ms apart. The third
    /// starts the recovery and arms the timer; with `rto_every_ack` each later one restarts it
    /// (ns-2.35's TCP/Linux), else it runs from the fast retransmit (RFC 6298 §5.3).
    #[test]
    fn every_ack_restarts_the_timer_only_when_asked() {
        for every in [false, true] {
            let spec = TcpSpec {
                variant: Variant::Sack,
                initial_window_pkts: 10.0,
                rto_every_ack: every,
                ..TcpSpec::default()
            };
            let mut p = Pair::new(&spec);
            let first = p.sent();
            let mut last = 0;
            for (i, pkt) in first[1..].iter().enumerate() {
                let acks = p.reach_receiver(50 + 10 * i as u64, std::slice::from_ref(pkt));
                last = 100 + 10 * i as u64;
                p.reach_sender(last, &acks);
            }
            let rto = SimTime::from_secs_f64(p.snd.rto.timeout(&p.snd.spec.rto));
            let from = if every { last } else { 120 };
            assert_eq!(
                p.sio.timers[RTO_TIMER],
                Some(SimTime::from_ms(from) + rto),
                "every ACK: {every}"
            );
        }
    }

    /// Packet 0 is lost, and in its recovery the first packet sent past the recovery point
    /// too. The ACK that ends the recovery (the retransmission of 0 delivered) leaves that one
    /// lost: with `recovery_on_lost` the next recovery begins on that very ACK (RFC 6675 §5
    /// step 2, Linux `tcp_time_to_recover`); without, the sender waits for duplicate ACKs.
    #[test]
    fn a_packet_lost_in_one_recovery_begins_the_next_on_the_ack_that_ends_it() {
        for on in [false, true] {
            let spec = TcpSpec {
                variant: Variant::Sack,
                initial_window_pkts: 10.0,
                recovery_on_lost: on,
                ..TcpSpec::default()
            };
            let mut p = Pair::new(&spec);
            let first = p.sent();
            let acks = p.reach_receiver(50, &first[1..]);
            let recovery = p.reach_sender(100, &acks);
            // Limited transmit (RFC 3042) sent 10 and 11 before the third duplicate ACK.
            let recover = p.snd.recover;
            assert_eq!(recover, 12);
            let (again, new): (Vec<Packet>, Vec<Packet>) =
                recovery.into_iter().partition(|p| p.header.seq == 0);
            assert_eq!(seqs(&again), [0], "the fast retransmit");
            let (lost, new): (Vec<Packet>, Vec<Packet>) =
                new.into_iter().partition(|p| p.header.seq == recover);
            assert_eq!(lost.len(), 1);
            // New packets reach the receiver until three above the lost one make it lost
            // (IsLost) and the same recovery resends it; that copy is held back too.
            let (mut new, mut t) = (new, 150);
            loop {
                let acks = p.reach_receiver(t, &new);
                let sent = p.reach_sender(t + 50, &acks);
                t += 100;
                if seqs(&sent).contains(&recover) {
                    new = sent
                        .into_iter()
                        .filter(|p| p.header.seq != recover)
                        .collect();
                    break;
                }
                assert!(!sent.is_empty() && t < 1000, "{:?}", seqs(&sent));
                new = sent;
            }
            let acks = p.reach_receiver(t, &new);
            p.reach_sender(t + 50, &acks);
            assert_eq!(p.snd.stats.fast_retransmits, 1);
            let acks = p.reach_receiver(t + 100, &again);
            assert_eq!(acks[0].header.ack, recover);
            p.reach_sender(t + 150, &acks);
            assert_eq!(p.snd.in_recovery, on, "on: {on}");
            assert_eq!(p.snd.stats.fast_retransmits, 1 + u64::from(on));
        }
    }

    /// ns-2.35's start (`syn_`, `delay_growth_`): a header-only SYN alone, then, on its ACK,
    /// the initial window of data from packet 0; the SYN's round trip is the first RTT sample.
    #[test]
    fn a_syn_goes_alone_and_its_ack_opens_the_initial_window() {
        let spec = TcpSpec {
            syn: true,
            initial_window_pkts: 4.0,
            ..TcpSpec::default()
        };
        let mut p = Pair::new(&spec);
        let syn = p.sent();
        assert_eq!(syn.len(), 1, "the SYN alone, whatever the initial window");
        assert_eq!(syn[0].header.flags, SYN);
        assert_eq!(syn[0].size_bytes, spec.ack_bytes);
        assert!(!syn[0].ecn.capable);
        // The RTO before a sample: ns-2.35's `rtxcur_init_`.
        assert_eq!(p.sio.timers[RTO_TIMER], Some(SimTime(spec.initial_rto_ns)));
        let ack = p.reach_receiver(60, &syn);
        assert_eq!(ack.len(), 1);
        assert_eq!(ack[0].header.flags & SYN, SYN);
        // Not data: nothing delivered, nothing counted twice.
        assert_eq!((p.rcv.rcv_nxt, p.rcv.duplicates), (0, 0));
        let data = p.reach_sender(120, &ack);
        let seqs: Vec<u64> = data.iter().map(|d| d.header.seq).collect();
        assert_eq!(seqs, [0, 1, 2, 3]);
        assert!(data
            .iter()
            .all(|d| d.header.flags == 0 && d.size_bytes == spec.packet_bytes));
        let srtt = p.snd.rto.srtt().expect("a sample");
        assert!((srtt - 0.12).abs() < 1e-12, "{srtt}");
        // RFC 6298 §2.2 from the one sample: 0.12 + 4 × 0.06 s.
        let rto = p.snd.rto.timeout(&p.snd.spec.rto);
        assert!((rto - 0.36).abs() < 1e-9, "{rto}");
        assert_eq!(p.snd.stats.timeouts, 0);
        // The data's ACKs are the data's: packet 0 acknowledged opens slow start as usual.
        let acks = p.reach_receiver(180, &data[..1]);
        assert_eq!(acks[0].header.ack, 1);
        assert_eq!(p.reach_sender(240, &acks).len(), 2);
        // Without the setting the data leaves at once.
        let mut q = Pair::new(&TcpSpec { syn: false, ..spec });
        assert_eq!(
            q.sent().iter().map(|d| d.header.seq).collect::<Vec<_>>(),
            [0, 1, 2, 3]
        );
    }

    /// A lost SYN: ns-2.35's `timeout()` after `rtxcur_init_` (3 s) resends it, with ssthresh 2
    /// and a window of 1 (`slowdown(CLOSE_SSTHRESH_HALF|CLOSE_CWND_RESTART)` at its window of
    /// 1, `bugfix_ss_` making the initial window 1); the RTO is backed off and the resent SYN
    /// gives no sample (Karn), so the data's first timer runs 6 s.
    #[test]
    fn a_lost_syn_is_resent_after_the_initial_rto_with_ssthresh_2() {
        let spec = TcpSpec {
            syn: true,
            initial_window_pkts: 2.0,
            ..TcpSpec::default()
        };
        assert_eq!(spec.initial_rto_ns, 3_000_000_000);
        let mut p = Pair::new(&spec);
        p.sent(); // lost
        let again = p.rto_fires();
        assert_eq!(p.sio.now, SimTime::from_ms(3_000));
        assert_eq!(again.len(), 1);
        assert_eq!(again[0].header.flags, SYN | RETX);
        assert_eq!(p.snd.stats.timeouts, 1);
        assert_eq!((p.snd.cwnd(), p.ssthresh()), (1.0, 2.0));
        // Backed off: the next timer runs 2 × 3 s.
        assert_eq!(p.sio.timers[RTO_TIMER], Some(SimTime::from_ms(9_000)));
        let ack = p.reach_receiver(3_100, &again);
        assert_eq!(ack[0].header.flags, SYN | RETX);
        let data = p.reach_sender(3_200, &ack);
        assert_eq!(data.iter().map(|d| d.header.seq).collect::<Vec<_>>(), [0]);
        assert_eq!(p.snd.rto.srtt(), None);
        assert_eq!(p.sio.timers[RTO_TIMER], Some(SimTime::from_ms(9_200)));
        // Slow start to ssthresh 2, then congestion avoidance: 1/cwnd per ACK.
        let acks = p.reach_receiver(3_300, &data);
        let more = p.reach_sender(3_400, &acks);
        assert_eq!(more.len(), 2);
        assert_eq!(p.snd.cwnd(), 2.0);
        let acks = p.reach_receiver(3_500, &more);
        p.reach_sender(3_600, &acks[..1]);
        assert!((p.snd.cwnd() - 2.5).abs() < 1e-9, "{}", p.snd.cwnd());
    }

    /// The first SYN's ACK after its timer fired: it opens the window (ns-2.35: any ACK of
    /// packet 0); it gives an RTT sample when every ACK of a packet sent once does (its echo
    /// is the first SYN's send time), none when one packet is timed at a time (ns-2.35's
    /// timeout stops the timing). The second SYN's ACK then changes nothing.
    #[test]
    fn a_late_syn_ack_opens_the_window_and_is_timed_as_the_rtt_rule_says() {
        for rtt_samples in [RttSamples::EveryAck, RttSamples::OnePerRtt] {
            let spec = TcpSpec {
                syn: true,
                rtt_samples,
                ..TcpSpec::default()
            };
            let mut p = Pair::new(&spec);
            let first = p.sent();
            let again = p.rto_fires();
            let acks = p.reach_receiver(3_500, &[first[0], again[0]]);
            let data = p.reach_sender(3_600, &acks[..1]);
            assert_eq!(data.len(), 1, "window 1 after the timeout");
            let srtt = p.snd.rto.srtt();
            if rtt_samples == RttSamples::OnePerRtt {
                assert_eq!(srtt, None);
            } else {
                assert!((srtt.expect("a sample") - 3.6).abs() < 1e-9, "{srtt:?}");
            }
            assert!(p.reach_sender(3_700, &acks[1..]).is_empty());
            assert_eq!(p.snd.stats.timeouts, 1);
        }
    }

    #[test]
    fn a_delayed_ack_receiver_answers_a_syn_at_once() {
        // ns-2.35's `TCPSink` `SYN_immediate_ack_` (true by default).
        let spec = TcpSpec {
            syn: true,
            delayed_ack: true,
            ..TcpSpec::default()
        };
        let mut p = Pair::new(&spec);
        let syn = p.sent();
        assert_eq!(p.reach_receiver(50, &syn).len(), 1);
        assert_eq!(p.rio.timers[DELACK_TIMER], None);
    }

    #[test]
    fn senders_of_equal_settings_share_them_and_others_do_not() {
        let spec = TcpSpec::default();
        let (a, b) = (SenderSettings::shared(&spec), SenderSettings::shared(&spec));
        assert!(Arc::ptr_eq(&a, &b));
        let other = TcpSpec {
            min_rto_ns: 1_000_000_000,
            ..TcpSpec::default()
        };
        let c = SenderSettings::shared(&other);
        assert!(!Arc::ptr_eq(&a, &c));
        assert_eq!((a.rto.min, c.rto.min), (spec.min_rto_ns as f64 * 1e-9, 1.0));
        assert_eq!(
            (c.packet_bytes, c.variant),
            (spec.packet_bytes, spec.variant)
        );
    }

    #[test]
    fn senders_and_receivers_stay_small() {
        use std::mem::size_of;
        // One of each per flow: at ten thousand flows every byte here is 10 kB (and each is
        // a heap block of its own, so what counts is the size rounded up to 16 bytes).
        // Shared among senders with equal settings.
        assert_eq!(size_of::<Arc<SenderSettings>>(), 8);
        // The SACK scoreboard (runs) and the retransmitted packets take a vector each (no
        // 192-byte node after a loss); what only applications that retransmit on NACK use is
        // boxed, as is what only controllers that pace or take delivery-rate samples use.
        // 392: a glibc heap block is what was asked for plus its 8-byte size, rounded up to 16
        // bytes, so 392 bytes take the same 400-byte block as the 384 before the smallest RTT
        // was kept as a time (and 376 before ns-2's one timed packet was kept).
        assert!(size_of::<TcpSender>() <= 392, "{}", size_of::<TcpSender>());
        // A receiver's packets held above a hole are runs; what they carry is kept (boxed) only
        // for an application that watches deliveries; NACKs, which TCP does not carry, take no
        // room. 136: where the last ACK's three SACK blocks started, which the next repeats
        // (RFC 2018 §4), took a 144-byte heap block where 120 took 128.
        assert!(
            size_of::<TcpReceiver>() <= 136,
            "{}",
            size_of::<TcpReceiver>()
        );
        // The default receiving application keeps nothing: its box takes no memory.
        assert_eq!(size_of::<Sink>(), 0);
    }
}
