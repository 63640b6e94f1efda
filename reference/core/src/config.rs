//! Configuration errors for the workspace root and the trusted state root.
//!
//! Every message is one line fit for stderr as is before exiting nonzero (stdout belongs to
//! the protocol): it names the setting the problem came from (`TOOLHUB_STATE_ROOT`, or the
//! per-user default and the variable it was derived from), its value, what is wrong and what
//! to do. Values and paths are quoted with Rust's escaping (`"..."`, control characters and
//! bytes that are not UTF-8 escaped), so a message is always a single line. The workspace
//! variants carry no value: the caller knows where the path came from and says so (see
//! `mcp_toolhub::config`). `code()` gives a stable machine code for tests and structured
//! reporting.

use std::fmt;
use std::path::{Path, PathBuf};

/// The variable naming an explicit state root.
pub const ENV_STATE_ROOT: &str = "TOOLHUB_STATE_ROOT";

/// Where a state root came from, as a message names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StateOrigin {
    /// [`ENV_STATE_ROOT`] as given.
    Explicit {
        /// The variable's value.
        value: String,
        /// Where it leads (symlinks and `..` resolved), when that is not the value itself.
        resolved: Option<PathBuf>,
    },
    /// The per-user default `path`, below the base named by `var`.
    Default {
        /// `<base>/mcp-toolhub/workspaces/<workspace id>`.
        path: PathBuf,
        /// `XDG_STATE_HOME` or `HOME`.
        var: &'static str,
        /// That variable's value.
        value: String,
        /// Where `path` leads, when that is not `path` itself.
        resolved: Option<PathBuf>,
    },
}

impl StateOrigin {
    /// Notes that the state root leads to `to` (unless `to` is the path as given).
    pub fn resolve_to(&mut self, to: &Path) {
        let (given, resolved) = match self {
            StateOrigin::Explicit { value, resolved } => (PathBuf::from(value.as_str()), resolved),
            StateOrigin::Default { path, resolved, .. } => (path.clone(), resolved),
        };
        *resolved = (given != to).then(|| to.to_path_buf());
    }

    fn is_explicit(&self) -> bool {
        matches!(self, StateOrigin::Explicit { .. })
    }

    /// How to pick a state root elsewhere: move the explicit one, or set one.
    fn elsewhere(&self) -> &'static str {
        if self.is_explicit() {
            "move TOOLHUB_STATE_ROOT to a trusted directory the MCP filesystem tools cannot address"
        } else {
            "set TOOLHUB_STATE_ROOT to a trusted directory the MCP filesystem tools cannot address"
        }
    }

    fn not_a_directory_fix(&self) -> &'static str {
        if self.is_explicit() {
            "set it to a directory, or to a path where one can be created"
        } else {
            "move what is there away, or set TOOLHUB_STATE_ROOT to a trusted directory"
        }
    }
}

impl fmt::Display for StateOrigin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StateOrigin::Explicit { value, resolved } => {
                write!(f, "{ENV_STATE_ROOT}={value:?}")?;
                if let Some(to) = resolved {
                    write!(f, " (resolved to {to:?})")?;
                }
                Ok(())
            }
            StateOrigin::Default {
                path,
                var,
                value,
                resolved,
            } => {
                write!(f, "the default state root {path:?} (from {var}={value:?}")?;
                if let Some(to) = resolved {
                    write!(f, ", resolved to {to:?}")?;
                }
                write!(f, ")")
            }
        }
    }
}

/// `VAR is not set` or `VAR="value" is not absolute`, for [`ConfigError::StateRootNoBase`].
fn unusable_base(var: &str, value: &Option<String>) -> String {
    match value {
        None => format!("{var} is not set"),
        Some(v) => format!("{var}={v:?} is not absolute"),
    }
}

/// The middle of [`ConfigError::BoundToOtherWorkspace`]: what the binding names instead.
fn bound_instead(bound: &str, bound_id: &str, workspace: &str, workspace_id: &str) -> String {
    if bound == workspace {
        format!("{bound:?} with workspace_id {bound_id:?}, not {workspace_id}")
    } else {
        format!("{bound:?}, not to {workspace:?}")
    }
}

/// The fix of [`ConfigError::BoundToOtherWorkspace`].
fn rebind_fix(bound: &str, workspace: &str) -> String {
    if bound == workspace {
        "select a different explicit TOOLHUB_STATE_ROOT".into()
    } else {
        format!(
            "select a different explicit TOOLHUB_STATE_ROOT, or set TOOLHUB_WORKSPACE_ROOT to {bound:?}"
        )
    }
}

