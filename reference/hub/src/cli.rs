//! The command line: `mcp-hub [CONFIG]`, `--help`, `--version`.
//!
//! Stdout carries MCP only: help and version are the only other things ever printed there.
//! A configuration error is one line on stderr and exit code 2, before any upstream starts.

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;

use crate::config::{self, CONFIG_ENV, ConfigError, HubConfig, STARTUP_TIMEOUT_ENV};

const PROG: &str = "mcp-hub";

/// Exit code of configuration and usage errors.
pub const EXIT_CONFIG: u8 = 2;

#[derive(Debug, Parser)]
#[command(
    name = "mcp-hub",
    version,
    about = "A tools-only MCP aggregation server: starts the configured stdio MCP servers and \
             serves their tools through one stdio MCP endpoint.",
    after_help = "Environment:\n  MCP_HUB_CONFIG              configuration file when CONFIG is not given\n  MCP_HUB_STARTUP_TIMEOUT_MS  bound of each upstream startup step (default 5000)\n  RUST_LOG                    log filter (default info,mcp_hub=debug); logs go to stderr only"
)]
struct Cli {
    /// The TOML configuration file (default: $MCP_HUB_CONFIG).
    #[arg(value_name = "CONFIG")]
    config: Option<PathBuf>,
}

/// Prints a clap outcome: help/version to stdout (exit 0), errors as one or two stderr lines
/// (exit 2): clap's message and its usage line.
fn clap_exit(e: clap::Error) -> ExitCode {
    match mcp_stdio_guard::clap_error_text(&e) {
        None => ExitCode::SUCCESS,
        Some(text) => {
            eprint!("{PROG}: {text}");
            ExitCode::from(EXIT_CONFIG)
        }
    }
}

/// The configuration path: the argument, else a non-empty [`CONFIG_ENV`].
fn config_path(arg: Option<PathBuf>, env: Option<OsString>) -> Result<PathBuf, ConfigError> {
    arg.or_else(|| env.filter(|v| !v.is_empty()).map(PathBuf::from))
        .ok_or(ConfigError::NoPath)
}

/// The `mcp-hub` entry point.
pub fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return clap_exit(e),
    };
    let loaded = config_path(cli.config, std::env::var_os(CONFIG_ENV)).and_then(|path| {
        let config = HubConfig::load(&path)?;
        let timeout = config::startup_timeout(std::env::var(STARTUP_TIMEOUT_ENV).ok().as_deref())?;
        Ok((config, timeout))
    });
    // The line limit is configuration too: refused before any upstream starts.
    if let Err(e) = mcp_stdio_guard::max_line_bytes() {
        eprintln!("{PROG}: {e}");
        return ExitCode::from(EXIT_CONFIG);
    }
    let (config, timeout) = match loaded {
        Ok(loaded) => loaded,
        Err(e) => {
            eprintln!("{PROG}: {e}");
            return ExitCode::from(EXIT_CONFIG);
        }
    };
    let log_guard = crate::logging::init();
    let outcome = crate::run::run(config, timeout);
    // Flushes the log: every record queued before the failure is written before its line.
    drop(log_guard);
    match outcome {
        Ok(code) => code,
        Err(failure) => {
            // It may quote an upstream's stderr: redacted like every log line.
            let line = format!("{PROG}: {failure}");
            eprintln!("{}", mcp_safety_core::redact::log::redact_log_text(&line));
            ExitCode::from(crate::run::EXIT_STARTUP)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_argument_wins_over_the_environment() {
        let from_arg = config_path(Some("a.toml".into()), Some("b.toml".into()));
        assert_eq!(from_arg.ok(), Some(PathBuf::from("a.toml")));
        let from_env = config_path(None, Some("b.toml".into()));
        assert_eq!(from_env.ok(), Some(PathBuf::from("b.toml")));
        assert!(matches!(
            config_path(None, Some(OsString::new())),
            Err(ConfigError::NoPath)
        ));
        assert!(matches!(config_path(None, None), Err(ConfigError::NoPath)));
    }

    #[test]
    fn the_cli_parses() {
        use clap::CommandFactory;
        Cli::command().debug_assert();
    }
}
