//! Runtime configuration from the environment, shared by `mcp-toolhub serve` and
//! `mcp-toolhub-admin` so both bind to the same workspace and trusted state.
//!
//! | variable | meaning |
//! |---|---|
//! | `TOOLHUB_WORKSPACE_ROOT` | required; absolute path of an existing directory, canonicalized once |
//! | `TOOLHUB_STATE_ROOT` | optional; absolute; default `$XDG_STATE_HOME/mcp-toolhub/workspaces/<id>` (or `~/.local/state/...`) |
//! | `TOOLHUB_APPROVAL_TTL_SECONDS` | optional positive integer (default 900): lifetime of new approval requests |
//! | `RUST_LOG` | tracing filter; logs go to stderr only |
//!
//! Every error is one line naming the variable, its value, what is wrong and what to do
//! (values quoted with Rust's escaping, so the line stays one line whatever they hold); the
//! state root's errors come from [`mcp_safety_core::config::ConfigError`] as they are.

use std::ffi::OsString;
use std::time::Duration;

use mcp_safety_core::config::ConfigError;
use mcp_safety_core::jail::Workspace;
use mcp_safety_core::state::StateRoot;

pub const ENV_WORKSPACE_ROOT: &str = "TOOLHUB_WORKSPACE_ROOT";
pub const ENV_STATE_ROOT: &str = mcp_safety_core::config::ENV_STATE_ROOT;
pub const ENV_APPROVAL_TTL: &str = "TOOLHUB_APPROVAL_TTL_SECONDS";

/// Default lifetime of a new approval request.
pub const DEFAULT_APPROVAL_TTL: Duration = Duration::from_secs(900);
/// Longest accepted approval lifetime (one week).
pub const MAX_APPROVAL_TTL_SECONDS: u64 = 7 * 24 * 3600;

/// What to set the workspace variable to.
const WORKSPACE_FIX: &str = "set it to the absolute path of an existing workspace directory";

/// A configuration error: one line, exit code 2.
#[derive(Debug, thiserror::Error)]
pub enum StartupError {
    /// `TOOLHUB_WORKSPACE_ROOT` is not in the environment.
    #[error("{ENV_WORKSPACE_ROOT} is required but not set ({WORKSPACE_FIX})")]
    WorkspaceUnset,
    /// `TOOLHUB_WORKSPACE_ROOT` names no usable workspace.
    #[error("{}", workspace_message(.value, .error))]
    Workspace {
        /// The variable's value.
        value: String,
        /// Why [`Workspace::open`] refused it.
        error: Box<ConfigError>,
    },
    /// One of the variables is not valid UTF-8.
    #[error("{var}={value:?} is not valid UTF-8 ({})", utf8_fix(.var))]
    NotUtf8 {
        /// The variable.
        var: &'static str,
        /// Its value.
        value: OsString,
    },
    /// The state root cannot be used.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// `TOOLHUB_APPROVAL_TTL_SECONDS` is not a whole number of seconds in range.
    #[error(
        "{ENV_APPROVAL_TTL}={value:?} must be a whole number of seconds from 1 to {MAX_APPROVAL_TTL_SECONDS} (set it in that range, or unset it for the default of {})",
        DEFAULT_APPROVAL_TTL.as_secs()
    )]
    InvalidTtl {
        /// The variable's value.
        value: String,
    },
}

/// The message of [`StartupError::Workspace`].
fn workspace_message(value: &str, error: &ConfigError) -> String {
    let var = ENV_WORKSPACE_ROOT;
    match error {
        ConfigError::WorkspaceMissing => {
            format!("{var} is required but set to {value:?} ({WORKSPACE_FIX})")
        }
        ConfigError::WorkspaceNotAbsolute => format!(
            "{var}={value:?} must be an absolute path (set it to the workspace directory's absolute path)"
        ),
        ConfigError::WorkspaceNotFound => {
            format!("{var}={value:?} does not exist (create the directory or correct the path)")
        }
        ConfigError::WorkspaceNotDirectory => {
            format!("{var}={value:?} is not a directory (create the directory or correct the path)")
        }
        ConfigError::WorkspaceNotUtf8 => format!(
            "{var}={value:?} resolves to a path that is not valid UTF-8 (use a workspace directory whose absolute path is valid UTF-8)"
        ),
        ConfigError::WorkspaceIo(reason) => format!(
            "{var}={value:?} cannot be opened: {reason} (check the path and its permissions)"
        ),
        other => format!("{var}={value:?}: {other}"),
    }
}

