//! Quantities written with their units, as scenario files give them: "15Mbps", "20ms", "1000B",
//! "50pkts".
//!
//! Each type keeps the text as written (errors and echoed scenarios show it unchanged) beside
//! its value in the engine's units: bits/s, nanoseconds, bytes. Decimal prefixes are powers of
//! 1000 (k, M, G, T); binary ones (KiB, MiB, GiB) powers of 1024. A bare number is refused for
//! anything with a unit, so a value never silently means the wrong thing.

use std::borrow::Cow;
use std::fmt;

use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize, Serializer};

/// What a rate looks like, for messages.
pub const RATE_EXAMPLE: &str = "a rate such as '15Mbps', '500kbps' or '1Gbps'";
/// What a time looks like, for messages.
pub const TIME_EXAMPLE: &str = "a time such as '20ms', '1.5s' or '250us'";
/// What a size looks like, for messages.
pub const SIZE_EXAMPLE: &str = "a size such as '1000B', '64KB' or '1.5KiB'";
/// What a buffer limit looks like, for messages.
pub const LIMIT_EXAMPLE: &str = "a buffer such as '50pkts' or '64KB'";

/// Why a unit string was refused: the message says what is allowed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnitError(pub String);

impl fmt::Display for UnitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Splits "2.5 Mb/s" into (2.5, "Mb/s"): a decimal number, optional spaces, a unit of letters,
/// 'µ' and '/'.
fn split(text: &str, what: &str) -> Result<(f64, String), UnitError> {
    let t = text.trim();
    let b = t.as_bytes();
    let mut i = 0;
    if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
        i += 1;
    }
    let int_start = i;
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
    }
    let mut digits = i - int_start;
    if i < b.len() && b[i] == b'.' {
        i += 1;
        let frac_start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        digits += i - frac_start;
    }
    if digits > 0 && i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        let mut j = i + 1;
        if j < b.len() && (b[j] == b'+' || b[j] == b'-') {
            j += 1;
        }
        let exp_start = j;
        while j < b.len() && b[j].is_ascii_digit() {
            j += 1;
        }
        if j > exp_start {
            i = j;
        }
    }
    let unit = t[i..].trim_start();
    let unit_ok = unit
        .chars()
        .all(|c| c.is_ascii_alphabetic() || c == 'µ' || c == '/');
    if digits == 0 || !unit_ok {
        return Err(UnitError(format!("cannot be read as {what}")));
    }
    let value: f64 = t[..i]
        .parse()
        .map_err(|_| UnitError(format!("cannot be read as {what}")))?;
    if !value.is_finite() {
        return Err(UnitError("is not a finite number".to_string()));
    }
    Ok((value, unit.to_string()))
}

/// Parses a rate; returns bits/s. "MBps" and "MB/s" are bytes, "Mbps" bits: the case of the 'b'
/// decides, as is usual.
pub fn parse_rate_bps(text: &str) -> Result<f64, UnitError> {
    let (value, unit) = split(text, RATE_EXAMPLE)?;
    let lower = unit.to_lowercase();
    let factor = if unit.len() >= 3
        && unit.ends_with("Bps")
        && matches!(&lower[..lower.len() - 3], "" | "k" | "m" | "g")
    {
        match &lower[..lower.len() - 3] {
            "" => 8.0,
            "k" => 8e3,
            "m" => 8e6,
            _ => 8e9,
        }
    } else {
        match lower.as_str() {
            "bytes/s" => 8.0,
            "kbytes/s" => 8e3,
            "mbytes/s" => 8e6,
            "bps" | "b/s" | "bit/s" => 1.0,
            "kbps" | "kb/s" | "kbit/s" => 1e3,
            "mbps" | "mb/s" | "mbit/s" => 1e6,
            "gbps" | "gb/s" | "gbit/s" => 1e9,
            "tbps" | "tb/s" => 1e12,
            _ => {
                return Err(UnitError(format!(
                    "unknown rate unit '{unit}'; expected {RATE_EXAMPLE}"
                )))
            }
        }
    };
    finite(value * factor, text)
}

/// Parses a time; returns seconds.
pub fn parse_seconds(text: &str) -> Result<f64, UnitError> {
    let (value, unit) = split(text, TIME_EXAMPLE)?;
    let key = if matches!(unit.as_str(), "ms" | "us" | "ns" | "µs") {
        unit.clone()
    } else {
        unit.to_lowercase()
    };
    let factor = match key.as_str() {
        "ns" => 1e-9,
        "us" | "µs" => 1e-6,
        "ms" => 1e-3,
        "s" | "sec" => 1.0,
        "min" => 60.0,
        "h" => 3600.0,
        _ => {
            return Err(UnitError(format!(
                "unknown time unit '{unit}'; expected {TIME_EXAMPLE}"
            )))
        }
    };
    finite(value * factor, text)
}

