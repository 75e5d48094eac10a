//! The scenario schema: every type a scenario file is made of (packet model and round model),
//! its defaults and its validation. This is the only declaration of them; the Python package
//! reads TOML and hands the table here, and JSON Schema is derived from the same types.
//!
//! A scenario is read from a JSON value (a parsed TOML table) by [`read`]. Every error names
//! the path as the user wrote it (`flows[0].source.controller.beta`,
//! `topology.bottleneck.queue.min_th`), the value as written and what is allowed; no parser
//! position or library internals reach the message.
//!
//! Imports nothing of the crate but [`crate::units`] and [`crate::error`].

pub mod cost;
pub mod media;
pub mod packet;
pub mod round;

use std::collections::BTreeMap;
use std::fmt;

use schemars::JsonSchema;
use serde::de::{self, DeserializeOwned, Deserializer, MapAccess, Visitor};
use serde::{Deserialize, Serialize, Serializer};
use serde_json::Value;

use crate::error::{Error, Result};
use crate::units::{Time, MARK};

pub use cost::Cost;
pub use packet::Scenario;
pub use round::RoundScenario;

/// Which engine a scenario runs on (`run.engine`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Engine {
    /// The packet-level discrete-event simulator.
    #[default]
    Packet,
    /// The round model: one step per control interval.
    Round,
    /// The packet engine's scenario in real time: the same endpoints on UDP datagrams over
    /// loopback, through the packet engine's network run against the wall clock.
    Udp,
}

/// Where a real-time run's bottleneck queues (`run.emulator`, with `run.engine = "udp"`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Emulation {
    /// The packet engine's network, links and queues alike, run on the wall clock in user space.
    #[default]
    User,
    /// A dumbbell's bottleneck rate and DropTail queue in the kernel: `tc` tbf on a veth pair
    /// between two network namespaces the run makes (root only); delays and loss stay in user
    /// space.
    Kernel,
}

/// A scenario of either engine.
// Read once per run: the size spread of the members is harmless.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq)]
pub enum AnyScenario {
    Packet(Scenario),
    Round(RoundScenario),
}

impl AnyScenario {
    /// What running it would cost (see [`cost`]).
    pub fn cost(&self) -> Cost {
        match self {
            AnyScenario::Packet(s) => s.cost(),
            AnyScenario::Round(s) => s.cost(),
        }
    }

    /// The scenario with every default filled in, units as written.
    pub fn normalized(&self) -> Value {
        match self {
            AnyScenario::Packet(s) => serde_json::to_value(s),
            AnyScenario::Round(s) => serde_json::to_value(s),
        }
        .unwrap_or(Value::Null)
    }
}

/// Reads and validates a scenario table of the engine its `run.engine` names (default packet).
pub fn read(table: Value) -> Result<AnyScenario> {
    let engine = table.get("run").and_then(|r| r.get("engine")).cloned();
    let engine = match engine {
        None => Engine::Packet,
        Some(e) => from_value::<Engine>(e).map_err(|e| e.renamed(|f| join("run.engine", &f)))?,
    };
    Ok(match engine {
        Engine::Packet | Engine::Udp => AnyScenario::Packet(read_packet(table)?),
        Engine::Round => AnyScenario::Round(read_round(table)?),
    })
}

/// Reads and validates a packet-model scenario table.
pub fn read_packet(table: Value) -> Result<Scenario> {
    let round_like = table.get("link").is_some() && table.get("topology").is_none();
    let s: Scenario = from_value(table).map_err(|e| if round_like { round_hint(e) } else { e })?;
    s.validate()?;
    Ok(s)
}

/// The error of a table read as a packet-model scenario that looks like a round-model one
/// (`[link]`, no `[topology]`), saying so.
fn round_hint(e: Error) -> Error {
    const HINT: &str = "; this looks like a round-model scenario ([link], no [topology]): set run.engine = \"round\"";
    match e {
        Error::InvalidField {
            field,
            value,
            allowed,
        } => Error::InvalidField {
            field,
            value,
            allowed: format!("{allowed}{HINT}"),
        },
        Error::UnknownName {
            field,
            value,
            known,
        } => Error::UnknownName {
            field,
            value,
            known: format!("{known}{HINT}"),
        },
        other => other,
    }
}

