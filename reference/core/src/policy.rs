//! The safe-mcp policy: `policy.toml` parsed (serde, [`raw`]), then validated into the types
//! the servers use, with the document's environment overrides applied. One loader and one
//! evaluator for both servers, so every allow/deny question is answered the same way.
//!
//! - [`command`]: the shell-metacharacter scan and argv split (before any policy check).
//! - [`terminal`]: allowlist / denylist / `deny_args` rules and the evaluator.
//! - [`redactor`]: operator + built-in patterns; redact, then truncate.
//! - [`paths`]: root, state-file and `cwd` resolution (PATH_ESCAPE).
//!
//! Relative paths written in the file are resolved against the file's directory; relative
//! paths given in environment variables against the process working directory.

use std::path::{Path, PathBuf};

pub mod command;
pub mod error;
pub mod paths;
pub mod raw;
pub mod redactor;
pub mod terminal;

pub use error::PolicyError;
pub use redactor::Redactor;
pub use terminal::{TerminalPolicy, Verdict};

use crate::trail::FailMode;
use paths::{best_canonical, lexical_absolute};
use raw::RawPolicy;

/// Default audit trail file name (next to the policy file).
pub const DEFAULT_AUDIT_LOG: &str = "audit.jsonl";
/// Default journal file name (next to the policy file).
pub const DEFAULT_JOURNAL: &str = "organizer-journal.json";

/// Environment variables that override keys (an empty value counts as unset). Gathered once
/// by the binary, passed in here, so loading is testable without touching the environment.
#[derive(Debug, Clone, Default)]
pub struct Overrides {
    /// `SAFE_MCP_JAIL_ROOT`.
    pub jail_root: Option<String>,
    /// `SAFE_MCP_WORKSPACE_ROOT`.
    pub workspace_root: Option<String>,
    /// `SAFE_MCP_AUDIT_LOG`.
    pub audit_log: Option<String>,
    /// `SAFE_MCP_AUDIT_FAIL_MODE`.
    pub audit_fail_mode: Option<String>,
    /// `SAFE_MCP_FILES_JOURNAL`.
    pub files_journal: Option<String>,
}

impl Overrides {
    /// Reads the `SAFE_MCP_*` override variables from the process environment.
    pub fn from_env() -> Self {
        let get = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
        Overrides {
            jail_root: get("SAFE_MCP_JAIL_ROOT"),
            workspace_root: get("SAFE_MCP_WORKSPACE_ROOT"),
            audit_log: get("SAFE_MCP_AUDIT_LOG"),
            audit_fail_mode: get("SAFE_MCP_AUDIT_FAIL_MODE"),
            files_journal: get("SAFE_MCP_FILES_JOURNAL"),
        }
    }
}

/// Which server is loading (each requires its own root).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Server {
    /// `safe-mcp terminal`: requires `terminal.jail_root`.
    Terminal,
    /// `safe-mcp files`: requires `files.workspace_root`.
    Files,
}

/// The validated policy for one server.
#[derive(Debug, Clone)]
pub struct Policy {
    /// Canonical terminal jail root (set when loaded for [`Server::Terminal`]).
    pub jail_root: Option<PathBuf>,
    /// Canonical files workspace root (set for [`Server::Files`]).
    pub workspace_root: Option<PathBuf>,
    /// Audit trail path (absolute, outside every configured root).
    pub audit_log: PathBuf,
    /// Audit failure behaviour.
    pub audit_fail_mode: FailMode,
    /// Journal path (absolute, outside the workspace).
    pub journal: PathBuf,
    /// The shared redactor.
    pub redactor: Redactor,
    /// The terminal rules.
    pub terminal: TerminalPolicy,
}

fn cwd() -> PathBuf {
    std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/"))
}

/// A file key (relative to `file_dir`) or its env override (relative to the process cwd).
fn pick(env: &Option<String>, key: &Option<String>, file_dir: &Path) -> Option<PathBuf> {
    match (env, key) {
        (Some(e), _) => Some(lexical_absolute(&cwd(), Path::new(e))),
        (None, Some(k)) if !k.is_empty() => Some(lexical_absolute(file_dir, Path::new(k))),
        _ => None,
    }
}

/// A root directory, named by the environment variable `env` when `from_env`, else by `key`
/// in `file`; the error says which of the two gave the value.
fn root(
    p: Option<PathBuf>,
    (key, env): (&'static str, &'static str),
    from_env: bool,
    file: &Path,
) -> Result<PathBuf, PolicyError> {
    let p = p.ok_or(PolicyError::RootMissing { key, env })?;
    match p.canonicalize() {
        Ok(c) if c.is_dir() => Ok(c),
        _ => Err(PolicyError::RootNotDirectory {
            origin: if from_env {
                env.to_string()
            } else {
                format!("{key} in {}", file.display())
            },
            path: p.display().to_string(),
        }),
    }
}

