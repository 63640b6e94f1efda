//! `mcp-toolhub`: `serve` (MCP over stdio), `--version`, `--help`.
//!
//! Stdout carries protocol messages only: no banner, logs go to stderr (`RUST_LOG`, default
//! `warn`). A configuration error is one line on stderr and exit code 2, before anything
//! touches stdout; a usage error is clap's message and its usage line, exit code 2 too. On
//! stdin EOF the session ends and the process exits 0.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

use crate::config::Config;
use crate::hub::Hub;
use crate::server::ToolHubServer;

const PROG: &str = "mcp-toolhub";

#[derive(Debug, Parser)]
#[command(
    name = "mcp-toolhub",
    version,
    about = "MCP ToolHub: a local stdio MCP server with workspace tools and out-of-band human approval (Contract V1).",
    after_help = "Environment:\n  TOOLHUB_WORKSPACE_ROOT        required; absolute path of an existing directory\n  TOOLHUB_STATE_ROOT            optional; absolute trusted state directory outside the workspace\n  TOOLHUB_APPROVAL_TTL_SECONDS  optional; lifetime of new approval requests (default 900)\n  RUST_LOG                      log filter; logs go to stderr only",
    disable_help_subcommand = true
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Serve MCP over stdin/stdout until stdin closes.
    Serve,
}

/// Prints a clap outcome: help/version to stdout (exit 0), an error as at most two stderr
/// lines (exit 2), see [`mcp_stdio_guard::clap_error_text`].
pub(crate) fn clap_exit(e: clap::Error, prog: &str) -> ExitCode {
    match mcp_stdio_guard::clap_error_text(&e) {
        None => ExitCode::SUCCESS,
        Some(text) => {
            eprint!("{prog}: {text}");
            ExitCode::from(2)
        }
    }
}

fn init_tracing() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        // Every line through the audit log's redactor: the MCP library logs whole messages
        // (tool arguments and outputs) at debug and trace.
        .with_writer(|| mcp_safety_core::redact::log::RedactingWriter::new(std::io::stderr()))
        .with_ansi(false)
        .with_target(false)
        .try_init();
}

/// The `mcp-toolhub` entry point.
pub fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return clap_exit(e, PROG),
    };
    match cli.command {
        Some(Command::Serve) => serve(),
        None => {
            eprintln!("{PROG}: a command is required: serve (see --help)");
            ExitCode::from(2)
        }
    }
}

fn serve() -> ExitCode {
    init_tracing();
    let config = match Config::from_env() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("{PROG}: {e}");
            return ExitCode::from(2);
        }
    };
    // Orphaned descendants of approved commands are reparented to us, so cleanup can find
    // and reap them even after they leave their session (see mcp_safety_core::exec).
    if let Err(e) = mcp_safety_core::exec::enable_subreaper() {
        tracing::warn!(
            "cannot become a child subreaper; containment falls back to the process group: {e}"
        );
    }
    if let Err(e) = mcp_safety_core::exec::supervisor::enable() {
        tracing::warn!("cannot enable the execution supervisor: {e}");
    }
    // Stdin closed: end every running execution (trees killed and reaped) rather than
    // wait for the commands; pending answers are still written.
    mcp_stdio_guard::serve_stdio_then(
        ToolHubServer::new(Hub::new(config)),
        PROG,
        mcp_safety_core::exec::terminate_all,
    )
}