/// Reads and validates a round-model scenario table.
pub fn read_round(table: Value) -> Result<RoundScenario> {
    let s: RoundScenario = from_value(table)?;
    s.validate()?;
    Ok(s)
}

/// The JSON Schema of a packet-model (`Engine::Packet`) or round-model scenario file.
pub fn json_schema(engine: Engine) -> Value {
    let schema = match engine {
        Engine::Packet | Engine::Udp => schemars::schema_for!(Scenario),
        Engine::Round => schemars::schema_for!(RoundScenario),
    };
    serde_json::to_value(schema).unwrap_or(Value::Null)
}

// --- reading with paths ------------------------------------------------------------------------

/// Prefix of an error message that carries the path below the point where it was raised
/// (tagged unions read their members from a buffered table): `NEST path NEST message`.
const NEST: char = '\u{2}';

/// Deserializes `T` from `value`, keeping track of where an error happened.
fn from_value<T: DeserializeOwned>(value: Value) -> Result<T> {
    serde_path_to_error::deserialize::<_, T>(value)
        .map_err(|e| explain(&path_of(e.path()), &e.inner().to_string()))
}

/// Deserializes a member of a tagged union from its buffered table; an error keeps its path
/// below the union for the reader above to join.
fn member<T: DeserializeOwned, E: de::Error>(value: Value) -> std::result::Result<T, E> {
    serde_path_to_error::deserialize::<_, T>(value).map_err(|e| {
        let (path, message) = unnest(path_of(e.path()), e.inner().to_string());
        E::custom(format!("{NEST}{path}{NEST}{message}"))
    })
}

fn path_of(path: &serde_path_to_error::Path) -> String {
    let mut out = String::new();
    for segment in path.iter() {
        match segment {
            serde_path_to_error::Segment::Seq { index } => out.push_str(&format!("[{index}]")),
            // A key as written, control characters escaped: a message stays on one line.
            serde_path_to_error::Segment::Map { key } => {
                out = join(&out, &key.escape_debug().to_string())
            }
            _ => {}
        }
    }
    out
}

/// `a.b` + `c` → `a.b.c`; `a` + `[0].c` → `a[0].c`.
fn join(path: &str, below: &str) -> String {
    match (path.is_empty(), below.is_empty()) {
        (true, _) => below.to_string(),
        (_, true) => path.to_string(),
        _ if below.starts_with('[') => format!("{path}{below}"),
        _ => format!("{path}.{below}"),
    }
}

/// Splits a nested message into its full path and the message proper.
fn unnest(path: String, message: String) -> (String, String) {
    match message.strip_prefix(NEST).and_then(|m| m.split_once(NEST)) {
        Some((below, rest)) => unnest(join(&path, below), rest.to_string()),
        None => (path, message),
    }
}