/// A TOML error as one line naming the file, the line and the column.
fn parse_error(e: &toml::de::Error, text: &str, file: &Path) -> PolicyError {
    let at = match e.span() {
        Some(span) => {
            let before = &text[..span.start.min(text.len())];
            let line = before.matches('\n').count() + 1;
            let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
            format!(" line {line}, column {column}")
        }
        None => String::new(),
    };
    let message = e.message().split_whitespace().collect::<Vec<_>>().join(" ");
    PolicyError::Parse(format!("{}{at}: {message}", file.display()))
}

fn outside(
    file: &Path,
    key: &'static str,
    roots: &[(&'static str, &Path)],
) -> Result<(), PolicyError> {
    let canon = best_canonical(file);
    for (jail_key, jail) in roots {
        if canon.starts_with(jail) {
            return Err(PolicyError::StateInsideJail {
                key,
                path: file.display().to_string(),
                jail_key,
                jail: jail.display().to_string(),
            });
        }
    }
    Ok(())
}

fn validate_files(raw: &raw::RawFiles) -> Result<(), PolicyError> {
    for (i, s) in raw.skip.iter().enumerate() {
        let key = format!("files.skip[{i}].layer");
        match s.layer.as_deref() {
            Some("protection") | Some("restraint") => {}
            Some(other) => {
                return Err(PolicyError::string(
                    key,
                    other,
                    "must be \"protection\" or \"restraint\"",
                ));
            }
            None => {
                return Err(PolicyError::Value {
                    key,
                    value: None,
                    problem: "is missing: the rule has no layer (add layer = \"protection\" or layer = \"restraint\")".into(),
                });
            }
        }
    }
    if raw.max_plan_moves == Some(0) {
        return Err(PolicyError::Value {
            key: "files.max_plan_moves".into(),
            value: Some("0".into()),
            problem: "must be at least 1".into(),
        });
    }
    Ok(())
}

impl Policy {
    /// Parses and validates `text` (the content of the file at `file`) for `server`.
    pub fn from_toml(
        text: &str,
        file: &Path,
        overrides: &Overrides,
        server: Server,
    ) -> Result<Policy, PolicyError> {
        let raw: RawPolicy = toml::from_str(text).map_err(|e| parse_error(&e, text, file))?;
        let file_abs = lexical_absolute(&cwd(), file);
        let file_dir = file_abs.parent().unwrap_or(Path::new("/")).to_path_buf();
        let redactor = Redactor::try_from(&raw.redaction)?;
        let terminal = TerminalPolicy::try_from(&raw.terminal)?;
        validate_files(&raw.files)?;
        let mode_text = overrides
            .audit_fail_mode
            .clone()
            .or(raw.audit_fail_mode.clone())
            .unwrap_or_else(|| "closed".into());
        let audit_fail_mode = FailMode::parse(&mode_text).ok_or_else(|| {
            PolicyError::string(
                "audit_fail_mode",
                &mode_text,
                "must be \"closed\" or \"open\"",
            )
        })?;
        let jail_pick = pick(&overrides.jail_root, &raw.terminal.jail_root, &file_dir);
        let ws_pick = pick(
            &overrides.workspace_root,
            &raw.files.workspace_root,
            &file_dir,
        );
        let (jail_root, workspace_root) = match server {
            Server::Terminal => (
                Some(root(
                    jail_pick,
                    ("jail_root", "SAFE_MCP_JAIL_ROOT"),
                    overrides.jail_root.is_some(),
                    file,
                )?),
                ws_pick.and_then(|p| p.canonicalize().ok()),
            ),
            Server::Files => (
                jail_pick.and_then(|p| p.canonicalize().ok()),
                Some(root(
                    ws_pick,
                    ("workspace_root", "SAFE_MCP_WORKSPACE_ROOT"),
                    overrides.workspace_root.is_some(),
                    file,
                )?),
            ),
        };
        let mut roots: Vec<(&'static str, &Path)> = Vec::new();
        if let Some(j) = &jail_root {
            roots.push(("jail_root", j));
        }
        if let Some(w) = &workspace_root {
            roots.push(("workspace_root", w));
        }
        let audit_log = pick(&overrides.audit_log, &raw.audit_log, &file_dir)
            .unwrap_or_else(|| file_dir.join(DEFAULT_AUDIT_LOG));
        outside(&audit_log, "audit_log", &roots)?;
        let journal = pick(&overrides.files_journal, &raw.files.journal, &file_dir)
            .unwrap_or_else(|| file_dir.join(DEFAULT_JOURNAL));
        if server == Server::Files {
            outside(&journal, "journal", &roots)?;
        }
        Ok(Policy {
            jail_root,
            workspace_root,
            audit_log,
            audit_fail_mode,
            journal,
            redactor,
            terminal,
        })
    }

    /// Reads the file at `path`, then [`Policy::from_toml`].
    pub fn load(path: &Path, overrides: &Overrides, server: Server) -> Result<Policy, PolicyError> {
        let text = std::fs::read_to_string(path).map_err(|e| PolicyError::Read {
            path: path.display().to_string(),
            reason: crate::config::io_reason(&e),
        })?;
        Policy::from_toml(&text, path, overrides, server)
    }
}

#[cfg(test)]
mod tests;
