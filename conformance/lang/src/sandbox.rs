//! Scenario-level description of a sandbox: the folders, files, symlinks and git repositories a
//! scenario is seeded with.
//!
//! These types are deserialized from the scenario YAML and also feed the published JSON Schema,
//! so every type and field carries a doc comment (schemars turns them into descriptions).
//! [`SandboxSpec::validate`] checks everything that can be checked without touching the disk,
//! so a scenario file can be rejected at load time with a precise message. Creating and seeding
//! the tree on disk is the engine's job (`mcp-conformance`'s `sandbox` module).

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt;
use std::path::{Component, Path, PathBuf};

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::de::{self, MapAccess, Visitor};
use serde::{Deserialize, Deserializer};

/// What [`SandboxSpec::validate`] and the path helpers refuse. The engine turns it into its own
/// sandbox error, variant for variant and with the same messages.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SpecError {
    /// A seeding path is unusable: empty, absolute or containing `..`, or a bad folder name.
    /// `path` is shown as `<area>/<path>`, e.g. `workspace/../x`.
    #[error("bad sandbox path {path:?}: {reason}")]
    BadPath {
        /// The path as written in the scenario, prefixed with its area.
        path: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A file spec is inconsistent (e.g. both `content` and `base64`, invalid base64), or a git
    /// branch or config key is unusable.
    #[error("bad sandbox file {path:?}: {message}")]
    BadSpec {
        /// The file (or folder), prefixed with its area.
        path: String,
        /// What is wrong with it.
        message: String,
    },
}

/// Largest file a `repeat` + `bytes` spec may produce (1 GiB): a guard against a typo filling the
/// disk of the machine that runs the suite.
pub const MAX_GENERATED_BYTES: u64 = 1 << 30;

/// The sandbox a scenario runs in: a fresh temporary tree, seeded before the server starts.
///
/// `workspace`, `state` and `home` always exist (possibly empty), so scenarios and servers can
/// rely on them; `dirs` adds extra named folders, e.g. an "outside" folder for escape tests.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SandboxSpec {
    /// The folder the server is told to work in (`${workspace}`).
    #[serde(default)]
    pub workspace: DirSpec,
    /// A folder for the server's own persistent state (`${state}`).
    #[serde(default)]
    pub state: DirSpec,
    /// The `HOME` the server runs with (`${home}`), so it never sees the real user's files.
    #[serde(default)]
    pub home: DirSpec,
    /// Extra named folders, created as `dirs/<name>/` and exposed as `${dirs.<name>}`.
    /// Names are a single path component (no `/`, not `.` or `..`).
    #[serde(default)]
    pub dirs: BTreeMap<String, DirSpec>,
}

/// The contents of one sandbox folder.
///
/// When `git` is present, the folder first becomes a repository with the given history, and
/// `files`, `dirs` and `symlinks` are applied last, as working-tree changes (untracked or
/// modified files). Within a folder, `dirs` are created first, then `files`, then `symlinks`,
/// so a file can never be written through a link seeded in the same folder.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DirSpec {
    /// Files to write, keyed by path relative to the folder (no `..`, not absolute); missing
    /// parent folders are created.
    #[serde(default)]
    pub files: BTreeMap<String, FileSpec>,
    /// Empty folders to create, relative to the folder (parents are created too).
    #[serde(default)]
    pub dirs: Vec<String>,
    /// Symbolic links to create: relative link path -> target. The target is taken literally
    /// (after `${...}` expansion) and may point anywhere, e.g. `../outside` or an absolute
    /// path, which is what escape tests need.
    #[serde(default)]
    pub symlinks: BTreeMap<String, String>,
    /// Makes the folder a git repository with the given history and index.
    #[serde(default)]
    pub git: Option<GitSpec>,
}

/// A file's content: either a plain string (UTF-8 text, `${...}` expanded) or an object for
/// binary content, generated content or a specific mode.
#[derive(Debug, Clone, JsonSchema)]
#[serde(untagged)]
pub enum FileSpec {
    /// The file's text, written as UTF-8 after `${...}` expansion.
    Text(String),
    /// Content given as an object (`content`, `base64` or `repeat` + `bytes`) plus a mode.
    Detailed(FileDetails),
}

/// The object form of a file. At most one of `content`, `base64` and `repeat` may be given;
/// with none of them the file is empty.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FileDetails {
    /// Text content, written as UTF-8 after `${...}` expansion.
    #[serde(default)]
    pub content: Option<String>,
    /// Binary content, standard base64 (padding optional, whitespace ignored); not expanded.
    #[serde(default)]
    pub base64: Option<String>,
    /// A pattern repeated (and cut) to exactly `bytes` bytes, for large files without huge YAML;
    /// not expanded. Requires `bytes`.
    #[serde(default)]
    pub repeat: Option<String>,
    /// The exact size of a file generated from `repeat` (at most 1 GiB). Requires `repeat`.
    #[serde(default)]
    pub bytes: Option<u64>,
    /// Permission bits, e.g. `0o755`, `493` or the string `"0755"`; default `0644`.
    #[serde(default)]
    pub mode: Option<FileMode>,
}

