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
//! Every error is one short line without paths (see [`mcp_safety_core::config::ConfigError`]).

use std::time::Duration;

use mcp_safety_core::config::ConfigError;
use mcp_safety_core::jail::Workspace;
use mcp_safety_core::state::StateRoot;

pub const ENV_WORKSPACE_ROOT: &str = "TOOLHUB_WORKSPACE_ROOT";
pub const ENV_STATE_ROOT: &str = "TOOLHUB_STATE_ROOT";
pub const ENV_APPROVAL_TTL: &str = "TOOLHUB_APPROVAL_TTL_SECONDS";

/// Default lifetime of a new approval request.
pub const DEFAULT_APPROVAL_TTL: Duration = Duration::from_secs(900);
/// Longest accepted approval lifetime (one week).
pub const MAX_APPROVAL_TTL_SECONDS: u64 = 7 * 24 * 3600;

/// A configuration error: one line, exit code 2.
#[derive(Debug, thiserror::Error)]
pub enum StartupError {
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error(
        "{ENV_APPROVAL_TTL} must be a positive integer number of seconds (at most {MAX_APPROVAL_TTL_SECONDS})"
    )]
    InvalidTtl,
}

impl StartupError {
    /// A stable machine code.
    pub fn code(&self) -> &'static str {
        match self {
            StartupError::Config(e) => e.code(),
            StartupError::InvalidTtl => "APPROVAL_TTL_INVALID",
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
    /// Reads the process environment.
    pub fn from_env() -> Result<Config, StartupError> {
        Self::from_lookup(&|k| std::env::var(k).ok())
    }

    /// Reads configuration through `env` (a variable lookup), for tests.
    pub fn from_lookup(env: &dyn Fn(&str) -> Option<String>) -> Result<Config, StartupError> {
        let raw = env(ENV_WORKSPACE_ROOT).ok_or(ConfigError::WorkspaceMissing)?;
        if raw.trim().is_empty() {
            return Err(ConfigError::WorkspaceMissing.into());
        }
        let approval_ttl = parse_ttl(env(ENV_APPROVAL_TTL).as_deref())?;
        let workspace = Workspace::open(&raw)?;
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
        _ => Err(StartupError::InvalidTtl),
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
        assert_eq!(none.to_string(), "TOOLHUB_WORKSPACE_ROOT is required");
        let empty = Config::from_lookup(&|k| (k == ENV_WORKSPACE_ROOT).then(|| "  ".into()))
            .expect_err("empty");
        assert_eq!(empty.code(), "WORKSPACE_MISSING");
    }
}
