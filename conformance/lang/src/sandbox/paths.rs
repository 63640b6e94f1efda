//! The paths a scenario seeds, parsed once into newtypes when the scenario is read, and the
//! base64 decoder the engine's seeding decodes binary content with.

use std::borrow::{Borrow, Cow};
use std::fmt;
use std::path::{Component, Path};

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Deserialize, Deserializer};

/// What every checked text type here shares once its `TryFrom<&str>` says what it accepts:
/// parsed from a `String` (so serde refuses a bad one where it is written, with its line),
/// borrowed and shown as its text, and described to the JSON Schema by `$schema`.
macro_rules! checked_text {
    ($name:ident, $schema:expr) => {
        impl TryFrom<String> for $name {
            type Error = BadPath;

            fn try_from(text: String) -> Result<$name, BadPath> {
                $name::try_from(text.as_str())
            }
        }

        impl Borrow<str> for $name {
            fn borrow(&self) -> &str {
                &self.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<$name, D::Error> {
                let text = String::deserialize(deserializer)?;
                $name::try_from(text).map_err(serde::de::Error::custom)
            }
        }

        impl JsonSchema for $name {
            fn schema_name() -> Cow<'static, str> {
                stringify!($name).into()
            }

            fn json_schema(_: &mut SchemaGenerator) -> Schema {
                $schema
            }
        }
    };
}

/// A path inside one sandbox folder, as a scenario names a file, folder, symlink or git path to
/// seed: relative, without `..`, not empty, no NUL byte. It is checked once, when the scenario is
/// read (a bad one is refused with the line it is on), so seeding writes it without checking
/// again; the engine still refuses to pass through a symlink on disk, which no parser can know.
///
/// The path is kept in its clean form (`./a//b` is `a/b`), so two spellings of one file are one
/// key when a target's seed and a scenario's are layered.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SeedPath(String);

/// Why a written path is not a [`SeedPath`] or a [`DirName`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("bad sandbox path {path:?}: {reason}")]
pub struct BadPath {
    /// The path as written.
    pub path: String,
    /// What is wrong with it.
    pub reason: &'static str,
}

impl SeedPath {
    /// The clean path, components joined by `/`.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The clean path, to join to the folder it is seeded in.
    pub fn as_path(&self) -> &Path {
        Path::new(&self.0)
    }
}

impl TryFrom<&str> for SeedPath {
    type Error = BadPath;

    /// Rejects empty paths, absolute paths and `..` components (they would let a scenario write
    /// outside its folder); drops `.` components and doubled slashes.
    fn try_from(path: &str) -> Result<SeedPath, BadPath> {
        let bad = |reason| BadPath {
            path: path.to_owned(),
            reason,
        };
        if path.contains('\0') {
            return Err(bad("contains a NUL byte"));
        }
        let mut parts: Vec<&str> = Vec::new();
        for component in Path::new(path).components() {
            match component {
                Component::Normal(part) => {
                    // Every part of a `&str` path is UTF-8.
                    parts.push(part.to_str().ok_or_else(|| bad("is not UTF-8"))?);
                }
                Component::CurDir => {}
                Component::ParentDir => return Err(bad("contains a `..` component")),
                Component::RootDir | Component::Prefix(_) => return Err(bad("is absolute")),
            }
        }
        if parts.is_empty() {
            return Err(bad("is empty"));
        }
        Ok(SeedPath(parts.join("/")))
    }
}

checked_text!(
    SeedPath,
    json_schema!({
        "type": "string",
        "minLength": 1,
        "description": "A path relative to its folder: not absolute, no `..` component."
    })
);

/// The name of an extra sandbox folder: it becomes `dirs/<name>` and `${dirs.<name>}`, so it is
/// one plain component (not empty, not `.` or `..`, no `/`), checked when the scenario is read.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct DirName(String);

impl DirName {
    /// The name as written.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl TryFrom<&str> for DirName {
    type Error = BadPath;

    fn try_from(name: &str) -> Result<DirName, BadPath> {
        let reason = if name.is_empty() {
            Some("is empty")
        } else if name == "." || name == ".." {
            Some("is `.` or `..`")
        } else if name.contains('/') || name.contains('\0') {
            Some("must be a single folder name (no `/`)")
        } else {
            None
        };
        match reason {
            Some(reason) => Err(BadPath {
                path: format!("dirs.{name}"),
                reason,
            }),
            None => Ok(DirName(name.to_owned())),
        }
    }
}