/// The error a deserialization message at `path` stands for, in the user's terms.
fn explain(path: &str, message: &str) -> Error {
    let (path, message) = unnest(path.to_string(), message.to_string());
    if let Some((value, allowed)) = message.strip_prefix(MARK).and_then(|m| m.split_once(MARK)) {
        return Error::invalid(path, value, allowed);
    }
    if let Some(rest) = message.strip_prefix("unknown field `") {
        let (key, expected) = rest.split_once('`').unwrap_or((rest, ""));
        let key = key.escape_debug().to_string();
        let field = if path.ends_with(&key) {
            path.clone()
        } else {
            join(&path, &key)
        };
        let keys = backticked(expected);
        let allowed = if keys.is_empty() {
            "unknown key; this table takes no keys".to_string()
        } else {
            format!("unknown key; allowed keys: {}", keys.join(", "))
        };
        return Error::invalid(field, "", allowed);
    }
    if let Some(rest) = message.strip_prefix("missing field `") {
        let key = rest.trim_end_matches('`');
        return Error::invalid(join(&path, key), "", "this key is required");
    }
    if let Some(rest) = message.strip_prefix("unknown variant `") {
        let (value, expected) = rest.split_once('`').unwrap_or((rest, ""));
        let known = backticked(expected)
            .iter()
            .map(|k| format!("'{k}'"))
            .collect::<Vec<_>>();
        return Error::UnknownName {
            field: path,
            value: value.to_string(),
            known: known.join(", "),
        };
    }
    if let Some(rest) = message.strip_prefix("invalid length ") {
        let (found, expected) = rest.split_once(", expected ").unwrap_or((rest, ""));
        if expected.starts_with("struct") {
            return Error::invalid(path, "a list", "must be a table");
        }
        let size = expected.rsplit(' ').next().unwrap_or("");
        return Error::invalid(
            path,
            format!("a list of {found}"),
            format!("must be a list of {size}"),
        );
    }
    for prefix in ["invalid type: ", "invalid value: "] {
        if let Some(rest) = message.strip_prefix(prefix) {
            let (found, expected) = rest.rsplit_once(", expected ").unwrap_or((rest, ""));
            return Error::invalid(path, written(found), expectation(expected));
        }
    }
    Error::invalid(path, "", message)
}

/// The names between backticks in serde's "expected one of `a`, `b`".
fn backticked(text: &str) -> Vec<String> {
    text.split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect()
}

/// A value as serde describes it ("floating point `1e39`", "string \"x\"", "boolean `true`"),
/// written back as the user wrote it.
fn written(found: &str) -> String {
    let inner = found.split_once('`').map(|(_, r)| r.trim_end_matches('`'));
    if let Some(text) = found.strip_prefix("string ") {
        return format!("'{}'", text.trim_matches('"'));
    }
    match (found.split(' ').next(), inner) {
        (Some("floating"), Some(x)) => x.parse::<f64>().map_or(x.to_string(), |v| format!("{v:?}")),
        (_, Some(x)) => x.to_string(),
        _ if found == "unit value" => "null".to_string(),
        _ if found == "map" => "a table".to_string(),
        _ if found == "sequence" => "a list".to_string(),
        _ => found.to_string(),
    }
}

/// What serde expected, in the user's terms.
fn expectation(expected: &str) -> String {
    match expected {
        "u64" | "usize" => format!("must be a whole number in [0, {}]", u64::MAX),
        "u32" => format!("must be a whole number in [0, {}]", u32::MAX),
        "f64" => "must be a number".into(),
        "a boolean" => "must be true or false".into(),
        "a string" => "must be a string".into(),
        "a sequence" => "must be a list".into(),
        e if e.starts_with("struct ") || e == "a map" => "must be a table".into(),
        e if e.starts_with("an array of length") || e.starts_with("a tuple of size") => {
            format!("must be {}", e.replace("an array", "a list"))
        }
        e => format!("expected {e}"),
    }
}

