//! The terminal server's logic, free of MCP types: `run_command` and `explain_command`.
//!
//! Every call goes through [`Terminal::serve`]: an attempt record, the decision, the action,
//! an outcome record. Under `audit_fail_mode = "closed"` an attempt that cannot be recorded
//! means nothing runs (AUDIT_UNAVAILABLE). The decision is shared by both tools, so
//! `explain_command` reaches exactly the verdict `run_command` would, and stops before the
//! executor. Order: metacharacter scan, split, policy, then (run only) cwd confinement.

pub mod exec;

use std::path::PathBuf;
use std::time::Instant;

use mcp_safety_core::clock::{Clock, SystemClock};
use mcp_safety_core::policy::command::{find_metacharacter, split_command};
use mcp_safety_core::policy::paths::{CwdError, confine_cwd};
use mcp_safety_core::policy::{Policy, Redactor, TerminalPolicy};
use mcp_safety_core::trail::{AuditTrail, FailMode};
use serde_json::{Value, json};

use crate::result::{Code, OperationResult};
use exec::{RunLimits, child_env, execute, resolve_program};

/// The run tool's name.
pub const RUN_COMMAND: &str = "run_command";
/// The dry-run tool's name.
pub const EXPLAIN_COMMAND: &str = "explain_command";

/// A configured terminal: the validated policy, the jail and the audit trail.
#[derive(Debug)]
pub struct Terminal {
    jail: PathBuf,
    rules: TerminalPolicy,
    redactor: Redactor,
    trail: AuditTrail,
}

impl Terminal {
    /// Builds the terminal from a policy loaded for the terminal server.
    pub fn new(policy: Policy) -> Option<Terminal> {
        Some(Terminal {
            jail: policy.jail_root?,
            rules: policy.terminal,
            redactor: policy.redactor,
            trail: AuditTrail::new(policy.audit_log, policy.audit_fail_mode),
        })
    }

    /// Blocking. Evaluates `command` and, if allowed, runs it in `cwd` (inside the jail).
    pub fn run_command(&self, command: &str, cwd: Option<&str>) -> OperationResult {
        let args = json!({"command": command, "cwd": cwd});
        self.serve(RUN_COMMAND, args, || {
            let (argv, allowed_because) = match self.decide(command) {
                Ok(decided) => decided,
                Err((code, reason)) => return self.refuse(code, RUN_COMMAND, &reason),
            };
            let dir = match confine_cwd(&self.jail, cwd) {
                Ok(d) => d,
                Err(e @ CwdError::Escape(_)) => {
                    return self.refuse(Code::PathEscape, RUN_COMMAND, &e.to_string());
                }
                Err(e @ CwdError::NotDirectory(_)) => {
                    return self.refuse(Code::InvalidRequest, RUN_COMMAND, &e.to_string());
                }
            };
            let env = child_env(&self.jail);
            let Some((name, rest)) = argv.split_first() else {
                return self.refuse(Code::InvalidRequest, RUN_COMMAND, "the command is empty");
            };
            let Some(program) = resolve_program(name, &env) else {
                return self.refuse(
                    Code::OperationFailed,
                    RUN_COMMAND,
                    &format!("'{name}' is allowed but was not found on PATH"),
                );
            };
            let limits = RunLimits {
                timeout: self.rules.timeout,
                cap: self.rules.max_output_bytes,
            };
            let because = self.redactor.redact(&allowed_because).into_owned();
            execute(
                program,
                rest.to_vec(),
                dir,
                env,
                limits,
                &self.redactor,
                because,
            )
        })
    }

    /// Blocking. The verdict `run_command` would reach for `command`; runs nothing.
    pub fn explain_command(&self, command: &str) -> OperationResult {
        let args = json!({"command": command});
        self.serve(EXPLAIN_COMMAND, args, || match self.decide(command) {
            Ok((argv, because)) => {
                let mut r = OperationResult::new(true, Code::Ok, EXPLAIN_COMMAND, "");
                r.reason = self.redactor.redact(&because).into_owned();
                let shown: Vec<Value> = argv
                    .iter()
                    .map(|a| Value::String(self.redactor.redact(a).into_owned()))
                    .collect();
                r.detail.insert("argv".into(), Value::Array(shown));
                r.detail.insert("would_run".into(), Value::Bool(true));
                r
            }
            Err((code, reason)) => self.refuse(code, EXPLAIN_COMMAND, &reason),
        })
    }

