//! `mcp-toolhub-admin`: the trusted, human-facing operator CLI. It is not an MCP transport:
//! it prints ordinary text to stdout. It reads the same environment as the server
//! (`TOOLHUB_WORKSPACE_ROOT`, `TOOLHUB_STATE_ROOT`) and so works on the same bound state.
//!
//! - `list`: one line per request of this workspace.
//! - `approve ID`: shows the protected request and approves it only if the operator types
//!   `APPROVE` exactly (one line on stdin); anything else exits 1 and changes nothing.
//! - `reject ID`: rejects at once, without confirmation: rejecting is the safe direction and
//!   must stay scriptable.
//! - `prune approvals --older-than-days N [--apply]`, `prune audit --keep-last N [--apply]`:
//!   dry runs unless `--apply`.
//!
//! Exit codes: 0 success, 1 refused/failed operation, 2 usage or configuration error. Errors
//! are one line on stderr (a usage error adds clap's usage line).

use std::io::{BufRead, Write};
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use mcp_safety_core::approvals::{ApprovalRecord, ApprovalStatus, Operation, StoreError};
use mcp_safety_core::audit::AuditEvent;
use serde_json::{Value, json};

use crate::config::Config;
use crate::hub::Hub;
use crate::limits::ADMIN_PREVIEW_CHARS;
use crate::tools::shell::ShellPayload;

const PROG: &str = "mcp-toolhub-admin";
/// The exact confirmation word for `approve`.
pub const CONFIRM_WORD: &str = "APPROVE";

#[derive(Debug, Parser)]
#[command(
    name = "mcp-toolhub-admin",
    version,
    about = "Trusted operator CLI for MCP ToolHub: list, approve, reject, export and prune approval requests and the audit log.",
    after_help = "Uses the same TOOLHUB_WORKSPACE_ROOT / TOOLHUB_STATE_ROOT as the server. `approve` asks you to type APPROVE; `reject` needs no confirmation. Prunes are dry runs unless --apply.",
    disable_help_subcommand = true
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// List this workspace's approval requests.
    List,
    /// Show a pending request and approve it after typing APPROVE.
    Approve {
        /// The request id (req_...).
        request_id: String,
    },
    /// Reject a pending request (no confirmation).
    Reject {
        /// The request id (req_...).
        request_id: String,
    },
    /// Write the whole approval store as approvals.json (a backup), to stdout or FILE.
    ///
    /// The JSON form the document names, every workspace's records with their payloads: keep
    /// it private. With --output it is written atomically, readable only by you. To restore
    /// it, stop ToolHub, move the state root's approvals.sqlite3* away and put the file there
    /// as approvals.json: it is migrated at the next start.
    Export {
        /// Where to write it (default: stdout).
        #[arg(long, value_name = "FILE")]
        output: Option<std::path::PathBuf>,
        /// Leave damaged records out (named on stderr) instead of refusing to export.
        #[arg(long)]
        skip_damaged: bool,
    },
    /// Explicit maintenance of trusted state (dry run unless --apply).
    #[command(subcommand)]
    Prune(Prune),
}

#[derive(Debug, Subcommand)]
enum Prune {
    /// Remove terminal (rejected, expired, consumed) requests older than N days.
    Approvals {
        #[arg(long, value_name = "N")]
        older_than_days: u64,
        /// Actually remove (default: dry run).
        #[arg(long)]
        apply: bool,
    },
    /// Keep only the newest N audit events.
    Audit {
        #[arg(long, value_name = "N")]
        keep_last: usize,
        /// Actually compact (default: dry run).
        #[arg(long)]
        apply: bool,
    },
    /// Remove this workspace's damaged requests (records that cannot be read; their
    /// requests then no longer exist, so nothing can run on them).
    Damaged {
        /// Actually remove (default: dry run).
        #[arg(long)]
        apply: bool,
    },
}

/// A failed command: one stderr line and exit 1.
struct Failure(String);

impl From<StoreError> for Failure {
    fn from(e: StoreError) -> Self {
        Failure(e.to_string())
    }
}