/// Why the workspace or the state root cannot be used. Fail closed: the process must not start.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// The workspace root is unset or empty.
    #[error("TOOLHUB_WORKSPACE_ROOT is required")]
    WorkspaceMissing,
    /// The workspace root is not an absolute path.
    #[error("workspace root must be an absolute path")]
    WorkspaceNotAbsolute,
    /// The workspace root does not exist.
    #[error("workspace does not exist")]
    WorkspaceNotFound,
    /// The workspace root exists but is not a directory.
    #[error("workspace is not a directory")]
    WorkspaceNotDirectory,
    /// The canonical workspace path is not valid UTF-8 (it is recorded in JSON state).
    #[error("workspace path is not valid UTF-8")]
    WorkspaceNotUtf8,
    /// The workspace could not be opened or canonicalized.
    #[error("workspace cannot be opened: {0}")]
    WorkspaceIo(String),
    /// An explicit state root is not an absolute path (an empty one is not either).
    #[error(
        "{ENV_STATE_ROOT}={value:?} must be an absolute path (set it to the absolute path of a trusted directory outside the workspace, or unset it to use the per-user default)"
    )]
    StateRootNotAbsolute {
        /// The value as given.
        value: String,
    },
    /// The state root resolves inside the workspace, where the agent's filesystem tools could
    /// reach the trusted approval state.
    #[error("{origin} must be outside the workspace {workspace:?} ({fix})", fix = .origin.elsewhere())]
    StateRootInsideWorkspace {
        /// The state root.
        origin: Box<StateOrigin>,
        /// The canonical workspace.
        workspace: String,
    },
    /// No state root given and no per-user base directory could be determined.
    #[error(
        "{ENV_STATE_ROOT} is not set and there is no per-user state directory: {}, {} (set {ENV_STATE_ROOT} to the absolute path of a trusted directory outside the workspace, or set HOME)",
        unusable_base("XDG_STATE_HOME", .xdg_state_home),
        unusable_base("HOME", .home)
    )]
    StateRootNoBase {
        /// `XDG_STATE_HOME`, when set (it is not absolute).
        xdg_state_home: Option<String>,
        /// `HOME`, when set (it is not absolute).
        home: Option<String>,
    },
    /// The state root exists and is not a directory.
    #[error("{origin} is not a directory ({fix})", fix = .origin.not_a_directory_fix())]
    StateRootNotDirectory {
        /// The state root.
        origin: Box<StateOrigin>,
    },
    /// The state root path is not valid UTF-8.
    #[error(
        "{origin} resolves to a path that is not valid UTF-8 (choose a state directory whose absolute path is valid UTF-8)"
    )]
    StateRootNotUtf8 {
        /// The state root.
        origin: Box<StateOrigin>,
    },
    /// The state root could not be created, canonicalized or locked, or its binding could not
    /// be read or written.
    #[error(
        "{origin}: cannot {step} {path:?}: {reason} (check the path and its permissions, or set {ENV_STATE_ROOT} to another directory)"
    )]
    StateRootIo {
        /// The state root.
        origin: Box<StateOrigin>,
        /// What failed: `create the directory`, `resolve`, `lock`, `read`, `write`.
        step: &'static str,
        /// The directory or file it failed on.
        path: PathBuf,
        /// Why, one line.
        reason: String,
    },
    /// `workspace-binding.json` names another workspace; bindings are never reassigned.
    #[error(
        "{origin} belongs to a different workspace: its workspace-binding.json binds it to {} ({}; bindings are never silently reassigned)",
        bound_instead(.bound, .bound_id, .workspace, .workspace_id),
        rebind_fix(.bound, .workspace)
    )]
    BoundToOtherWorkspace {
        /// The state root.
        origin: Box<StateOrigin>,
        /// The workspace the binding names.
        bound: String,
        /// The workspace id the binding names.
        bound_id: String,
        /// The canonical workspace that wanted to use the state root.
        workspace: String,
        /// Its id.
        workspace_id: String,
    },
    /// `workspace-binding.json` exists but cannot be understood; fail closed.
    #[error(
        "{origin}: {file:?} is malformed: {reason} (restore the file, or select a different explicit {ENV_STATE_ROOT}; a binding is never replaced)"
    )]
    BindingMalformed {
        /// The state root.
        origin: Box<StateOrigin>,
        /// The binding file.
        file: PathBuf,
        /// What is wrong (with the line and column when the JSON says), one line.
        reason: String,
    },
}

impl ConfigError {
    /// A stable machine code.
    pub fn code(&self) -> &'static str {
        match self {
            ConfigError::WorkspaceMissing => "WORKSPACE_MISSING",
            ConfigError::WorkspaceNotAbsolute => "WORKSPACE_NOT_ABSOLUTE",
            ConfigError::WorkspaceNotFound => "WORKSPACE_NOT_FOUND",
            ConfigError::WorkspaceNotDirectory => "WORKSPACE_NOT_DIRECTORY",
            ConfigError::WorkspaceNotUtf8 => "WORKSPACE_NOT_UTF8",
            ConfigError::WorkspaceIo(_) => "WORKSPACE_IO",
            ConfigError::StateRootNotAbsolute { .. } => "STATE_ROOT_NOT_ABSOLUTE",
            ConfigError::StateRootInsideWorkspace { .. } => "STATE_ROOT_INSIDE_WORKSPACE",
            ConfigError::StateRootNoBase { .. } => "STATE_ROOT_NO_BASE",
            ConfigError::StateRootNotDirectory { .. } => "STATE_ROOT_NOT_DIRECTORY",
            ConfigError::StateRootNotUtf8 { .. } => "STATE_ROOT_NOT_UTF8",
            ConfigError::StateRootIo { .. } => "STATE_ROOT_IO",
            ConfigError::BoundToOtherWorkspace { .. } => "STATE_BOUND_TO_OTHER_WORKSPACE",
            ConfigError::BindingMalformed { .. } => "STATE_BINDING_MALFORMED",
        }
    }
}