checked_text!(
    DirName,
    json_schema!({
        "type": "string",
        "pattern": "^[^/]+$",
        "description": "One folder name: not `.` or `..`, no `/`."
    })
);

/// Decodes standard base64 (`A-Z a-z 0-9 + /`), padding optional, ASCII whitespace ignored so
/// long values can be folded in YAML. A tiny decoder here avoids a dependency for one field.
/// Public because the engine's seeding decodes the content it writes with it.
pub fn decode_base64(text: &str) -> Result<Vec<u8>, String> {
    fn value(byte: u8) -> Option<u32> {
        match byte {
            b'A'..=b'Z' => Some(u32::from(byte - b'A')),
            b'a'..=b'z' => Some(u32::from(byte - b'a') + 26),
            b'0'..=b'9' => Some(u32::from(byte - b'0') + 52),
            b'+' => Some(62),
            b'/' => Some(63),
            _ => None,
        }
    }
    let mut symbols: Vec<u8> = text.bytes().filter(|b| !b.is_ascii_whitespace()).collect();
    let padding = symbols.iter().rev().take_while(|b| **b == b'=').count();
    if padding > 2 {
        return Err("invalid base64: too much `=` padding".to_owned());
    }
    symbols.truncate(symbols.len() - padding);
    if padding > 0 && !(symbols.len() + padding).is_multiple_of(4) {
        return Err("invalid base64: wrong padding".to_owned());
    }
    if symbols.len() % 4 == 1 {
        return Err("invalid base64: truncated input".to_owned());
    }
    let mut out = Vec::with_capacity(symbols.len() / 4 * 3 + 2);
    for (index, chunk) in symbols.chunks(4).enumerate() {
        let mut acc = 0u32;
        for (offset, byte) in chunk.iter().enumerate() {
            let v = value(*byte).ok_or_else(|| {
                format!(
                    "invalid base64: unexpected character {:?} at symbol {}",
                    char::from(*byte),
                    index * 4 + offset
                )
            })?;
            acc = (acc << 6) | v;
        }
        // Left-align partial chunks to 24 bits, then take the complete bytes.
        acc <<= 6 * (4 - chunk.len() as u32);
        let bytes = acc.to_be_bytes();
        out.extend_from_slice(&bytes[1..chunk.len()]);
    }
    Ok(out)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use std::path::{Component, Path};

    use proptest::prelude::*;

    use super::{DirName, SeedPath};

    /// Paths built from parts that include every troublesome one.
    fn written_path() -> impl Strategy<Value = String> {
        let part = prop_oneof![
            Just(String::new()),
            Just(".".to_owned()),
            Just("..".to_owned()),
            Just("a".to_owned()),
            Just("b c".to_owned()),
            Just("..a".to_owned()),
            Just("\0".to_owned()),
            "[a-z.]{1,3}",
        ];
        (any::<bool>(), prop::collection::vec(part, 0..6)).prop_map(|(absolute, parts)| {
            format!("{}{}", if absolute { "/" } else { "" }, parts.join("/"))
        })
    }

    proptest! {
        /// Whatever is written, an accepted path stays inside the folder it is joined to, and
        /// parsing its clean form gives it back.
        #[test]
        fn an_accepted_path_stays_inside_its_folder(written in written_path()) {
            if let Ok(path) = SeedPath::try_from(written.as_str()) {
                let joined = Path::new("/base").join(path.as_path());
                prop_assert!(joined.starts_with("/base"));
                prop_assert!(path.as_path().components().all(|c| matches!(c, Component::Normal(_))));
                prop_assert!(!path.as_str().is_empty());
                prop_assert_eq!(SeedPath::try_from(path.as_str()).unwrap(), path);
            } else {
                prop_assert!(
                    written.starts_with('/')
                        || written.contains('\0')
                        || written.split('/').any(|part| part == "..")
                        || written.split('/').all(|part| part.is_empty() || part == ".")
                );
            }
        }

        /// A folder name is one component: whatever is accepted joins as exactly one.
        #[test]
        fn a_dir_name_is_one_component(written in written_path()) {
            if let Ok(name) = DirName::try_from(written.as_str()) {
                prop_assert_eq!(Path::new(name.as_str()).components().count(), 1);
                prop_assert!(matches!(Path::new(name.as_str()).components().next(), Some(Component::Normal(_))));
            }
        }
    }
}