/// The `mcp-toolhub-admin` entry point.
pub fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return crate::serve::clap_exit(e, PROG),
    };
    let config = match Config::from_env() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("{PROG}: {e}");
            return ExitCode::from(2);
        }
    };
    let hub = Hub::new(config);
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();
    match run(&hub, cli.command, &mut stdin.lock(), &mut stdout.lock()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure(msg)) => {
            eprintln!("{PROG}: {msg}");
            ExitCode::from(1)
        }
    }
}

fn run(
    hub: &Hub,
    command: Command,
    input: &mut dyn BufRead,
    out: &mut dyn Write,
) -> Result<(), Failure> {
    let w = |r: std::io::Result<()>| r.map_err(|e| Failure(format!("cannot write output: {e}")));
    match command {
        Command::List => w(list(hub, out)?),
        Command::Approve { request_id } => approve(hub, &request_id, input, out),
        Command::Reject { request_id } => reject(hub, &request_id, out),
        Command::Export {
            output,
            skip_damaged,
        } => export(hub, output.as_deref(), skip_damaged, out),
        Command::Prune(Prune::Approvals {
            older_than_days,
            apply,
        }) => maintenance::prune_approvals(hub, older_than_days, apply, out),
        Command::Prune(Prune::Audit { keep_last, apply }) => {
            maintenance::prune_audit(hub, keep_last, apply, out)
        }
        Command::Prune(Prune::Damaged { apply }) => maintenance::prune_damaged(hub, apply, out),
    }
}

fn export(
    hub: &Hub,
    output: Option<&std::path::Path>,
    skip_damaged: bool,
    out: &mut dyn Write,
) -> Result<(), Failure> {
    let bytes = if skip_damaged {
        let (bytes, damaged) = hub.approvals.export_readable()?;
        for d in &damaged {
            eprintln!(
                "{PROG}: left out damaged request {} (workspace {}): {}",
                d.request_id, d.workspace_id, d.reason
            );
        }
        bytes
    } else {
        hub.approvals.export().map_err(maintenance::with_way_out)?
    };
    match output {
        Some(path) => mcp_safety_core::fsio::atomic_write(path, &bytes)
            .map_err(|e| Failure(format!("cannot write {}: {e}", path.display()))),
        None => out
            .write_all(&bytes)
            .map_err(|e| Failure(format!("cannot write output: {e}"))),
    }
}

fn list(hub: &Hub, out: &mut dyn Write) -> Result<std::io::Result<()>, Failure> {
    let (views, damaged) = hub.approvals.list_readable()?;
    let written = (|| {
        if views.is_empty() && damaged.is_empty() {
            writeln!(out, "no approval requests")?;
        }
        for v in views {
            writeln!(
                out,
                "{}  {:<8}  {:<22}  created={}  expires={}  trace={}",
                v.request_id,
                v.status.as_str(),
                v.operation.initial_tool(),
                v.created_at.to_rfc3339(),
                v.expires_at.to_rfc3339(),
                v.trace_id
            )?;
        }
        for d in &damaged {
            writeln!(
                out,
                "{}  DAMAGED   {}",
                d.request_id,
                terminal_safe(&d.reason)
            )?;
        }
        Ok(())
    })();
    if !damaged.is_empty() {
        written.map_err(|e| Failure(format!("cannot write output: {e}")))?;
        return Err(Failure(format!(
            "{} damaged request record(s), listed as DAMAGED: the server refuses them \
             (STORE_MALFORMED); `{PROG} prune damaged --apply` removes them, `{PROG} export \
             --skip-damaged` saves the rest",
            damaged.len()
        )));
    }
    Ok(written)
}

/// Makes text safe for a terminal: control characters (other than newline and tab) escaped.
fn terminal_safe(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\n' | '\t' => out.push(c),
            c if c.is_control() => out.push_str(&c.escape_unicode().to_string()),
            c => out.push(c),
        }
    }
    out
}

