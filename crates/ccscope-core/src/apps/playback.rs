//! A playback receiver: a media client that buffers what its transport delivers and plays it
//! out at a constant rate after a start-up delay (Cai, Shen, Pan & Mark 2005 §IV-A, §V-B:
//! consumption at a constant rate C, 3 s of pre-buffering, interruptions when the buffer runs
//! dry; Loguinov & Radha 2003 §VI-C: 3 s start-up delay), and measures delivery jitter as
//! Papadimitriou & Zhang's Video Delivery Index (2007 §V).
//!
//! The model (fluid, exact at delivery times):
//! - Playback starts `startup` after the first delivery, whatever the buffer holds then.
//! - While playing, the buffer drains at C bytes/s. When it runs dry, playback is interrupted
//!   (one interruption, Cai's buffer underrun) and stays frozen until the buffer again holds
//!   `rebuffer` seconds of playback (C · rebuffer bytes; default the start-up delay), as a
//!   player re-buffers. Frozen time is the total time spent interrupted.
//! - C is a given rate, or the flow's mean throughput over the session (Cai §V-B: "a constant
//!   rate, which equals its mean throughput"): delivered bytes over the time from the first to
//!   the last delivery. Since that rate is known only at the end, the receiver logs
//!   (delivery time, bytes) and evaluates the playout when its numbers are asked for; the
//!   session ends at the last delivery.
//! - The maximum receiver queue is the largest buffer level (Cai Table I, "max queue").
//! - A delivered packet is jitter-free when it arrives at most `vdi_threshold` (75 ms,
//!   Papadimitriou §V) after the packet delivered before it (the first packet is jitter-free);
//!   otherwise it is delayed. Video Delivery Index = jitter-free packets / packets sent (the
//!   engine's count of the flow's sent packets, applied in Python); the delayed-packet rate =
//!   delayed packets / packets delivered. Both counts cover the run's measurement window, as
//!   the packets sent do; the playout numbers cover the whole session.
//!
//! - Video (packets tagged with a decoding unit and its capture time, [`super::Mpeg4`],
//!   [`super::Fgs`]; a unit is one frame, or several whose base layers an FGS server packed
//!   together): unit u is decoded at its capture time plus the start-up delay; if its base
//!   layer has not fully arrived by then, each of its frames is a freeze frame (Loguinov &
//!   Radha 2003 §VI-C: an underflow of the base layer "results in a freeze-frame"), and the
//!   freeze fraction is the share of the frames decoded before the run ends that froze. Unit
//!   sizes come from the source's [`FrameLedger`] (a video packet's header).
//!
//! - For packets tagged with their production time (video frames, [`super::Multirate`]), the
//!   longest time one produced after the warm-up waited in the sender before the copy that
//!   arrived was sent (Cai et al. §IV-B's d_q).
//!
//! - With NACKs on ([`Playback::with_nacks`], for a sender that retransmits, Loguinov & Radha
//!   2003 §VI-C): a delivery whose sequence number skips some reports each skipped one missing
//!   ([`RecvCtx::nack`]; the transport's sequence numbers are consecutive and its path keeps
//!   order, so a gap is a loss). A resent base-layer packet that arrives by its frame's
//!   decoding time is a useful retransmission.
//!
//! Hooks: [`ReceiveApp::on_deliver`] logs the delivery (and NACKs gaps); nothing else.

use super::video::FrameLedger;
use super::{Delivery, ReceiveApp, RecvCtx};
use crate::net::Stat;
use crate::time::SimTime;

/// Resolution of the buffer series in results.
const SERIES_STEP: SimTime = SimTime::from_ms(100);

/// The consumption rate of a playback receiver.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Consumption {
    /// A constant rate (bits/s), > 0.
    Rate(f64),
    /// The flow's mean throughput over the session.
    MeanThroughput,
}

/// Settings of a playback receiver.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PlaybackSpec {
    pub startup_ns: u64,
    pub rebuffer_ns: u64,
    pub consumption: Consumption,
    pub vdi_threshold_ns: u64,
    /// When the flow's session ends (its stop or the end of the run): frames due later are
    /// not counted.
    pub end_ns: u64,
    /// The run's warm-up: the sender delay counts packets produced from then on.
    pub warmup_ns: u64,
}

