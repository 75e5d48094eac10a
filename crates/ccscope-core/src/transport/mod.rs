//! Transports: endpoints that plug into the packet engine through [`crate::net::Endpoint`] and
//! send what their application offers ([`crate::apps`]). TCP and the rate transport take their
//! window or rate from a [`crate::control::Controller`]; UDP has no congestion control.
mod ranges;
pub mod rate;
pub mod tcp;
pub mod udp;