    fn refuse(&self, code: Code, action: &str, reason: &str) -> OperationResult {
        OperationResult::refused(code, action, self.redactor.redact(reason).into_owned())
    }

    /// Metacharacter scan, split, policy: the argv and the allowing reason, else the refusal's
    /// code and reason.
    fn decide(&self, command: &str) -> Result<(Vec<String>, String), (Code, String)> {
        if let Some(m) = find_metacharacter(command) {
            return Err((
                Code::PolicyDenied,
                format!(
                    "shell metacharacter '{m}' is not allowed (refused before policy, even inside quotes)"
                ),
            ));
        }
        let argv = split_command(command).map_err(|e| (Code::InvalidRequest, e.to_string()))?;
        let verdict = self.rules.evaluate(&argv);
        if !verdict.allowed {
            return Err((Code::PolicyDenied, verdict.reason));
        }
        Ok((argv, verdict.reason))
    }

    fn record(&self, record: Value) -> Result<(), String> {
        self.trail.record(&record).map_err(|e| e.to_string())
    }

    /// The single attempt/outcome point of every tool.
    fn serve(
        &self,
        action: &str,
        args: Value,
        body: impl FnOnce() -> OperationResult,
    ) -> OperationResult {
        let started = Instant::now();
        let call_id = mcp_safety_core::ids::random_hex(8).unwrap_or_else(|_| "unknown".into());
        let redacted_args = redact_json(&self.redactor, &args);
        let attempt = json!({
            "ts": SystemClock.now().to_rfc3339(), "phase": "attempt", "call_id": call_id,
            "action": action, "args": redacted_args,
        });
        let open = self.trail.mode() == FailMode::Open;
        if let Err(e) = self.record(attempt) {
            if !open {
                tracing::error!("audit trail unwritable, refusing {action}: {e}");
                let mut r = OperationResult::refused(
                    Code::AuditUnavailable,
                    action,
                    "the audit trail cannot be written; nothing was done (audit_fail_mode = closed)",
                );
                r.duration_ms = started.elapsed().as_millis() as u64;
                return r;
            }
            tracing::warn!("audit trail unwritable, proceeding (audit_fail_mode = open): {e}");
        }
        let mut result = body();
        result.duration_ms = started.elapsed().as_millis() as u64;
        let mut outcome = json!({
            "ts": SystemClock.now().to_rfc3339(), "phase": "outcome", "call_id": call_id,
            "action": action, "ok": result.ok, "code": result.code.as_str(),
            "reason": result.reason, "duration_ms": result.duration_ms,
        });
        if let Some(code) = result.detail.get("exit_code") {
            outcome["exit_code"] = code.clone();
        }
        if let Err(e) = self.record(outcome) {
            if !open {
                tracing::error!("audit trail unwritable after {action}: {e}");
                let mut r = OperationResult::refused(
                    Code::AuditUnavailable,
                    action,
                    format!(
                        "the outcome ({}) could not be written to the audit trail",
                        result.code.as_str()
                    ),
                );
                r.duration_ms = result.duration_ms;
                return r;
            }
            tracing::warn!("audit trail unwritable, proceeding (audit_fail_mode = open): {e}");
        }
        result
    }
}

/// Every string inside `v` redacted by `r` (operator and built-in patterns).
fn redact_json(r: &Redactor, v: &Value) -> Value {
    match v {
        Value::String(s) => Value::String(r.redact(s).into_owned()),
        Value::Array(a) => Value::Array(a.iter().map(|x| redact_json(r, x)).collect()),
        Value::Object(m) => Value::Object(
            m.iter()
                .map(|(k, x)| (k.clone(), redact_json(r, x)))
                .collect(),
        ),
        other => other.clone(),
    }
}
