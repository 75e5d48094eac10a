//! ccscope-core: the engines and controllers of ccscope, in pure Rust.
//!
//! The modules, lowest layer first; each imports only from the layers before it
//! (`tests/layers.rs` checks it):
//! - [`error`]: the one error type; every variant names what was wrong.
//! - [`time`]: integer-nanosecond simulated time.
//! - [`rng`]: seeded random streams, one per component.
//! - [`units`]: unit strings ("10Mbps", "20ms", "1000B") and their values.
//! - [`scenario`]: the scenario schema of both engines: types, defaults and all validation,
//!   errors by the path as written.
//! - [`control`]: engine-independent congestion controllers: the trait and its samples, then
//!   the layers [`control::window`] (window rules), [`control::rate`] (rate-based senders),
//!   [`control::receiver`] (their receivers) and [`control::catalog`] (the one catalogue, whose
//!   configs build the controllers).
//! - [`net`]: the packet-level discrete-event engine: links, queues, loss, topologies, traces,
//!   and the run description it executes (flow sources are a type parameter it never reads).
//! - [`apps`]: the applications above the transports, sending and receiving.
//! - [`transport`]: TCP, the paced rate transport and UDP, the endpoints that run the
//!   controllers and carry the applications' data.
//! - [`config`]: the packet engine's run with the sources the flow catalogue knows.
//! - [`round`]: the round model, one step per control interval.
//! - [`build`]: scenario -> engine parameters, the flow catalogue and the packet-model run; the
//!   only module that knows all of the above.
//! - [`realnet`]: the same endpoints on real UDP datagrams through the packet engine's
//!   network run against the wall clock.

pub mod apps;
pub mod build;
pub mod config;
pub mod control;
pub mod error;
pub mod net;
pub mod realnet;
pub mod rng;
pub mod round;
pub mod scenario;
pub mod time;
pub mod transport;
pub mod units;

pub use error::{Error, Result};
pub use time::SimTime;

/// The crate version, recorded in every result.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The model version, recorded in every result beside [`VERSION`]: the same scenario, seed and
/// model version give the same results, byte for byte, on every run and executor. It goes up
/// with any change that may move the results of a scenario and seed (a change of the order of
/// simultaneous events included), and only then.
pub const MODEL_VERSION: u32 = 7;