/// Parses a size; returns bytes. A lower-case 'b' after a prefix ("kb") would mean bits, so it
/// is refused: write "kB" or "KB".
pub fn parse_size_bytes(text: &str) -> Result<f64, UnitError> {
    let (value, unit) = split(text, SIZE_EXAMPLE)?;
    if matches!(unit.as_str(), "kb" | "mb" | "gb") {
        return Err(UnitError(format!(
            "sizes are in bytes; write {}B",
            &unit[..1]
        )));
    }
    let factor = match unit.to_lowercase().as_str() {
        "b" | "byte" | "bytes" => 1.0,
        "kb" => 1e3,
        "mb" => 1e6,
        "gb" => 1e9,
        "kib" => 1024.0,
        "mib" => 1024.0 * 1024.0,
        "gib" => 1024.0 * 1024.0 * 1024.0,
        _ => {
            return Err(UnitError(format!(
                "unknown size unit '{unit}'; expected {SIZE_EXAMPLE}"
            )))
        }
    };
    finite(value * factor, text)
}

fn finite(x: f64, text: &str) -> Result<f64, UnitError> {
    if x.is_finite() {
        Ok(x)
    } else {
        Err(UnitError(format!(
            "is too large to represent ({text} overflows)"
        )))
    }
}

/// Most nanoseconds a time may hold (about 584 years).
const MAX_NS: f64 = u64::MAX as f64;

macro_rules! unit_type {
    ($(#[$doc:meta])* $name:ident, $parse:ident, $example:expr, $pattern:expr) => {
        $(#[$doc])*
        #[derive(Clone, Debug, PartialEq)]
        pub struct $name {
            text: String,
            value: f64,
        }

        impl $name {
            /// Parses `text`; the message of a refusal says what is allowed.
            pub fn parse(text: &str) -> Result<Self, UnitError> {
                Ok($name { value: $parse(text)?, text: text.to_string() })
            }

            /// The text as written.
            pub fn text(&self) -> &str {
                &self.text
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.text)
            }
        }

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(&self.text)
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                d.deserialize_any(UnitVisitor::<$name>::new($example))
            }
        }

        impl FromText for $name {
            fn from_text(text: &str) -> Result<Self, UnitError> {
                $name::parse(text)
            }
        }

        impl JsonSchema for $name {
            fn schema_name() -> Cow<'static, str> {
                stringify!($name).into()
            }
            fn json_schema(_: &mut SchemaGenerator) -> Schema {
                json_schema!({
                    "type": "string",
                    "pattern": $pattern,
                    "description": format!("Written with its unit: {}", $example),
                })
            }
        }
    };
}

unit_type!(
    /// A rate in bits/s, written "15Mbps", "500kbps", "1.2MBps" (bytes).
    Rate, parse_rate_bps, RATE_EXAMPLE, r"^\s*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?\s*[A-Za-z/]+\s*$"
);
unit_type!(
    /// A time or duration, written "20ms", "1.5s", "250us", "2min".
    Time, parse_seconds, TIME_EXAMPLE, r"^\s*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?\s*[A-Za-zµ]+\s*$"
);
unit_type!(
    /// A size in bytes, written "1000B", "64KB", "1.5KiB".
    Size, parse_size_bytes, SIZE_EXAMPLE, r"^\s*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?\s*[A-Za-z]+\s*$"
);

impl Rate {
    pub fn bps(&self) -> f64 {
        self.value
    }
}

impl Time {
    pub fn secs(&self) -> f64 {
        self.value
    }
    /// Whole nanoseconds, rounded to nearest (ties to even); `None` beyond u64 nanoseconds.
    pub fn ns(&self) -> Option<u64> {
        let ns = (self.value * 1e9).round_ties_even();
        (0.0..=MAX_NS).contains(&ns).then_some(ns as u64)
    }
}

impl Size {
    pub fn bytes(&self) -> f64 {
        self.value
    }
}

/// A buffer limit: a packet count (a whole number, or "50pkts") or a size ("64KB").
#[derive(Clone, Debug, PartialEq)]
pub enum Limit {
    Packets { text: String, packets: f64 },
    Bytes(Size),
}

impl Limit {
    pub fn parse(text: &str) -> Result<Self, UnitError> {
        let (value, unit) = split(text, LIMIT_EXAMPLE)?;
        if matches!(
            unit.to_lowercase().as_str(),
            "pkt" | "pkts" | "packet" | "packets" | "p"
        ) {
            Ok(Limit::Packets {
                text: text.to_string(),
                packets: value,
            })
        } else {
            Size::parse(text).map(Limit::Bytes)
        }
    }

    /// The text as written.
    pub fn text(&self) -> &str {
        match self {
            Limit::Packets { text, .. } => text,
            Limit::Bytes(s) => s.text(),
        }
    }
}

impl fmt::Display for Limit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.text())
    }
}

impl FromText for Limit {
    fn from_text(text: &str) -> Result<Self, UnitError> {
        Limit::parse(text)
    }

    fn from_count(n: i64, _: &str) -> Result<Self, UnitError> {
        Ok(Limit::Packets {
            text: n.to_string(),
            packets: n as f64,
        })
    }

    fn from_number(x: f64, _: &str) -> Result<Self, UnitError> {
        Ok(Limit::Packets {
            text: format!("{x:?}"),
            packets: x,
        })
    }
}