fn utf8_fix(var: &str) -> &'static str {
    if var == ENV_APPROVAL_TTL {
        "set it to a whole number of seconds"
    } else {
        "use a path that is valid UTF-8"
    }
}

impl StartupError {
    /// A stable machine code.
    pub fn code(&self) -> &'static str {
        match self {
            StartupError::WorkspaceUnset => "WORKSPACE_MISSING",
            StartupError::Workspace { error, .. } => error.code(),
            StartupError::NotUtf8 { var, .. } => match *var {
                ENV_WORKSPACE_ROOT => "WORKSPACE_NOT_UTF8",
                ENV_STATE_ROOT => "STATE_ROOT_NOT_UTF8",
                _ => "APPROVAL_TTL_INVALID",
            },
            StartupError::Config(e) => e.code(),
            StartupError::InvalidTtl { .. } => "APPROVAL_TTL_INVALID",
        }
    }
}

/// The frozen configuration.
#[derive(Debug, Clone)]
pub struct Config {
    pub workspace: Workspace,
    pub state: StateRoot,
    pub approval_ttl: Duration,
}

impl Config {
    /// Reads the process environment. A variable that is set but not UTF-8 is an error, not
    /// an unset one (an unreadable `TOOLHUB_STATE_ROOT` must not fall back to the default).
    pub fn from_env() -> Result<Config, StartupError> {
        for var in [ENV_WORKSPACE_ROOT, ENV_STATE_ROOT, ENV_APPROVAL_TTL] {
            if let Some(value) = std::env::var_os(var)
                && value.to_str().is_none()
            {
                return Err(StartupError::NotUtf8 { var, value });
            }
        }
        Self::from_lookup(&|k| std::env::var(k).ok())
    }

    /// Reads configuration through `env` (a variable lookup), for tests.
    pub fn from_lookup(env: &dyn Fn(&str) -> Option<String>) -> Result<Config, StartupError> {
        let raw = env(ENV_WORKSPACE_ROOT).ok_or(StartupError::WorkspaceUnset)?;
        let workspace_error = |error| StartupError::Workspace {
            value: raw.clone(),
            error: Box::new(error),
        };
        if raw.trim().is_empty() {
            return Err(workspace_error(ConfigError::WorkspaceMissing));
        }
        let approval_ttl = parse_ttl(env(ENV_APPROVAL_TTL).as_deref())?;
        let workspace = Workspace::open(&raw).map_err(workspace_error)?;
        let explicit = env(ENV_STATE_ROOT);
        let state = StateRoot::resolve(&workspace, explicit.as_deref(), env)?;
        Ok(Config {
            workspace,
            state,
            approval_ttl,
        })
    }
}

/// Parses `TOOLHUB_APPROVAL_TTL_SECONDS` (unset means the default).
pub fn parse_ttl(raw: Option<&str>) -> Result<Duration, StartupError> {
    let Some(raw) = raw else {
        return Ok(DEFAULT_APPROVAL_TTL);
    };
    match raw.trim().parse::<u64>() {
        Ok(n) if (1..=MAX_APPROVAL_TTL_SECONDS).contains(&n) => Ok(Duration::from_secs(n)),
        _ => Err(StartupError::InvalidTtl {
            value: raw.to_string(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ttl_parsing() {
        assert_eq!(parse_ttl(None).ok(), Some(DEFAULT_APPROVAL_TTL));
        assert_eq!(parse_ttl(Some("2")).ok(), Some(Duration::from_secs(2)));
        // At most one week, as the README says (not the constant: the number itself).
        assert_eq!(
            parse_ttl(Some("604800")).ok(),
            Some(Duration::from_secs(604_800))
        );
        assert_eq!(DEFAULT_APPROVAL_TTL, Duration::from_secs(900));
        for bad in ["0", "-1", "abc", "", "1.5", "99999999999", "604801"] {
            assert!(parse_ttl(Some(bad)).is_err(), "{bad}");
        }
    }

    #[test]
    fn missing_and_empty_workspace() {
        let none = Config::from_lookup(&|_| None).expect_err("unset");
        assert_eq!(
            none.to_string(),
            "TOOLHUB_WORKSPACE_ROOT is required but not set (set it to the absolute path of an existing workspace directory)"
        );
        assert_eq!(none.code(), "WORKSPACE_MISSING");
        let empty = Config::from_lookup(&|k| (k == ENV_WORKSPACE_ROOT).then(|| "  ".into()))
            .expect_err("empty");
        assert_eq!(empty.code(), "WORKSPACE_MISSING");
    }
}
