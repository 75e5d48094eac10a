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
        Some(e) => from_value::<Engine>(e).map_err(|e| e.under("run.engine"))?,
    };
    Ok(match engine {
        Engine::Packet | Engine::Udp => AnyScenario::Packet(read_packet(table)?),
        Engine::Round => AnyScenario::Round(read_round(table)?),
    })
}

/// Reads and validates a packet-model scenario table.
pub fn read_packet(table: Value) -> Result<Scenario> {
    let round_like = table.get("link").is_some() && table.get("topology").is_none();
    let mut s: Scenario =
        from_value(table).map_err(|e| if round_like { round_hint(e) } else { e })?;
    s.validate()?;
    s.fill_in();
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

/// Reads and validates a round-model scenario table. A group that gives its controller's
/// parameters in the old `params` table has them moved into `controller`
/// ([`RoundScenario::notes`] says so).
pub fn read_round(table: Value) -> Result<RoundScenario> {
    let mut s: RoundScenario = from_value(table)?;
    for (i, g) in s.flows.iter_mut().enumerate() {
        if let Some(params) = g.params.take() {
            g.controller
                .take_params(&format!("flows[{i}].params"), params)?;
            g.params_table = true;
        }
    }
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
            field: path.into(),
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

/// A flow's controller as either kind of scenario names it:
/// - catalogued: `"gaimd"`, `"GAIMD(0.31,0.875)"`, or `{ name = "gaimd", beta = 0.875 }`;
/// - written in Python: `"python:NAME"`, an object handed to the run by that name, or
///   `"python:module:Object"`, a class or factory imported from `module` (found beside the
///   scenario file or in the working directory); as a table, the other keys are what the class
///   or factory is called with: `{ name = "python:mymod:Vegas", alpha = 2, target = "20ms" }`.
#[derive(Clone, Debug, PartialEq)]
pub enum ControllerRef {
    Catalogued {
        name: String,
        /// Parameters by name, in name order.
        params: BTreeMap<String, f64>,
    },
    Python(PythonController),
}

/// A controller written in Python, as a scenario names it.
#[derive(Clone, Debug, PartialEq)]
pub struct PythonController {
    /// The module to import the object from; none for an object handed to the run.
    pub module: Option<String>,
    /// The object: a class or factory (an attribute path such as `Outer.make` in a module), or
    /// the name an object was handed to the run by.
    pub object: String,
    /// What the class or factory is called with, by name, as written.
    pub params: BTreeMap<String, Value>,
}

/// Prefix of controller names written in Python.
pub const EXTERNAL_PREFIX: &str = "python:";

impl PythonController {
    /// The name as a scenario writes it: `python:NAME` or `python:module:Object`.
    pub fn name(&self) -> String {
        match &self.module {
            Some(m) => format!("{EXTERNAL_PREFIX}{m}:{}", self.object),
            None => format!("{EXTERNAL_PREFIX}{}", self.object),
        }
    }

    /// Reads `python:NAME` or `python:module:Object`; `None` when `name` does not start with
    /// `python:`, an error naming `at` when what follows is not a Python name.
    fn parse(name: &str) -> Option<std::result::Result<PythonController, String>> {
        let rest = name.strip_prefix(EXTERNAL_PREFIX)?;
        let dotted = |s: &str| !s.is_empty() && s.split('.').all(identifier);
        let parsed = match rest.split(':').collect::<Vec<_>>()[..] {
            [object] if identifier(object) => Ok((None, object)),
            [module, object] if dotted(module) && dotted(object) => Ok((Some(module), object)),
            _ => Err(
                "must be python:NAME (an object handed to the run) or python:module:Object \
                 (a class or factory in a module beside the scenario or in the working directory)"
                    .to_string(),
            ),
        };
        Some(parsed.map(|(module, object)| PythonController {
            module: module.map(str::to_string),
            object: object.to_string(),
            params: BTreeMap::new(),
        }))
    }
}

/// A Python identifier (ASCII letters, digits and `_`, not starting with a digit).
fn identifier(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

impl Default for ControllerRef {
    fn default() -> Self {
        ControllerRef::named("")
    }
}

impl ControllerRef {
    /// The catalogued controller `name`, parameters left to their defaults.
    pub fn named(name: &str) -> Self {
        ControllerRef::Catalogued {
            name: name.to_string(),
            params: BTreeMap::new(),
        }
    }

    /// The name as written: a catalogue name, `python:NAME` or `python:module:Object`.
    pub fn name(&self) -> String {
        match self {
            ControllerRef::Catalogued { name, .. } => name.clone(),
            ControllerRef::Python(p) => p.name(),
        }
    }

    /// Adds the parameters of the round model's old `params` table; `at` names that table.
    fn take_params(&mut self, at: &str, table: BTreeMap<String, Value>) -> Result<()> {
        let own = match self {
            ControllerRef::Catalogued { params, .. } => params.len(),
            ControllerRef::Python(p) => p.params.len(),
        };
        if own > 0 {
            return Err(Error::invalid(
                at,
                "",
                "the controller's table already gives parameters; give them in one place",
            ));
        }
        for (k, v) in table {
            match self {
                ControllerRef::Catalogued { params, .. } => {
                    let x = param_value(&v).ok_or_else(|| {
                        Error::invalid(
                            format!("{at}.{k}"),
                            render(&v),
                            "a controller parameter must be a finite number",
                        )
                    })?;
                    params.insert(k, x);
                }
                ControllerRef::Python(p) => {
                    p.params.insert(k, v);
                }
            }
        }
        Ok(())
    }
}

impl Serialize for ControllerRef {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        let params: BTreeMap<&String, Value> = match self {
            ControllerRef::Catalogued { params, .. } => {
                params.iter().map(|(k, v)| (k, Value::from(*v))).collect()
            }
            ControllerRef::Python(p) => p.params.iter().map(|(k, v)| (k, v.clone())).collect(),
        };
        if params.is_empty() {
            return s.serialize_str(&self.name());
        }
        let name = "name".to_string();
        let mut table = BTreeMap::new();
        table.insert(&name, Value::from(self.name()));
        table.extend(params);
        table.serialize(s)
    }
}

/// Reads a controller name: a catalogued one, or `python:...` (checked here).
fn named_controller<E: de::Error>(name: String, at: &str) -> std::result::Result<ControllerRef, E> {
    match PythonController::parse(&name) {
        None => Ok(ControllerRef::Catalogued {
            name,
            params: BTreeMap::new(),
        }),
        Some(Ok(p)) => Ok(ControllerRef::Python(p)),
        Some(Err(allowed)) if at.is_empty() => {
            Err(E::custom(format!("{MARK}'{name}'{MARK}{allowed}")))
        }
        Some(Err(allowed)) => Err(nested(at, &format!("'{name}'"), &allowed)),
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
                named_controller(v.to_string(), "")
            }
            fn visit_map<A: MapAccess<'de>>(
                self,
                mut map: A,
            ) -> std::result::Result<ControllerRef, A::Error> {
                let mut name = None;
                let mut given: BTreeMap<String, Value> = BTreeMap::new();
                while let Some(key) = map.next_key::<String>()? {
                    let value: Value = map.next_value()?;
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
                    // `params = { ... }` inside the table: the same parameters, one level down.
                    if let ("params", Value::Object(table)) = (key.as_str(), &value) {
                        for (k, v) in table {
                            given.insert(format!("params.{k}"), v.clone());
                        }
                        continue;
                    }
                    given.insert(key, value);
                }
                let name = name.ok_or_else(|| {
                    nested::<A::Error>(
                        "name",
                        "",
                        "this key is required (a controller of `ccscope controllers`, or python:...)",
                    )
                })?;
                let mut out = named_controller::<A::Error>(name, "name")?;
                for (key, value) in given {
                    let param = key.strip_prefix("params.").unwrap_or(&key).to_string();
                    match &mut out {
                        ControllerRef::Catalogued { params, .. } => {
                            let x = param_value(&value).ok_or_else(|| {
                                nested::<A::Error>(
                                    &key,
                                    &render(&value),
                                    "a controller parameter must be a finite number",
                                )
                            })?;
                            params.insert(param, x);
                        }
                        ControllerRef::Python(p) => {
                            p.params.insert(param, value);
                        }
                    }
                }
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
            "description": "A controller of `ccscope controllers` by name, or a table with its name and parameters; or one written in Python: 'python:NAME' (an object handed to the run) or 'python:module:Object' (a class or factory, called with the table's other keys)",
            "anyOf": [
                {"type": "string"},
                {"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}}},
            ],
        })
    }
}

/// A parameter value: a finite number (booleans are not numbers).
fn param_value(v: &Value) -> Option<f64> {
    v.as_f64().filter(|x| x.is_finite())
}

// --- checks --------------------------------------------------------------------------------------

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