/// Reads a tagged union: a table whose `kind` names the member, which is read from the rest of
/// the table. `members` lists the kinds and how to read each.
fn tagged<'de, D, T>(
    d: D,
    kinds: &[&str],
    read: impl FnOnce(&str, Value) -> Option<std::result::Result<T, D::Error>>,
) -> std::result::Result<T, D::Error>
where
    D: Deserializer<'de>,
{
    let value = Value::deserialize(d)?;
    let Value::Object(mut table) = value else {
        return Err(de::Error::custom(format!(
            "{MARK}{}{MARK}must be a table with a 'kind' key",
            render(&value)
        )));
    };
    let known = kinds
        .iter()
        .map(|k| format!("'{k}'"))
        .collect::<Vec<_>>()
        .join(", ");
    let kind = match table.remove("kind") {
        Some(Value::String(k)) => k,
        Some(other) => {
            return Err(nested(
                "kind",
                &render(&other),
                &format!("must be one of: {known}"),
            ))
        }
        None => {
            return Err(nested(
                "kind",
                "",
                &format!("a 'kind' key is required; one of: {known}"),
            ))
        }
    };
    match read(&kind, Value::Object(table)) {
        Some(r) => r,
        None => Err(de::Error::custom(format!(
            "{NEST}kind{NEST}unknown variant `{kind}`, expected one of {}",
            kinds
                .iter()
                .map(|k| format!("`{k}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ))),
    }
}

fn nested<E: de::Error>(key: &str, value: &str, allowed: &str) -> E {
    E::custom(format!("{NEST}{key}{NEST}{MARK}{value}{MARK}{allowed}"))
}

/// A JSON value as the user wrote it in TOML.
fn render(v: &Value) -> String {
    match v {
        Value::String(s) => format!("'{s}'"),
        Value::Number(n) => n
            .as_f64()
            .filter(|_| n.is_f64())
            .map_or(n.to_string(), |x| format!("{x:?}")),
        Value::Array(_) => "a list".into(),
        Value::Object(_) => "a table".into(),
        other => other.to_string(),
    }
}

/// Implements `Deserialize` for a tagged union of one-table members: `kind` names the member.
macro_rules! tagged_union {
    ($name:ident { $($kind:literal => $variant:ident),+ $(,)? }) => {
        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
                $crate::scenario::tagged(d, &[$($kind),+], |kind, v| match kind {
                    $($kind => Some($crate::scenario::member(v).map($name::$variant)),)+
                    _ => None,
                })
            }
        }
    };
}
use tagged_union;

/// A unit value from a literal of this module (defaults).
fn lit<T: crate::units::FromText>(text: &str) -> T {
    T::from_text(text).unwrap_or_else(|e| unreachable!("default {text:?}: {e}"))
}

fn yes() -> bool {
    true
}

// --- values shared by both engines -------------------------------------------------------------

/// A controller by catalogue name with its parameters: `"gaimd"` or
/// `{ name = "gaimd", beta = 0.875 }`; `"python:NAME"` for one written in Python.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct ControllerRef {
    pub name: String,
    /// Parameters by name, in name order.
    pub params: BTreeMap<String, f64>,
}

/// Prefix of controller names supplied from outside the catalogue (written in Python).
pub const EXTERNAL_PREFIX: &str = "python:";

impl ControllerRef {
    pub fn named(name: &str) -> Self {
        ControllerRef {
            name: name.to_string(),
            params: BTreeMap::new(),
        }
    }

    /// The name after `python:` when the controller is supplied from outside the catalogue.
    pub fn external(&self) -> Option<&str> {
        self.name.strip_prefix(EXTERNAL_PREFIX)
    }

    /// Parameters as (name, value) pairs in name order.
    pub fn pairs(&self) -> Vec<(String, f64)> {
        self.params.iter().map(|(k, v)| (k.clone(), *v)).collect()
    }

    fn validate(&self, at: &str) -> Result<()> {
        if self.external().is_some() && !self.params.is_empty() {
            return Err(Error::invalid(
                at,
                format!("'{}'", self.name),
                "a Python controller takes its parameters in Python, not here",
            ));
        }
        Ok(())
    }
}

impl Serialize for ControllerRef {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        if self.params.is_empty() {
            return s.serialize_str(&self.name);
        }
        let mut table = BTreeMap::new();
        table.insert("name".to_string(), Value::from(self.name.clone()));
        for (k, v) in &self.params {
            table.insert(k.clone(), Value::from(*v));
        }
        table.serialize(s)
    }
}

impl<'de> Deserialize<'de> for ControllerRef {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = ControllerRef;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a controller name or a table { name = ..., parameter = value, ... }")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> std::result::Result<ControllerRef, E> {
                Ok(ControllerRef::named(v))
            }
            fn visit_map<A: MapAccess<'de>>(
                self,
                mut map: A,
            ) -> std::result::Result<ControllerRef, A::Error> {
                let mut out = ControllerRef::default();
                let mut name = None;
                while let Some(key) = map.next_key::<String>()? {
                    let value: Value = map.next_value()?;
                    if let ("params", Value::Object(table)) = (key.as_str(), &value) {
                        for (k, v) in table {
                            let x = param_value(v).ok_or_else(|| {
                                nested::<A::Error>(
                                    &format!("params.{k}"),
                                    &render(v),
                                    "a controller parameter must be a finite number",
                                )
                            })?;
                            out.params.insert(k.clone(), x);
                        }
                        continue;
                    }
                    if key == "name" {
                        match value {
                            Value::String(s) => name = Some(s),
                            other => {
                                return Err(nested(
                                    "name",
                                    &render(&other),
                                    "must be a controller name (see `ccscope controllers`)",
                                ))
                            }
                        }
                        continue;
                    }
                    let x = param_value(&value).ok_or_else(|| {
                        nested::<A::Error>(
                            &key,
                            &render(&value),
                            "a controller parameter must be a finite number",
                        )
                    })?;
                    out.params.insert(key, x);
                }
                out.name = name.ok_or_else(|| {
                    nested::<A::Error>(
                        "name",
                        "",
                        "this key is required (a controller of `ccscope controllers`)",
                    )
                })?;
                Ok(out)
            }
        }
        d.deserialize_any(V)
    }
}