/// A bounded preview of protected content, indented.
fn preview(s: &str) -> String {
    let total = s.chars().count();
    let shown: String = s.chars().take(ADMIN_PREVIEW_CHARS).collect();
    let mut text = String::new();
    for line in terminal_safe(&shown).split('\n') {
        text.push_str("    | ");
        text.push_str(line);
        text.push('\n');
    }
    if total > ADMIN_PREVIEW_CHARS {
        text.push_str(&format!(
            "    [... {} more characters not shown]\n",
            total - ADMIN_PREVIEW_CHARS
        ));
    }
    text
}

fn field<'a>(payload: &'a Value, key: &str) -> Option<&'a str> {
    payload.get(key).and_then(Value::as_str)
}

/// The protected request, as the operator must see it before approving.
pub fn describe(record: &ApprovalRecord, now: mcp_safety_core::clock::Timestamp) -> String {
    let p = &record.payload;
    let mut s = String::new();
    let line = |s: &mut String, k: &str, v: &str| s.push_str(&format!("  {k:<18} {v}\n"));
    s.push_str("Approval request\n");
    line(&mut s, "request id:", &record.request_id);
    line(&mut s, "operation:", record.operation.initial_tool());
    line(&mut s, "status:", record.effective_status(now).as_str());
    line(&mut s, "trace id:", &record.trace_id);
    line(&mut s, "created:", &record.created_at.to_rfc3339());
    line(&mut s, "expires:", &record.expires_at.to_rfc3339());
    let hash_or = |k: &str, none: &str| field(p, k).unwrap_or(none).to_string();
    match record.operation {
        Operation::WriteFile => {
            line(
                &mut s,
                "path:",
                &terminal_safe(field(p, "path").unwrap_or("?")),
            );
            line(
                &mut s,
                "create parents:",
                if p.get("create_parents").and_then(Value::as_bool) == Some(true) {
                    "yes"
                } else {
                    "no"
                },
            );
            line(
                &mut s,
                "expected hash:",
                &hash_or("expected_hash", "(none given)"),
            );
            line(
                &mut s,
                "hash at submission:",
                &hash_or("observed_sha256", "(file did not exist)"),
            );
            line(
                &mut s,
                "new content sha256:",
                &hash_or("content_sha256", "?"),
            );
            let content = field(p, "content").unwrap_or("");
            s.push_str(&format!("  new content ({} bytes):\n", content.len()));
            s.push_str(&preview(content));
        }
        Operation::ApplyPatch => {
            line(
                &mut s,
                "path:",
                &terminal_safe(field(p, "path").unwrap_or("?")),
            );
            line(
                &mut s,
                "expected hash:",
                &hash_or("expected_hash", "(none given)"),
            );
            line(
                &mut s,
                "hash at submission:",
                &hash_or("observed_sha256", "?"),
            );
            let n = |k: &str| p.get(k).and_then(Value::as_u64).unwrap_or(0);
            line(
                &mut s,
                "changes:",
                &format!("+{} -{}", n("additions"), n("deletions")),
            );
            let patch = field(p, "patch").unwrap_or("");
            s.push_str(&format!("  patch ({} bytes):\n", patch.len()));
            s.push_str(&preview(patch));
        }
        Operation::ShellRun => describe_shell(&mut s, p),
    }
    s
}