/// What a playout of a delivery log came to.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Outcome {
    /// Consumption rate (bits/s).
    pub rate_bps: f64,
    /// Buffer underruns after playback started.
    pub interruptions: u64,
    /// Time spent interrupted (s).
    pub frozen_s: f64,
    /// Largest buffer level (bytes).
    pub max_queue_bytes: f64,
    /// Session length, first to last delivery (s).
    pub session_s: f64,
}

/// Plays `log` (delivery time, bytes; in time order) out at `rate_bps` after `startup`,
/// re-buffering `rebuffer` seconds of playback after an underrun.
pub fn play(log: &[(SimTime, u32)], rate_bps: f64, startup: SimTime, rebuffer: SimTime) -> Outcome {
    play_with(log, rate_bps, startup, rebuffer, |_, _| {})
}

/// [`play`], calling `level(t, bytes)` with the buffer level after each delivery.
fn play_with(
    log: &[(SimTime, u32)],
    rate_bps: f64,
    startup: SimTime,
    rebuffer: SimTime,
    mut level: impl FnMut(SimTime, f64),
) -> Outcome {
    let (Some(&(first, _)), Some(&(last, _))) = (log.first(), log.last()) else {
        return Outcome::default();
    };
    let c = rate_bps / 8.0; // bytes/s
    let mut out = Outcome {
        rate_bps,
        session_s: (last - first).secs(),
        ..Outcome::default()
    };
    if !(c > 0.0 && c.is_finite()) {
        return out;
    }
    let start = first + startup;
    let (mut buffer, mut now) = (0.0f64, first);
    let (mut started, mut playing, mut frozen_since) = (false, false, first);
    for &(t, bytes) in log {
        // Start playback if its time has come before this delivery.
        if !started && start <= t {
            started = true;
            playing = true;
            now = start;
        }
        if playing {
            let dry_at = now.secs() + buffer / c;
            if dry_at <= t.secs() {
                buffer = 0.0;
                playing = false;
                out.interruptions += 1;
                frozen_since = SimTime::from_secs_f64(dry_at);
            } else {
                buffer -= c * (t - now).secs();
            }
        }
        now = t;
        buffer += bytes as f64;
        out.max_queue_bytes = out.max_queue_bytes.max(buffer);
        level(t, buffer);
        if started && !playing && buffer >= c * rebuffer.secs() {
            playing = true;
            out.frozen_s += (t - frozen_since).secs();
        }
    }
    if started && !playing {
        out.frozen_s += (last - frozen_since.min(last)).secs();
    }
    out
}

/// The playback receiver.
#[derive(Clone, Debug)]
pub struct Playback {
    spec: PlaybackSpec,
    /// Deliveries: time, bytes.
    log: Vec<(SimTime, u32)>,
    jitter_free: u64,
    delayed: u64,
    /// Video: base-layer bytes of each decoding unit that arrived by its decoding time, and
    /// the source's units.
    on_time: Vec<u64>,
    ledger: Option<FrameLedger>,
    /// Longest wait in the sender of a packet tagged with its production time (s).
    sender_delay_s: Option<f64>,
    /// With NACKs: the next sequence number expected, and resent packets delivered and those
    /// of them that were base-layer data in time for decoding.
    nacks: Option<u64>,
    resent: u64,
    resent_useful: u64,
}

impl Playback {
    pub fn new(spec: PlaybackSpec) -> Self {
        Playback {
            spec,
            log: Vec::new(),
            jitter_free: 0,
            delayed: 0,
            on_time: Vec::new(),
            ledger: None,
            sender_delay_s: None,
            nacks: None,
            resent: 0,
            resent_useful: 0,
        }
    }

    /// A receiver that NACKs every packet missing from the sequence.
    pub fn with_nacks(self) -> Self {
        Playback {
            nacks: Some(0),
            ..self
        }
    }

    /// A receiver that also decodes frames, their sizes read from `ledger`.
    pub fn with_frames(self, ledger: FrameLedger) -> Self {
        Playback {
            ledger: Some(ledger),
            ..self
        }
    }

