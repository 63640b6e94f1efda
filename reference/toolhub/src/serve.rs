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
/// lines (exit 2), see [`usage_error`].
pub(crate) fn clap_exit(e: clap::Error, prog: &str) -> ExitCode {
    use clap::error::ErrorKind;
    match e.kind() {
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
            let _ = e.print();
            ExitCode::SUCCESS
        }
        ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            eprint!("{}", command_required(&e.render().to_string(), prog));
            ExitCode::from(2)
        }
        _ => {
            eprint!("{}", usage_error(&e.render().to_string(), prog));
            ExitCode::from(2)
        }
    }
}

/// A (sub)command without its command: clap renders that command's help; we keep the
/// command names it lists and its `Usage:` line, in two lines.
fn command_required(help: &str, prog: &str) -> String {
    let mut names = Vec::new();
    let mut usage = None;
    let mut in_commands = false;
    for line in help.lines() {
        if line.starts_with("Usage:") {
            usage = Some(line.trim_end());
        }
        if line == "Commands:" {
            in_commands = true;
            continue;
        }
        if in_commands {
            match line
                .strip_prefix("  ")
                .and_then(|l| l.split_whitespace().next())
            {
                Some(name) if !line.starts_with("   ") => names.push(name),
                Some(_) => {}
                None => in_commands = false,
            }
        }
    }
    let mut text = format!("{prog}: a command is required");
    if !names.is_empty() {
        text.push_str(": ");
        text.push_str(&names.join(", "));
    }
    text.push_str(" (see --help)\n");
    if let Some(usage) = usage {
        text.push_str(usage);
        text.push('\n');
    }
    text
}

/// clap's rendering of a usage error in at most two lines, keeping what clap says: its
/// message with the indented context joined on (the missing arguments' names, the valid
/// subcommands, a `tip:` with a suggestion), then clap's `Usage:` line when it has one. Only
/// the blank lines and the closing "For more information, try '--help'." go, replaced by
/// `(see --help)`, like every reference server's usage error.
fn usage_error(rendered: &str, prog: &str) -> String {
    let mut lines = rendered
        .lines()
        .map(str::trim_end)
        .filter(|l| !l.is_empty());
    let first = lines.next().unwrap_or("invalid arguments");
    let mut message = first.strip_prefix("error: ").unwrap_or(first).to_string();
    let mut usage: Option<String> = None;
    let mut after_item = false;
    for line in lines {
        if line.starts_with("For more information") {
            continue;
        }
        if line.starts_with("Usage:") {
            usage = Some(line.to_string());
            continue;
        }
        let item = line.trim_start();
        if let Some(usage) = usage.as_mut() {
            // A further usage form, indented below the first.
            usage.push_str(" | ");
            usage.push_str(item);
            continue;
        }
        let tip = item.starts_with("tip:");
        message.push_str(if tip {
            "; "
        } else if message.ends_with(':') {
            " "
        } else if after_item {
            ", "
        } else {
            " "
        });
        message.push_str(item);
        after_item = !tip;
    }
    match usage {
        Some(usage) => format!("{prog}: {message} (see --help)\n{usage}\n"),
        None => format!("{prog}: {message} (see --help)\n"),
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
