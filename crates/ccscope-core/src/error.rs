//! The one error type of the core. Every variant names what was wrong so that the Python layer
//! can show a single clear message (`ccscope.errors`).

use std::fmt;

use thiserror::Error;

/// One step of a [`FieldPath`]: a table's key or a list's index.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Segment {
    Key(String),
    Index(usize),
}

/// Where a value sits in what the user wrote, as a list of keys and indices:
/// `flows[0].source.controller.beta`. Errors carry one, and a caller that knows where a part of
/// the input came from places the part's errors under it ([`Error::under`]) rather than
/// editing text.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FieldPath(Vec<Segment>);

impl FieldPath {
    /// The empty path: the whole input.
    pub const ROOT: FieldPath = FieldPath(Vec::new());

    pub fn segments(&self) -> &[Segment] {
        &self.0
    }

    /// This path below `prefix`.
    pub fn under(mut self, prefix: &FieldPath) -> FieldPath {
        let mut out = prefix.0.clone();
        out.append(&mut self.0);
        FieldPath(out)
    }

    /// This path with a key appended.
    pub fn key(mut self, key: &str) -> FieldPath {
        self.0.push(Segment::Key(key.to_string()));
        self
    }

    /// This path with an index appended.
    pub fn index(mut self, i: usize) -> FieldPath {
        self.0.push(Segment::Index(i));
        self
    }

    /// Whether the path runs through a controller's entry (a `controller` key, or the round
    /// model's old `params` table of one).
    pub fn names_controller(&self) -> bool {
        self.0
            .iter()
            .any(|s| matches!(s, Segment::Key(k) if k == "controller" || k == "params"))
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The same path with its first key replaced by `key`.
    pub fn rerooted(mut self, key: &str) -> FieldPath {
        if let Some(first @ Segment::Key(_)) = self.0.first_mut() {
            *first = Segment::Key(key.to_string());
        }
        self
    }
}

impl fmt::Display for FieldPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, segment) in self.0.iter().enumerate() {
            match segment {
                Segment::Key(k) if i == 0 => f.write_str(k)?,
                Segment::Key(k) => write!(f, ".{k}")?,
                Segment::Index(n) => write!(f, "[{n}]")?,
            }
        }
        Ok(())
    }
}

/// A path as written in text: keys joined by dots, indices in brackets (`flows[0].source`).
impl From<&str> for FieldPath {
    fn from(text: &str) -> FieldPath {
        let mut out = Vec::new();
        for part in text.split('.').filter(|p| !p.is_empty()) {
            let (mut key, mut indices) = (part, Vec::new());
            while let Some((head, n)) = key
                .strip_suffix(']')
                .and_then(|k| k.rsplit_once('['))
                .and_then(|(head, n)| n.parse::<usize>().ok().map(|n| (head, n)))
            {
                indices.push(n);
                key = head;
            }
            if !key.is_empty() {
                out.push(Segment::Key(key.to_string()));
            }
            out.extend(indices.into_iter().rev().map(Segment::Index));
        }
        FieldPath(out)
    }
}

impl From<String> for FieldPath {
    fn from(text: String) -> FieldPath {
        FieldPath::from(text.as_str())
    }
}

impl From<&String> for FieldPath {
    fn from(text: &String) -> FieldPath {
        FieldPath::from(text.as_str())
    }
}

#[derive(Debug, Error, Clone, PartialEq)]
pub enum Error {
    /// A configuration value outside its allowed range. `value` is as the user wrote it (empty
    /// when the problem is a missing or unknown key).
    #[error("{field}{}: {allowed}", if value.is_empty() { String::new() } else { format!(" = {value}") })]
    InvalidField {
        field: FieldPath,
        value: String,
        allowed: String,
    },
    /// A name (controller, topology, source, queue...) that is not known.
    #[error("{field} = '{value}' is not known; expected one of: {known}")]
    UnknownName {
        field: FieldPath,
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
        field: FieldPath,
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
    /// A controller written outside the catalogue misbehaved while a run was going: `hook`
    /// (e.g. `on_ack`) raised, or left an output (`value`) outside what is allowed. The run
    /// stops there, keeping what it measured.
    #[error("flow {flow}: controller {controller} {hook}: {problem}")]
    ControllerFailed {
        flow: usize,
        controller: String,
        hook: String,
        problem: String,
    },
}

pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    /// The same error placed under `prefix`: a part's error named by where the part sits in
    /// the whole (`controller.beta` under `flows[0].source`). Errors that name no field are
    /// unchanged.
    pub fn under(self, prefix: impl Into<FieldPath>) -> Error {
        let prefix = prefix.into();
        match self {
            Error::InvalidField {
                field,
                value,
                allowed,
            } => Error::InvalidField {
                field: field.under(&prefix),
                value,
                allowed,
            },
            Error::UnknownName {
                field,
                value,
                known,
            } => Error::UnknownName {
                field: field.under(&prefix),
                value,
                known,
            },
            Error::TooCostly {
                field,
                value,
                estimate,
            } => Error::TooCostly {
                field: field.under(&prefix),
                value,
                estimate,
            },
            other => other,
        }
    }

    /// The field the error names, if it names one.
    pub fn field(&self) -> Option<&FieldPath> {
        match self {
            Error::InvalidField { field, .. }
            | Error::UnknownName { field, .. }
            | Error::TooCostly { field, .. } => Some(field),
            _ => None,
        }
    }

    pub fn invalid(
        field: impl Into<FieldPath>,
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

/// A number as a user writes it in a scenario: a whole number without a fractional part (`-5`,
/// as TOML and Python write it, not Rust's `-5.0`), any other in Rust's shortest round-trip
/// form (`0.1`, `1e308`, `NaN`).
pub fn written_number(x: f64) -> String {
    if x.is_finite() && x.fract() == 0.0 && x.abs() < 1e16 {
        format!("{x}")
    } else {
        format!("{x:?}")
    }
}

/// Checks `lo <= x <= hi` (and finiteness), naming the field on failure.
pub fn check_range(field: &str, x: f64, lo: f64, hi: f64) -> Result<f64> {
    if x.is_finite() && x >= lo && x <= hi {
        Ok(x)
    } else {
        Err(Error::invalid(
            field,
            written_number(x),
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
            written_number(x),
            "must be a finite number > 0",
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_read_as_the_user_writes_them() {
        for (x, text) in [
            (-5.0, "-5"),
            (0.0, "0"),
            (0.1, "0.1"),
            (-2.5, "-2.5"),
            (1e308, "1e308"),
            (f64::NAN, "NaN"),
            (f64::INFINITY, "inf"),
        ] {
            assert_eq!(written_number(x), text);
        }
    }

    #[test]
    fn paths_read_and_write_as_the_user_writes_them() {
        for text in [
            "flows[0].source.controller.beta",
            "run",
            "a[1][2].b",
            "x.y[3]",
            "",
        ] {
            assert_eq!(FieldPath::from(text).to_string(), text);
        }
        let p = FieldPath::from("flows[2].controller");
        assert_eq!(
            p.segments(),
            [
                Segment::Key("flows".into()),
                Segment::Index(2),
                Segment::Key("controller".into())
            ]
        );
        assert!(p.names_controller() && !FieldPath::from("run.seed").names_controller());
    }

    #[test]
    fn an_error_is_placed_under_its_part() {
        let e = Error::invalid("controller.beta", "1.5", "must be in (0, 1)");
        let e = e.under(FieldPath::ROOT.key("flows").index(1).key("source"));
        assert_eq!(
            e.to_string(),
            "flows[1].source.controller.beta = 1.5: must be in (0, 1)"
        );
    }
}
