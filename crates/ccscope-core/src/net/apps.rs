//! Applications without congestion control: CBR and Poisson UDP sources, and a counting sink.
//! (Transports with congestion control live in their own modules and plug in the same way.)

use rand_distr::{Distribution, Exp};

use super::packet::Packet;
use super::sim::{Ctx, Endpoint};
use super::trace::Probe;
use crate::config::SourceSpec;
use crate::control::{ConstantRate, Controller};
use crate::error::Result;
use crate::time::SimTime;

const SEND: usize = 0;

/// How a paced source spaces its packets.
#[derive(Clone, Copy, Debug)]
enum Spacing {
    /// Exactly `8 * size / rate` seconds apart, with no drift over long runs.
    Constant,
    /// Exponential gaps with that mean.
    Poisson,
}

/// A UDP source paced by a controller's rate. With `ConstantRate` it is CBR or Poisson.
pub struct PacedSource {
    controller: Box<dyn Controller>,
    packet_bytes: u32,
    spacing: Spacing,
    started: SimTime,
    /// Packets sent so far (also the next sequence number).
    sent: u64,
    running: bool,
}

impl PacedSource {
    fn rate(&self) -> f64 {
        self.controller.pacing_rate_bps().unwrap_or(0.0)
    }

    fn next_gap(&self, ctx: &mut Ctx) -> Option<SimTime> {
        let rate = self.rate();
        if rate <= 0.0 || !rate.is_finite() {
            return None;
        }
        let mean_s = 8.0 * self.packet_bytes as f64 / rate;
        Some(match self.spacing {
            Spacing::Constant => {
                // Send times are start + k * mean, rounded once, so rounding never accumulates.
                let next = SimTime::from_secs_f64((self.sent) as f64 * mean_s);
                (self.started + next) - ctx.now()
            }
            Spacing::Poisson => {
                let exp = Exp::new(1.0 / mean_s).ok()?;
                SimTime::from_secs_f64(exp.sample(ctx.rng()))
            }
        })
    }

    fn schedule(&mut self, ctx: &mut Ctx) {
        if let Some(gap) = self.next_gap(ctx) {
            let at = ctx.now() + gap;
            ctx.set_timer(SEND, at);
        }
    }
}

impl Endpoint for PacedSource {
    fn start(&mut self, ctx: &mut Ctx) {
        self.running = true;
        self.started = ctx.now();
        self.schedule(ctx);
    }

    fn stop(&mut self, ctx: &mut Ctx) {
        self.running = false;
        ctx.cancel_timer(SEND);
    }

    fn on_timer(&mut self, ctx: &mut Ctx, _timer: usize) {
        if !self.running {
            return;
        }
        let mut pkt = Packet {
            size_bytes: self.packet_bytes,
            ..Packet::default()
        };
        pkt.header.seq = self.sent;
        ctx.send(pkt);
        self.sent += 1;
        self.schedule(ctx);
    }

    fn probe(&self) -> Probe {
        Probe {
            window_pkts: 0.0,
            rate_bps: if self.running { self.rate() } else { 0.0 },
        }
    }

    fn label(&self) -> String {
        let kind = match self.spacing {
            Spacing::Constant => "CBR",
            Spacing::Poisson => "Poisson",
        };
        format!("{kind} {}", format_rate(self.rate()))
    }
}

/// A rate the way people write it: `1.5Mb/s`, `500kb/s`, up to six significant digits.
fn format_rate(bps: f64) -> String {
    let (scale, unit) = [(1e9, "Gb/s"), (1e6, "Mb/s"), (1e3, "kb/s")]
        .into_iter()
        .find(|&(s, _)| bps >= s)
        .unwrap_or((1.0, "b/s"));
    let digits = format!("{:.6}", bps / scale);
    let digits = digits.trim_end_matches('0').trim_end_matches('.');
    format!("{digits}{unit}")
}

/// Receives and discards; the engine counts what arrives.
pub struct Sink;

impl Endpoint for Sink {}

/// The endpoints of a flow with the given source (the catalogue of sources and transports).
pub fn endpoints(source: &SourceSpec) -> Result<(Box<dyn Endpoint>, Box<dyn Endpoint>)> {
    let (rate_bps, packet_bytes, spacing) = match *source {
        SourceSpec::Cbr { rate_bps, packet_bytes } => (rate_bps, packet_bytes, Spacing::Constant),
        SourceSpec::Poisson { rate_bps, packet_bytes } => (rate_bps, packet_bytes, Spacing::Poisson),
        SourceSpec::Tcp(ref tcp) => return crate::transport::tcp::endpoints(tcp),
        SourceSpec::Rate(ref rate) => return crate::transport::rate::endpoints(rate),
    };
    let src = PacedSource {
        controller: Box::new(ConstantRate::new(rate_bps)?),
        packet_bytes,
        spacing,
        started: SimTime::ZERO,
        sent: 0,
        running: false,
    };
    Ok((Box::new(src), Box::new(Sink)))
}

#[cfg(test)]
mod tests {
    use super::format_rate;

    #[test]
    fn rates_format_compactly() {
        assert_eq!(format_rate(1.5e6), "1.5Mb/s");
        assert_eq!(format_rate(5e5), "500kb/s");
        assert_eq!(format_rate(1e10), "10Gb/s");
        assert_eq!(format_rate(64.0), "64b/s");
    }
}
