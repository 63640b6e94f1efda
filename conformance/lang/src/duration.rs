//! Durations as scenario authors write them: `250ms`, `5s`, `2m`, or a bare number of seconds.
//!
//! Parsed once into [`Span`] so a typo is a scenario error with a position, never a runtime
//! surprise.

use serde::{Deserialize, Deserializer};
use std::fmt;
use std::time::Duration;

/// A validated, non-negative duration written in a scenario or target file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Span(pub Duration);

/// Why a duration text was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid duration {text:?}: write a number with a unit, e.g. 250ms, 5s or 2m")]
pub struct SpanError {
    text: String,
}

impl TryFrom<&str> for Span {
    type Error = SpanError;

    fn try_from(text: &str) -> Result<Self, Self::Error> {
        let err = || SpanError {
            text: text.to_string(),
        };
        let t = text.trim();
        let split = t
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(t.len());
        let (num, unit) = t.split_at(split);
        let value: f64 = num.parse().map_err(|_| err())?;
        let scale = match unit.trim() {
            "ms" => 0.001,
            "" | "s" => 1.0,
            "m" | "min" => 60.0,
            _ => return Err(err()),
        };
        let secs = value * scale;
        if !secs.is_finite() || !(0.0..=86_400.0).contains(&secs) {
            return Err(err());
        }
        Ok(Span(Duration::from_secs_f64(secs)))
    }
}

impl fmt::Display for Span {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ms = self.0.as_millis();
        if ms.is_multiple_of(1000) {
            write!(f, "{}s", ms / 1000)
        } else {
            write!(f, "{ms}ms")
        }
    }
}

impl<'de> Deserialize<'de> for Span {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            Num(f64),
            Text(String),
        }
        let text = match Raw::deserialize(d)? {
            Raw::Num(n) => n.to_string(),
            Raw::Text(t) => t,
        };
        Span::try_from(text.as_str()).map_err(serde::de::Error::custom)
    }
}

impl schemars::JsonSchema for Span {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Duration".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "A duration: a number of seconds, or a number with a unit (ms, s, m).",
            "anyOf": [
                { "type": "number", "minimum": 0 },
                { "type": "string", "pattern": "^\\s*[0-9]+(\\.[0-9]+)?\\s*(ms|s|m|min)?\\s*$" }
            ]
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units() {
        assert_eq!(
            Span::try_from("250ms").ok(),
            Some(Span(Duration::from_millis(250)))
        );
        assert_eq!(
            Span::try_from("5s").ok(),
            Some(Span(Duration::from_secs(5)))
        );
        assert_eq!(
            Span::try_from("2m").ok(),
            Some(Span(Duration::from_secs(120)))
        );
        assert_eq!(
            Span::try_from("1.5").ok(),
            Some(Span(Duration::from_millis(1500)))
        );
        assert!(Span::try_from("5 parsecs").is_err());
        assert!(Span::try_from("-1s").is_err());
        assert!(Span::try_from("").is_err());
    }
}