    /// Frames decoded before the session's end and how many of them froze: all the frames
    /// of a unit whose base layer is incomplete at the unit's decoding time.
    pub fn frames(&self) -> Option<(u64, u64)> {
        let ledger = self.ledger.as_ref()?.lock().expect("frame ledger lock");
        let (mut decoded, mut frozen) = (0, 0);
        for (u, unit) in ledger.iter().enumerate() {
            if unit.captured + SimTime(self.spec.startup_ns) > SimTime(self.spec.end_ns) {
                continue;
            }
            decoded += unit.frames as u64;
            if self.on_time.get(u).copied().unwrap_or(0) < unit.base_bytes {
                frozen += unit.frames as u64;
            }
        }
        Some((decoded, frozen))
    }

    /// The playout of what was delivered so far.
    pub fn outcome(&self) -> Outcome {
        play(
            &self.log,
            self.rate_bps(),
            SimTime(self.spec.startup_ns),
            SimTime(self.spec.rebuffer_ns),
        )
    }

    /// The consumption rate (bits/s).
    fn rate_bps(&self) -> f64 {
        match self.spec.consumption {
            Consumption::Rate(bps) => bps,
            Consumption::MeanThroughput => {
                let bytes: u64 = self.log.iter().map(|&(_, b)| b as u64).sum();
                match (self.log.first(), self.log.last()) {
                    (Some(&(a, _)), Some(&(b, _))) if b > a => bytes as f64 * 8.0 / (b - a).secs(),
                    _ => 0.0,
                }
            }
        }
    }
}

impl ReceiveApp for Playback {
    fn on_deliver(&mut self, cx: &mut RecvCtx, packet: &Delivery) {
        let now = cx.now();
        match self.log.last() {
            Some(&(prev, _)) if now - prev > SimTime(self.spec.vdi_threshold_ns) => {
                self.delayed += 1
            }
            _ => self.jitter_free += 1,
        }
        self.log.push((now, packet.bytes));
        if let Some(next) = &mut self.nacks {
            for seq in *next..packet.seq {
                cx.nack(seq);
            }
            *next = (*next).max(packet.seq + 1);
            self.resent += packet.resent as u64;
        }
        if let Some(made) = packet
            .tag
            .deadline()
            .filter(|&t| t >= SimTime(self.spec.warmup_ns))
        {
            let wait = (packet.sent_at - made.min(packet.sent_at)).secs();
            self.sender_delay_s = Some(self.sender_delay_s.map_or(wait, |w| w.max(wait)));
        }
        if let (Some(captured), 0) = (packet.tag.deadline(), packet.tag.layer) {
            if now <= captured + SimTime(self.spec.startup_ns) {
                let f = packet.tag.frame as usize;
                if self.on_time.len() <= f {
                    self.on_time.resize(f + 1, 0);
                }
                self.on_time[f] += packet.bytes as u64;
                self.resent_useful += packet.resent as u64;
            }
        }
    }

    fn stats(&self) -> Vec<(&'static str, Stat)> {
        let o = self.outcome();
        let mut out = vec![
            ("playback_rate_bps", Stat::Level(o.rate_bps)),
            ("interruptions", Stat::Level(o.interruptions as f64)),
            ("frozen_s", Stat::Level(o.frozen_s)),
            ("max_receiver_queue_bytes", Stat::Level(o.max_queue_bytes)),
            ("session_s", Stat::Level(o.session_s)),
            // Counts over the measurement window, as the engine counts the packets sent.
            ("jitter_free_pkts", Stat::Count(self.jitter_free as f64)),
            ("delayed_pkts", Stat::Count(self.delayed as f64)),
        ];
        if let Some(wait) = self.sender_delay_s {
            out.push(("max_sender_delay_s", Stat::Level(wait)));
        }
        if self.nacks.is_some() {
            out.push(("retransmissions_received", Stat::Level(self.resent as f64)));
            out.push((
                "retransmissions_useful",
                Stat::Level(self.resent_useful as f64),
            ));
        }
        if let Some((decoded, frozen)) = self.frames() {
            out.push(("frames", Stat::Level(decoded as f64)));
            out.push(("freeze_frames", Stat::Level(frozen as f64)));
        }
        out
    }

