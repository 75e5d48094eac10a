//! Transports: endpoints that plug into the packet engine through [`crate::net::Endpoint`] and
//! send what their application offers ([`crate::apps`]). TCP and the rate transport take their
//! window or rate from a [`crate::control::Controller`], and so does the media transport
//! ([`rtp`]), whose receiver returns per-packet feedback; UDP has no congestion control.
mod delivery;
mod limited;
mod ranges;
pub mod rate;
pub mod rtp;
pub mod tcp;
pub mod udp;

use crate::control::Controller;
use crate::net::Ctx;

/// Arms timer `timer` to fire [`Controller::feedback_timeout`] from now, or disarms it when the
/// controller sets no timeout (the rate and the media transports' no-feedback timers).
fn arm_no_feedback(ctl: &dyn Controller, ctx: &mut Ctx, timer: usize) {
    match ctl.feedback_timeout() {
        Some(t) => ctx.set_timer(timer, ctx.now() + t.max(crate::time::SimTime(1))),
        None => ctx.cancel_timer(timer),
    }
}

/// Arms timer `timer` for the wake-up `ctl` asks for ([`Controller::wakeup`]), or disarms it
/// when it asks for none; transports call it after every hook.
fn arm_wakeup(ctl: &dyn Controller, ctx: &mut Ctx, timer: usize) {
    match ctl.wakeup() {
        Some(at) => ctx.set_timer(timer, at),
        None if ctx.timer_armed(timer) => ctx.cancel_timer(timer),
        None => {}
    }
}
