//! Scenario-level description of a sandbox: the folders, files, symlinks and git repositories a
//! scenario is seeded with.
//!
//! These types are deserialized from the scenario YAML and also feed the published JSON Schema,
//! so every type and field carries a doc comment (schemars turns them into descriptions).
//! [`SandboxSpec::validate`] checks everything that can be checked without touching the disk,
//! so a scenario file can be rejected at load time with a precise message. Creating and seeding
//! the tree on disk is the engine's job (`mcp-conformance`'s `sandbox` module).

mod forms;
mod paths;

pub use paths::{BadPath, DirName, SeedPath, decode_base64};

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::Deserialize;

/// What [`SandboxSpec::validate`] refuses (paths are refused earlier, when they are parsed into
/// a [`SeedPath`] or a [`DirName`]). The engine turns it into its own sandbox error, with the
/// same message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SpecError {
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
    pub dirs: BTreeMap<DirName, DirSpec>,
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
    pub files: BTreeMap<SeedPath, FileSpec>,
    /// Empty folders to create, relative to the folder (parents are created too).
    #[serde(default)]
    pub dirs: Vec<SeedPath>,
    /// Symbolic links to create: relative link path -> target. The target is taken literally
    /// (after `${...}` expansion) and may point anywhere, e.g. `../outside` or an absolute
    /// path, which is what escape tests need.
    #[serde(default)]
    pub symlinks: BTreeMap<SeedPath, String>,
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
    pub staged: BTreeMap<SeedPath, Option<String>>,
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
    pub files: BTreeMap<SeedPath, Option<String>>,
}

impl SandboxSpec {
    /// Checks every file spec and git setting without touching the disk, so a scenario loader
    /// can reject a bad scenario before any sandbox exists (its paths were checked when they
    /// were parsed). The engine's seeding calls it too.
    pub fn validate(&self) -> Result<(), SpecError> {
        self.workspace.validate("workspace")?;
        self.state.validate("state")?;
        self.home.validate("home")?;
        for (name, dir) in &self.dirs {
            dir.validate(&format!("dirs.{name}"))?;
        }
        Ok(())
    }
}

impl DirSpec {
    /// Checks this folder's file specs and git settings; `area` names the folder in error
    /// messages.
    pub fn validate(&self, area: &str) -> Result<(), SpecError> {
        for (path, file) in &self.files {
            file.validate().map_err(|message| SpecError::BadSpec {
                path: format!("{area}/{path}"),
                message,
            })?;
        }
        if let Some(git) = &self.git {
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
