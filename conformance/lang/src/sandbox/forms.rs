//! How the sandbox's values are read from YAML and described in the JSON Schema: a file
//! mode as octal text or number, a file as plain text or a mapping.

use std::borrow::Cow;
use std::fmt;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::de::{self, MapAccess, Visitor};
use serde::{Deserialize, Deserializer};

use super::{FileDetails, FileMode, FileSpec, MAX_GENERATED_BYTES, decode_base64};

impl FileMode {
    /// Builds a mode from permission bits, rejecting anything above `0o7777`, so a decimal
    /// number mistaken for octal (`755`) is not silently turned into a strange mode.
    pub fn new(bits: u32) -> Result<FileMode, String> {
        if bits > 0o7777 {
            return Err(format!(
                "mode {bits} (0o{bits:o}) is above 0o7777; write an octal string like \"0755\" \
                 or an integer like 0o755"
            ));
        }
        Ok(FileMode(bits))
    }

    /// Parses octal digits with an optional `0o` prefix (`"0755"`, `"755"`, `"0o755"`).
    pub fn parse_octal(text: &str) -> Result<FileMode, String> {
        let trimmed = text.trim();
        let digits = trimmed
            .strip_prefix("0o")
            .or_else(|| trimmed.strip_prefix("0O"))
            .unwrap_or(trimmed);
        if digits.is_empty()
            || digits.len() > 5
            || !digits.bytes().all(|b| (b'0'..=b'7').contains(&b))
        {
            return Err(format!("mode {text:?} is not an octal mode like \"0755\""));
        }
        let bits = u32::from_str_radix(digits, 8).map_err(|e| format!("mode {text:?}: {e}"))?;
        FileMode::new(bits)
    }

    /// The permission bits.
    pub fn bits(self) -> u32 {
        self.0
    }
}

impl fmt::Display for FileMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:04o}", self.0)
    }
}

impl<'de> Deserialize<'de> for FileMode {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ModeVisitor;
        impl Visitor<'_> for ModeVisitor {
            type Value = FileMode;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a file mode: an integer like 493 or 0o755, or a string like \"0755\"")
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<FileMode, E> {
                let bits =
                    u32::try_from(v).map_err(|_| E::custom(format!("mode {v} is too large")))?;
                FileMode::new(bits).map_err(E::custom)
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<FileMode, E> {
                let v = u64::try_from(v).map_err(|_| E::custom(format!("mode {v} is negative")))?;
                self.visit_u64(v)
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<FileMode, E> {
                // An unquoted `0755` is not an integer in YAML 1.2 and may reach us as a float.
                Err(E::custom(format!(
                    "mode {v} is not an integer; quote it (\"0755\") or write 0o755"
                )))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<FileMode, E> {
                FileMode::parse_octal(v).map_err(E::custom)
            }
        }
        deserializer.deserialize_any(ModeVisitor)
    }
}

impl JsonSchema for FileMode {
    fn schema_name() -> Cow<'static, str> {
        "FileMode".into()
    }

    fn json_schema(_generator: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "Unix permission bits: an integer (e.g. 493 for 0o755) or a string of octal digits (e.g. \"0755\").",
            "oneOf": [
                { "type": "integer", "minimum": 0, "maximum": 4095 },
                { "type": "string", "pattern": "^\\s*(0[oO])?[0-7]{1,5}\\s*$" }
            ]
        })
    }
}

/// Hand-written so that a mistake inside the object form (an unknown field, a bad mode) keeps
/// serde-saphyr's precise message and location, instead of an untagged enum's "data did not
/// match any variant". The `#[serde(untagged)]` attribute on the enum still drives the schema.
impl<'de> Deserialize<'de> for FileSpec {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct FileVisitor;
        impl<'de> Visitor<'de> for FileVisitor {
            type Value = FileSpec;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(
                    "file content: a string, or an object with content/base64/repeat/bytes/mode",
                )
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<FileSpec, E> {
                Ok(FileSpec::Text(v.to_owned()))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<FileSpec, E> {
                Ok(FileSpec::Text(v))
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<FileSpec, E> {
                Err(scalar_hint(v))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<FileSpec, E> {
                Err(scalar_hint(v))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<FileSpec, E> {
                Err(scalar_hint(v))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<FileSpec, E> {
                Err(scalar_hint(v))
            }
            fn visit_unit<E: de::Error>(self) -> Result<FileSpec, E> {
                Err(E::custom(
                    "file content is null; write \"\" for an empty file",
                ))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<FileSpec, A::Error> {
                FileDetails::deserialize(de::value::MapAccessDeserializer::new(map))
                    .map(FileSpec::Detailed)
            }
        }
        deserializer.deserialize_any(FileVisitor)
    }
}

/// A YAML plain scalar like `42` or `yes` is typed by the parser; the text is gone by then, so
/// ask the author to quote it rather than guess its spelling.
fn scalar_hint<E: de::Error>(value: impl fmt::Display) -> E {
    E::custom(format!(
        "file content {value} is not a string; quote it (e.g. \"{value}\")"
    ))
}

impl FileSpec {
    /// The requested mode, if any (the text form has none).
    pub fn mode(&self) -> Option<FileMode> {
        match self {
            FileSpec::Text(_) => None,
            FileSpec::Detailed(details) => details.mode,
        }
    }

    /// Checks the object form's field combination and decodes `base64`, without I/O.
    /// Public because the engine's seeding checks each file again before writing it.
    pub fn validate(&self) -> Result<(), String> {
        let FileSpec::Detailed(d) = self else {
            return Ok(());
        };
        let sources = [d.content.is_some(), d.base64.is_some(), d.repeat.is_some()]
            .iter()
            .filter(|given| **given)
            .count();
        if sources > 1 {
            return Err("give at most one of `content`, `base64` and `repeat`".to_owned());
        }
        match (&d.repeat, d.bytes) {
            (Some(_), None) => return Err("`repeat` needs `bytes` (the file's size)".to_owned()),
            (None, Some(_)) => return Err("`bytes` needs `repeat` (the pattern)".to_owned()),
            (Some(pattern), Some(bytes)) => {
                if pattern.is_empty() && bytes > 0 {
                    return Err("`repeat` must not be empty when `bytes` > 0".to_owned());
                }
                if bytes > MAX_GENERATED_BYTES {
                    return Err(format!(
                        "`bytes` is {bytes}, above the limit of {MAX_GENERATED_BYTES}"
                    ));
                }
            }
            (None, None) => {}
        }
        if let Some(encoded) = &d.base64 {
            decode_base64(encoded)?;
        }
        Ok(())
    }
}
