//! Transports with congestion control: endpoints that plug into the packet engine through
//! [`crate::net::Endpoint`] and take their window or rate from a [`crate::control::Controller`].
pub mod tcp;
pub mod rate;