/// `text` on one line: control characters (newlines included) escaped.
pub(crate) fn one_line(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

/// A short, path-free description of an I/O error (the OS reason only), for one-line messages.
pub(crate) fn io_reason(e: &std::io::Error) -> String {
    match e.raw_os_error() {
        Some(code) => nix::errno::Errno::from_raw(code).desc().to_lowercase(),
        None => e.kind().to_string(),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn explicit(value: &str) -> Box<StateOrigin> {
        Box::new(StateOrigin::Explicit {
            value: value.into(),
            resolved: None,
        })
    }

    #[test]
    fn every_error_has_its_own_stable_code() {
        let io = || ConfigError::StateRootIo {
            origin: explicit("/s"),
            step: "lock",
            path: "/s/binding.lock".into(),
            reason: String::new(),
        };
        let all = [
            (ConfigError::WorkspaceMissing, "WORKSPACE_MISSING"),
            (ConfigError::WorkspaceNotAbsolute, "WORKSPACE_NOT_ABSOLUTE"),
            (ConfigError::WorkspaceNotFound, "WORKSPACE_NOT_FOUND"),
            (
                ConfigError::WorkspaceNotDirectory,
                "WORKSPACE_NOT_DIRECTORY",
            ),
            (ConfigError::WorkspaceNotUtf8, "WORKSPACE_NOT_UTF8"),
            (ConfigError::WorkspaceIo(String::new()), "WORKSPACE_IO"),
            (
                ConfigError::StateRootNotAbsolute { value: "s".into() },
                "STATE_ROOT_NOT_ABSOLUTE",
            ),
            (
                ConfigError::StateRootInsideWorkspace {
                    origin: explicit("/w/s"),
                    workspace: "/w".into(),
                },
                "STATE_ROOT_INSIDE_WORKSPACE",
            ),
            (
                ConfigError::StateRootNoBase {
                    xdg_state_home: None,
                    home: None,
                },
                "STATE_ROOT_NO_BASE",
            ),
            (
                ConfigError::StateRootNotDirectory {
                    origin: explicit("/f"),
                },
                "STATE_ROOT_NOT_DIRECTORY",
            ),
            (
                ConfigError::StateRootNotUtf8 {
                    origin: explicit("/s"),
                },
                "STATE_ROOT_NOT_UTF8",
            ),
            (io(), "STATE_ROOT_IO"),
            (
                ConfigError::BoundToOtherWorkspace {
                    origin: explicit("/s"),
                    bound: "/a".into(),
                    bound_id: "1".into(),
                    workspace: "/b".into(),
                    workspace_id: "2".into(),
                },
                "STATE_BOUND_TO_OTHER_WORKSPACE",
            ),
            (
                ConfigError::BindingMalformed {
                    origin: explicit("/s"),
                    file: "/s/workspace-binding.json".into(),
                    reason: String::new(),
                },
                "STATE_BINDING_MALFORMED",
            ),
        ];
        for (error, code) in &all {
            assert_eq!(error.code(), *code, "{error:?}");
        }
    }

    /// Whatever a value holds, a message stays one line: values are quoted and escaped.
    #[test]
    fn a_message_is_one_line_whatever_the_values_hold() {
        let e = ConfigError::BoundToOtherWorkspace {
            origin: explicit("/s\nx"),
            bound: "/a\nforged line".into(),
            bound_id: "\u{1b}[2J".into(),
            workspace: "/b".into(),
            workspace_id: "2".into(),
        };
        let text = e.to_string();
        assert!(!text.contains('\n') && !text.contains('\u{1b}'), "{text}");
        assert!(text.contains(r#"TOOLHUB_STATE_ROOT="/s\nx""#), "{text}");
        assert_eq!(one_line("a\nb\tc\u{7f}"), "a\\nb\\tc\\u{7f}");
    }

    #[test]
    fn an_origin_notes_where_it_leads_only_when_that_differs() {
        let mut same = explicit("/s/");
        same.resolve_to(std::path::Path::new("/s"));
        assert_eq!(same.to_string(), r#"TOOLHUB_STATE_ROOT="/s/""#);
        let mut other = explicit("/l/s");
        other.resolve_to(std::path::Path::new("/w/s"));
        assert_eq!(
            other.to_string(),
            r#"TOOLHUB_STATE_ROOT="/l/s" (resolved to "/w/s")"#
        );
    }

    #[test]
    fn an_io_reason_is_the_os_reason_without_the_path() {
        let missing = std::fs::metadata("/nonexistent/for/io_reason").unwrap_err();
        assert_eq!(io_reason(&missing), "no such file or directory");
        let other = std::io::Error::new(std::io::ErrorKind::TimedOut, "/secret/path");
        assert_eq!(io_reason(&other), "timed out");
    }
}