/// A shell request as the operator must judge it: the program as given and the executable it
/// resolved to (canonical path, size, SHA-256), the cwd, the timeout, every argument on its
/// own line as a JSON string (never one ambiguous command line), the environment and the risk.
fn describe_shell(s: &mut String, p: &Value) {
    let line = |s: &mut String, k: &str, v: &str| s.push_str(&format!("  {k:<18} {v}\n"));
    let Ok(shell) = serde_json::from_value::<ShellPayload>(p.clone()) else {
        line(
            s,
            "request:",
            "(malformed shell request: it cannot execute)",
        );
        return;
    };
    let json = |v: &str| serde_json::to_string(v).unwrap_or_default();
    line(s, "program:", &json(&shell.program));
    line(
        s,
        "executable:",
        &json(&shell.executable.canonical_path.to_string_lossy()),
    );
    line(s, "sha256:", &shell.executable.sha256);
    line(s, "size:", &format!("{} bytes", shell.executable.size));
    line(s, "cwd:", &json(&shell.cwd));
    line(s, "timeout:", &format!("{} s", shell.timeout_seconds));
    line(s, "arguments:", &shell.args.len().to_string());
    for (i, arg) in shell.args.iter().enumerate() {
        line(s, &format!("  arg[{i}]:"), &json(arg));
    }
    let env = if shell.env.vars.is_empty() {
        "(empty: inherits nothing)".to_string()
    } else {
        shell
            .env
            .vars
            .iter()
            .map(|(k, v)| format!("{}={}", json(k), json(v)))
            .collect::<Vec<_>>()
            .join(" ")
    };
    line(s, "environment:", &env);
    line(s, "env digest:", &shell.env_digest);
    line(
        s,
        "risk:",
        &format!(
            "{} ({})",
            serde_json::to_value(shell.risk)
                .ok()
                .and_then(|v| v.as_str().map(String::from))
                .unwrap_or_default(),
            terminal_safe(&shell.risk_reason)
        ),
    );
}

fn approve(
    hub: &Hub,
    request_id: &str,
    input: &mut dyn BufRead,
    out: &mut dyn Write,
) -> Result<(), Failure> {
    let now = hub.approvals.now();
    let record = hub
        .approvals
        .get_full(request_id)?
        .ok_or_else(|| Failure(format!("request not found: {request_id}")))?;
    let status = record.effective_status(now);
    if status != ApprovalStatus::Pending {
        return Err(Failure(format!(
            "request {request_id} is {}, not PENDING; nothing changed",
            status.as_str()
        )));
    }
    let io = |e: std::io::Error| Failure(format!("cannot write output: {e}"));
    write!(out, "{}", describe(&record, now)).map_err(io)?;
    write!(out, "Type {CONFIRM_WORD} to approve this request: ").map_err(io)?;
    out.flush().map_err(io)?;
    let mut answer = String::new();
    input
        .read_line(&mut answer)
        .map_err(|e| Failure(format!("cannot read confirmation: {e}")))?;
    let answer = answer
        .strip_suffix('\n')
        .map(|a| a.strip_suffix('\r').unwrap_or(a))
        .unwrap_or(&answer);
    if answer != CONFIRM_WORD {
        writeln!(out).map_err(io)?;
        return Err(Failure(format!(
            "confirmation did not match {CONFIRM_WORD}; request {request_id} was NOT approved"
        )));
    }
    let rec = hub.approvals.approve(request_id)?;
    hub.audit(
        AuditEvent::new("approval.approved", "admin", &rec.trace_id)
            .request_id(&rec.request_id)
            .outcome(ApprovalStatus::Approved.as_str())
            .details(json!({"operation": rec.operation.initial_tool()})),
    );
    writeln!(
        out,
        "approved {} (trace {}); the client resumes it with {}",
        rec.request_id,
        rec.trace_id,
        rec.operation.resume_tool()
    )
    .map_err(io)?;
    Ok(())
}

fn reject(hub: &Hub, request_id: &str, out: &mut dyn Write) -> Result<(), Failure> {
    let rec = hub.approvals.reject(request_id).map_err(|e| match e {
        StoreError::NotFound => Failure(format!("request not found: {request_id}")),
        e => Failure(format!("cannot reject {request_id}: {e}")),
    })?;
    hub.audit(
        AuditEvent::new("approval.rejected", "admin", &rec.trace_id)
            .request_id(&rec.request_id)
            .outcome(ApprovalStatus::Rejected.as_str())
            .details(json!({"operation": rec.operation.initial_tool()})),
    );
    writeln!(out, "rejected {} (trace {})", rec.request_id, rec.trace_id)
        .map_err(|e| Failure(format!("cannot write output: {e}")))?;
    Ok(())
}

mod maintenance;
#[cfg(test)]
mod tests;
