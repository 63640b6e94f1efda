//! The `safe-mcp` command line: `terminal` and `files`, each taking `--config PATH`
//! (else `SAFE_MCP_POLICY_FILE`; neither means refuse to start).
//!
//! Stdout carries protocol messages only. Every startup failure is one `fatal: ...` line on
//! stderr and a nonzero exit, before anything touches stdout. Logs go to stderr (`RUST_LOG`,
//! default `warn`).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use mcp_safety_core::policy::{Policy, Server};
use mcp_stdio_guard::serve_stdio;

use crate::config;
use crate::files::Organizer;
use crate::files_server::FilesServer;
use crate::server::TerminalServer;
use crate::terminal::Terminal;

const ENV_HELP: &str = "Environment (each overrides the matching policy key):\n  SAFE_MCP_POLICY_FILE      policy path when --config is absent (--config wins)\n  SAFE_MCP_JAIL_ROOT        terminal jail directory (terminal.jail_root)\n  SAFE_MCP_WORKSPACE_ROOT   files workspace directory (files.workspace_root)\n  SAFE_MCP_AUDIT_LOG        audit trail path, outside every jail (audit_log)\n  SAFE_MCP_AUDIT_FAIL_MODE  closed (default) or open (audit_fail_mode)\n  SAFE_MCP_FILES_JOURNAL    undo journal path, outside the workspace (files.journal)\n  RUST_LOG                  log filter; logs go to stderr only";

#[derive(Debug, Parser)]
#[command(
    name = "safe-mcp",
    version,
    about = "safe-mcp: an allowlisted terminal and an undoable file organizer over MCP (stdio).",
    after_help = ENV_HELP,
    disable_help_subcommand = true
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Serve the allowlisted terminal (run_command, explain_command) over stdio.
    Terminal {
        /// The policy file (else SAFE_MCP_POLICY_FILE).
        #[arg(long, value_name = "PATH")]
        config: Option<PathBuf>,
    },
    /// Serve the undoable file organizer (list_files, plan_organize, apply_plan, move_file,
    /// undo_last_action, redo_last_action) over stdio.
    Files {
        /// The policy file (else SAFE_MCP_POLICY_FILE).
        #[arg(long, value_name = "PATH")]
        config: Option<PathBuf>,
    },
}

fn fatal(msg: impl std::fmt::Display) -> ExitCode {
    eprintln!("fatal: {msg}");
    ExitCode::from(2)
}

/// Prints a clap outcome: help/version to stdout (exit 0), errors as one or two stderr lines
/// (exit 2): clap's message and its usage line.
fn clap_exit(e: clap::Error) -> ExitCode {
    match mcp_stdio_guard::clap_error_text(&e) {
        None => ExitCode::SUCCESS,
        Some(text) => {
            eprint!("fatal: {text}");
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

/// From now on every log line also passes the policy's redactor (its `extra_patterns`), the
/// one the audit and the results use.
fn redact_logs_with(policy: &Policy) {
    let redactor = policy.redactor.clone();
    mcp_safety_core::redact::log::also_redact(move |line| redactor.redact(line));
}

/// The `safe-mcp` entry point.
pub fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return clap_exit(e),
    };
    match cli.command {
        Some(Command::Terminal { config }) => terminal(config),
        Some(Command::Files { config }) => files(config),
        None => fatal("a command is required: terminal or files (see --help)"),
    }
}

fn terminal(config: Option<PathBuf>) -> ExitCode {
    init_tracing();
    let policy = match config::load(config, Server::Terminal) {
        Ok(loaded) => loaded.policy,
        Err(e) => return fatal(e),
    };
    redact_logs_with(&policy);
    let Some(terminal) = Terminal::new(policy) else {
        return fatal("jail_root is required");
    };
    // Descendants of a command are reparented to us, so containment can reap them.
    if let Err(e) = mcp_safety_core::exec::enable_subreaper() {
        return fatal(format_args!("cannot become a child subreaper: {e}"));
    }
    if let Err(e) = mcp_safety_core::exec::supervisor::enable() {
        return fatal(format_args!("cannot enable the execution supervisor: {e}"));
    }
    // Stdin closed: end every running execution (trees killed and reaped) rather than
    // wait for the commands; pending answers are still written.
    mcp_stdio_guard::serve_stdio_then(
        TerminalServer::new(terminal),
        "safe-mcp",
        mcp_safety_core::exec::terminate_all,
    )
}

fn files(config: Option<PathBuf>) -> ExitCode {
    init_tracing();
    let loaded = match config::load(config, Server::Files) {
        Ok(loaded) => loaded,
        Err(e) => return fatal(e),
    };
    redact_logs_with(&loaded.policy);
    let organizer = match Organizer::with_files(loaded.policy, &loaded.raw.files) {
        Ok(o) => o,
        Err(e) => return fatal(e),
    };
    serve_stdio(FilesServer::new(organizer), "safe-mcp")
}