impl Serialize for Limit {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Limit::Packets { text, packets } if text.parse::<u64>().is_ok() => {
                s.serialize_u64(*packets as u64)
            }
            Limit::Packets { text, packets } if text.parse::<f64>().is_ok() => {
                s.serialize_f64(*packets)
            }
            other => s.serialize_str(other.text()),
        }
    }
}

impl<'de> Deserialize<'de> for Limit {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(UnitVisitor::<Limit>::new(LIMIT_EXAMPLE))
    }
}

impl JsonSchema for Limit {
    fn schema_name() -> Cow<'static, str> {
        "Limit".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "anyOf": [{"type": "integer", "minimum": 1}, {"type": "string"}],
            "description": "A packet count (50 or '50pkts') or a size ('64KB')",
        })
    }
}

/// Parsing from the text of a scenario value.
pub trait FromText: Sized {
    fn from_text(text: &str) -> Result<Self, UnitError>;

    /// From a bare whole number, where the type allows one (a packet count); the error says
    /// what is allowed.
    fn from_count(_n: i64, example: &str) -> Result<Self, UnitError> {
        Err(UnitError(format!("write it with its unit, as {example}")))
    }

    /// From a bare number, where the type allows one (a fluid buffer in packets).
    fn from_number(_x: f64, example: &str) -> Result<Self, UnitError> {
        Err(UnitError(format!("write it with its unit, as {example}")))
    }
}

/// Separates the value as written from what is allowed in the message of a refusal.
pub const MARK: char = '\u{1}';

/// Deserializes a unit type from a string (a bare integer too, for [`Limit`]). A refusal is
/// encoded as `MARK value MARK allowed` so that the scenario reader can name the value as
/// written and what is allowed.
struct UnitVisitor<T> {
    example: &'static str,
    _t: std::marker::PhantomData<T>,
}

impl<T> UnitVisitor<T> {
    fn new(example: &'static str) -> Self {
        UnitVisitor {
            example,
            _t: std::marker::PhantomData,
        }
    }
}

/// A refusal of `value` (as written) saying what is `allowed`, in the form the scenario reader
/// decodes.
pub fn refusal<E: de::Error>(value: &str, allowed: &str) -> E {
    E::custom(format!("{MARK}{value}{MARK}{allowed}"))
}

impl<'de, T: FromText> Visitor<'de> for UnitVisitor<T> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.example)
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<T, E> {
        T::from_text(v).map_err(|e| refusal(&format!("'{v}'"), &e.0))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<T, E> {
        let n = i64::try_from(v).unwrap_or(i64::MAX);
        T::from_count(n, self.example).map_err(|e| refusal(&v.to_string(), &e.0))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<T, E> {
        T::from_count(v, self.example).map_err(|e| refusal(&v.to_string(), &e.0))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<T, E> {
        T::from_number(v, self.example).map_err(|e| refusal(&format!("{v:?}"), &e.0))
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<T, E> {
        Err(refusal(
            &v.to_string(),
            &format!("write it with its unit, as {}", self.example),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates() {
        for (text, bps) in [
            ("15Mbps", 15e6),
            ("500kbps", 5e5),
            ("1Gbps", 1e9),
            ("2.5 Mb/s", 2.5e6),
            ("64bps", 64.0),
            ("1MBps", 8e6),
            ("1.544Mbps", 1.544e6),
        ] {
            assert_eq!(parse_rate_bps(text).unwrap(), bps, "{text}");
        }
    }

    #[test]
    fn times_round_to_the_nearest_nanosecond() {
        for (text, ns) in [
            ("20ms", 20_000_000),
            ("1.5s", 1_500_000_000),
            ("250us", 250_000),
            ("7ns", 7),
            ("2min", 120_000_000_000),
        ] {
            assert_eq!(Time::parse(text).unwrap().ns(), Some(ns), "{text}");
        }
        assert_eq!(Time::parse("1e300h").unwrap().ns(), None);
    }

    #[test]
    fn sizes_and_limits() {
        assert_eq!(parse_size_bytes("64KB").unwrap(), 64_000.0);
        assert_eq!(parse_size_bytes("1.5KiB").unwrap(), 1536.0);
        assert_eq!(
            Limit::parse("50pkts").unwrap(),
            Limit::Packets {
                text: "50pkts".into(),
                packets: 50.0
            }
        );
        assert!(matches!(Limit::parse("64KB").unwrap(), Limit::Bytes(s) if s.bytes() == 64e3));
    }

    #[test]
    fn refusals_say_why() {
        let why = |r: Result<f64, UnitError>| r.unwrap_err().0;
        assert!(why(parse_rate_bps("10 furlongs")).contains("unknown rate unit"));
        assert!(why(parse_seconds("3 parsecs")).contains("unknown time unit"));
        assert!(why(parse_size_bytes("64kb")).contains("write kB"));
        assert!(why(parse_seconds("fast")).contains("cannot be read as a time"));
        assert!(why(parse_rate_bps("infMbps")).contains("cannot be read as a rate"));
        assert!(why(parse_rate_bps("100")).contains("unknown rate unit"));
        assert!(why(parse_rate_bps("1e300Tbps")).contains("too large"));
    }
}