    /// The buffer level (bytes) after the last delivery of every `SERIES_STEP` interval that
    /// has one, with its time (s).
    fn series(&self) -> Vec<(&'static str, Vec<f64>)> {
        let (mut times, mut levels) = (Vec::new(), Vec::new());
        let mut cell = u64::MAX;
        play_with(
            &self.log,
            self.rate_bps(),
            SimTime(self.spec.startup_ns),
            SimTime(self.spec.rebuffer_ns),
            |t, b| {
                let here = t.ns() / SERIES_STEP.ns();
                if here == cell {
                    *levels.last_mut().expect("a cell has a level") = b;
                    *times.last_mut().expect("a cell has a time") = t.secs();
                } else {
                    cell = here;
                    times.push(t.secs());
                    levels.push(b);
                }
            },
        );
        vec![
            ("playback_time_s", times),
            ("playback_buffer_bytes", levels),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(x: f64) -> SimTime {
        SimTime::from_secs_f64(x)
    }

    /// 1000-byte packets at the given times.
    fn log(times: &[f64]) -> Vec<(SimTime, u32)> {
        times.iter().map(|&t| (s(t), 1000)).collect()
    }

    #[test]
    fn a_steady_stream_at_the_playback_rate_never_freezes() {
        // One packet per 10 ms is 800 kb/s; the buffer after 1 s of start-up holds 1 s of data.
        let times: Vec<f64> = (0..2000).map(|k| k as f64 * 0.01).collect();
        let o = play(&log(&times), 8e5, s(1.0), s(1.0));
        assert_eq!((o.interruptions, o.frozen_s), (0, 0.0));
        // Highest level: 101 packets just before playback starts draining (0 … 1.0 s).
        assert!(
            (o.max_queue_bytes - 101_000.0).abs() < 1e-6,
            "{}",
            o.max_queue_bytes
        );
    }

    #[test]
    fn a_gap_longer_than_the_buffer_is_one_interruption_with_its_frozen_time() {
        // 10 packets at t = 0 (10 kB), played at 8 kB/s from t = 1 s: dry at 2.25 s. Data comes
        // back at 5 s: 10 kB, enough for the 1 s of re-buffering (8 kB): frozen 2.75 s.
        let mut times = vec![0.0; 10];
        times.extend([5.0; 10]);
        times.push(20.0);
        let o = play(&log(&times), 64e3, s(1.0), s(1.0));
        assert_eq!(
            o.interruptions, 2,
            "dry again at 6.25 s until the last packet"
        );
        assert!(
            (o.frozen_s - (2.75 + (20.0 - 6.25))).abs() < 1e-6,
            "{}",
            o.frozen_s
        );
        assert_eq!(o.max_queue_bytes, 10_000.0);
    }

    #[test]
    fn the_mean_rate_and_the_delivery_index_come_from_the_deliveries() {
        let mut p = Playback::new(PlaybackSpec {
            startup_ns: 3_000_000_000,
            rebuffer_ns: 3_000_000_000,
            consumption: Consumption::MeanThroughput,
            vdi_threshold_ns: 75_000_000,
            end_ns: u64::MAX,
            warmup_ns: 0,
        });
        let mut rng = crate::rng::stream(1, crate::rng::Stream::Sink, 0);
        let mut wake = crate::time::OptTime::NONE;
        // Gaps of 50 ms, one of 100 ms (a delayed packet), 1000-byte packets.
        let mut t = 0.0;
        for k in 0..101 {
            t += if k == 50 { 0.1 } else { 0.05 };
            let mut cx = RecvCtx {
                now: s(t),
                rng: &mut rng,
                wake: &mut wake,
                nacks: None,
            };
            let d = Delivery {
                seq: k,
                bytes: 1000,
                tag: crate::apps::Tag::default(),
                sent_at: SimTime::ZERO,
                arrived_at: s(t),
                resent: false,
            };
            p.on_deliver(&mut cx, &d);
        }
        let o = p.outcome();
        assert!((o.rate_bps - 101.0 * 8000.0 / (t - 0.05)).abs() < 1e-6);
        assert_eq!((p.jitter_free, p.delayed), (100, 1));
    }
}