impl JsonSchema for ControllerRef {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "ControllerRef".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "A controller of `ccscope controllers` by name, or a table with its name and parameters, or 'python:NAME'",
            "anyOf": [
                {"type": "string"},
                {"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}},
                 "additionalProperties": {"type": "number"}},
            ],
        })
    }
}

/// A parameter value: a finite number (booleans are not numbers).
fn param_value(v: &Value) -> Option<f64> {
    v.as_f64().filter(|x| x.is_finite())
}

// --- checks --------------------------------------------------------------------------------------

/// `x` within [lo, hi] (finite); the error names `at` and the value as written.
fn in_range(at: &str, x: f64, lo: f64, hi: f64) -> Result<f64> {
    if x.is_finite() && x >= lo && x <= hi {
        Ok(x)
    } else {
        Err(Error::invalid(
            at,
            format!("{x:?}"),
            format!("must be in [{lo}, {hi}]"),
        ))
    }
}

/// `x` finite and > 0.
fn positive(at: &str, x: f64) -> Result<f64> {
    if x.is_finite() && x > 0.0 {
        Ok(x)
    } else {
        Err(Error::invalid(
            at,
            format!("{x:?}"),
            "must be a finite number > 0",
        ))
    }
}

/// A whole number within [lo, hi].
fn count_in(at: &str, n: u64, lo: u64, hi: u64) -> Result<u64> {
    if (lo..=hi).contains(&n) {
        Ok(n)
    } else {
        Err(Error::invalid(
            at,
            n,
            format!("must be a whole number in [{lo}, {hi}]"),
        ))
    }
}

/// A time ≥ 0 (or ≥ 1 ns when `strict`) that fits the engine's nanosecond clock; returns ns.
fn time_ns(at: &str, t: &Time, strict: bool) -> Result<u64> {
    let secs = t.secs();
    if secs < 0.0 || (strict && secs == 0.0) {
        let rule = if strict {
            "must be > 0"
        } else {
            "must be >= 0"
        };
        return Err(Error::invalid(
            at,
            format!("'{t}'"),
            format!("{rule}; expected {}", crate::units::TIME_EXAMPLE),
        ));
    }
    let ns = t.ns().ok_or_else(|| {
        Error::invalid(at, format!("'{t}'"), "must be at most 584 years (2^64 ns)")
    })?;
    if strict && ns == 0 {
        return Err(Error::invalid(
            at,
            format!("'{t}'"),
            "must be at least 1 ns (the engines count whole nanoseconds)",
        ));
    }
    Ok(ns)
}

#[cfg(test)]
mod tests;
