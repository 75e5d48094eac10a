//! ccscope-core: the engines and controllers of ccscope, in pure Rust.
//!
//! The modules, lowest layer first; each imports only from its own layer and those before it
//! (`tests/layers.rs` checks it):
//! - [`error`]: the one error type; every variant names what was wrong.
//! - [`time`]: integer-nanosecond simulated time.
//! - [`rng`]: seeded random streams, one per component.
//! - [`control`]: engine-independent congestion controllers: the trait and its samples, then
//!   the layers [`control::window`] (window rules), [`control::rate`] (rate-based senders),
//!   [`control::receiver`] (their receivers) and [`control::catalog`] (the one catalogue, whose
//!   configs build the controllers).
//! - [`config`]: the scenario a packet-model run is built from.
//! - [`net`]: the packet-level discrete-event engine: links, queues, loss, topologies, traces.
//! - [`transport`]: TCP and the paced rate transport, the endpoints that run the controllers.
//! - [`round`]: the round model, one step per control interval.
//!
//! `config`, `net` and `transport` are one layer: they still import one another.

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