/// Unix permission bits (at most `0o7777`).
///
/// YAML has no portable octal literal (`0755` is not an integer in YAML 1.2), so besides an
/// integer (`493`, or `0o755`) the mode may be a string of octal digits: `"0755"`, `"755"` or
/// `"0o755"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileMode(u32);

/// A git repository's history, index and configuration.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GitSpec {
    /// Commits applied in order on `branch`, each one after writing/deleting its files and
    /// staging everything (`git add -A`).
    #[serde(default)]
    pub commits: Vec<CommitSpec>,
    /// Changes staged after the last commit: path -> new content (`${...}` expanded), or null to
    /// remove the file from the index and the working tree (`git rm --cached` + delete).
    #[serde(default)]
    pub staged: BTreeMap<String, Option<String>>,
    /// Entries written with `git config` into the repository's own config before any commit,
    /// e.g. `core.fileMode: "false"`.
    #[serde(default)]
    pub config: BTreeMap<String, String>,
    /// The initial branch name; default `main`.
    #[serde(default)]
    pub branch: Option<String>,
}

/// One commit of a [`GitSpec`].
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CommitSpec {
    /// The commit message.
    pub message: String,
    /// Files changed by the commit: path -> content (`${...}` expanded), or null to delete the
    /// file (or folder) in this commit.
    #[serde(default)]
    pub files: BTreeMap<String, Option<String>>,
}

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

impl SandboxSpec {
    /// Checks every path, folder name and file spec without touching the disk, so a scenario
    /// loader can reject a bad scenario before any sandbox exists. The engine's seeding calls
    /// it too.
    pub fn validate(&self) -> Result<(), SpecError> {
        self.workspace.validate("workspace")?;
        self.state.validate("state")?;
        self.home.validate("home")?;
        for (name, dir) in &self.dirs {
            check_dir_name(name)?;
            dir.validate(&format!("dirs.{name}"))?;
        }
        Ok(())
    }
}

impl DirSpec {
    /// Checks this folder's paths and file specs; `area` names the folder in error messages.
    pub fn validate(&self, area: &str) -> Result<(), SpecError> {
        for (path, file) in &self.files {
            let shown = format!("{area}/{path}");
            clean_relative(path, &shown)?;
            file.validate().map_err(|message| SpecError::BadSpec {
                path: shown,
                message,
            })?;
        }
        for path in &self.dirs {
            clean_relative(path, &format!("{area}/{path}"))?;
        }
        for path in self.symlinks.keys() {
            clean_relative(path, &format!("{area}/{path}"))?;
        }
        if let Some(git) = &self.git {
            for (index, commit) in git.commits.iter().enumerate() {
                for path in commit.files.keys() {
                    clean_relative(path, &format!("{area}/{path} (commit #{})", index + 1))?;
                }
            }
            for path in git.staged.keys() {
                clean_relative(path, &format!("{area}/{path} (staged)"))?;
            }
            if let Some(branch) = &git.branch
                && (branch.trim().is_empty() || branch.starts_with('-'))
            {
                return Err(SpecError::BadSpec {
                    path: area.to_owned(),
                    message: format!("git branch {branch:?} is not a branch name"),
                });
            }
            for key in git.config.keys() {
                if key.trim().is_empty() || key.starts_with('-') {
                    return Err(SpecError::BadSpec {
                        path: area.to_owned(),
                        message: format!("git config key {key:?} is not a config key"),
                    });
                }
            }
        }
        Ok(())
    }
}

/// Turns a seeding key into a clean relative path: rejects empty paths, absolute paths and
/// `..` components (they would let a scenario write outside its folder); drops `.` components.
/// `shown` is how the path appears in the error.
/// Public because the engine's seeding cleans each path with it before touching the disk.
pub fn clean_relative(path: &str, shown: &str) -> Result<PathBuf, SpecError> {
    let bad = |reason: &str| SpecError::BadPath {
        path: shown.to_owned(),
        reason: reason.to_owned(),
    };
    if path.contains('\0') {
        return Err(bad("contains a NUL byte"));
    }
    let mut clean = PathBuf::new();
    for component in Path::new(path).components() {
        match component {
            Component::Normal(part) => clean.push(part),
            Component::CurDir => {}
            Component::ParentDir => return Err(bad("contains a `..` component")),
            Component::RootDir | Component::Prefix(_) => return Err(bad("is absolute")),
        }
    }
    if clean.as_os_str().is_empty() {
        return Err(bad("is empty"));
    }
    Ok(clean)
}

/// Extra folder names become `dirs/<name>` and `${dirs.<name>}`: one plain component only.
/// Public because the engine checks each name again when it creates the folder.
pub fn check_dir_name(name: &str) -> Result<(), SpecError> {
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
        Some(reason) => Err(SpecError::BadPath {
            path: format!("dirs.{name}"),
            reason: reason.to_owned(),
        }),
        None => Ok(()),
    }
}

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
