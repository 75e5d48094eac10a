//! The one error type of the core. Every variant names what was wrong so that the Python layer
//! can show a single clear message (`ccscope.errors`).

use thiserror::Error;

#[derive(Debug, Error, Clone, PartialEq)]
pub enum Error {
    /// A configuration value outside its allowed range. `value` is as the user wrote it (empty
    /// when the problem is a missing or unknown key).
    #[error("{field}{}: {allowed}", if value.is_empty() { String::new() } else { format!(" = {value}") })]
    InvalidField {
        field: String,
        value: String,
        allowed: String,
    },
    /// A name (controller, topology, source, queue...) that is not known.
    #[error("{field} = '{value}' is not known; expected one of: {known}")]
    UnknownName {
        field: String,
        value: String,
        known: String,
    },
    /// The configuration could not be parsed at all.
    #[error("malformed configuration: {0}")]
    Malformed(String),
    /// A run that would take more time or memory than is run without being told to go on;
    /// `estimate` says how much (see `scenario::cost`).
    #[error("{field} = {value}: {estimate}")]
    TooCostly {
        field: String,
        value: String,
        estimate: String,
    },
    /// The network has no route between two nodes a flow needs.
    #[error("no route from node {from} to node {to} for flow {flow}")]
    NoRoute {
        flow: usize,
        from: String,
        to: String,
    },
}

pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    /// The same error with its field renamed by `rename`, e.g. placed under the entry it came
    /// from; errors that name no field are unchanged.
    pub fn renamed(self, rename: impl FnOnce(String) -> String) -> Error {
        match self {
            Error::InvalidField {
                field,
                value,
                allowed,
            } => Error::InvalidField {
                field: rename(field),
                value,
                allowed,
            },
            Error::UnknownName {
                field,
                value,
                known,
            } => Error::UnknownName {
                field: rename(field),
                value,
                known,
            },
            Error::TooCostly {
                field,
                value,
                estimate,
            } => Error::TooCostly {
                field: rename(field),
                value,
                estimate,
            },
            other => other,
        }
    }

    pub fn invalid(
        field: impl Into<String>,
        value: impl ToString,
        allowed: impl Into<String>,
    ) -> Self {
        Error::InvalidField {
            field: field.into(),
            value: value.to_string(),
            allowed: allowed.into(),
        }
    }
}

/// Checks `lo <= x <= hi` (and finiteness), naming the field on failure.
pub fn check_range(field: &str, x: f64, lo: f64, hi: f64) -> Result<f64> {
    if x.is_finite() && x >= lo && x <= hi {
        Ok(x)
    } else {
        Err(Error::invalid(
            field,
            format!("{x:?}"),
            format!("must be in [{lo}, {hi}]"),
        ))
    }
}

/// Checks `x > 0` (and finiteness), naming the field on failure.
pub fn check_positive(field: &str, x: f64) -> Result<f64> {
    if x.is_finite() && x > 0.0 {
        Ok(x)
    } else {
        Err(Error::invalid(
            field,
            format!("{x:?}"),
            "must be a finite number > 0",
        ))
    }
}
