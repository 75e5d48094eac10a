//! ccscope-core: the engines and controllers of ccscope, in pure Rust.
//!
//! - [`time`]: integer-nanosecond simulated time.
//! - [`rng`]: seeded random streams, one per component.
//! - [`control`]: engine-independent congestion controllers.
//! - [`apps`]: applications above the transports: what is sent, and what receives it.
//! - [`transport`]: TCP, the paced rate transport and UDP, between applications and network.
//! - [`net`]: the packet-level discrete-event engine.
//! - [`config`]: the scenario a run is built from.

pub mod apps;
pub mod build;
pub mod config;
pub mod control;
pub mod error;
pub mod net;
pub mod rng;
pub mod scenario;
pub mod round;
pub mod time;
pub mod transport;
pub mod units;

pub use error::{Error, Result};
pub use time::SimTime;

/// The crate version, recorded in every result.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
