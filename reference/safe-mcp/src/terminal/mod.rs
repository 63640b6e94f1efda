//! The terminal server's logic, free of MCP types: `run_command` and `explain_command`.
//!
//! Every call goes through [`Terminal::serve`]: an attempt record, the decision, the action,
//! an outcome record. Under `audit_fail_mode = "closed"` an attempt that cannot be recorded
//! means nothing runs (AUDIT_UNAVAILABLE). The decision is shared by both tools, so
//! `explain_command` reaches exactly the verdict `run_command` would, and stops before the
//! executor. Order: metacharacter scan, split, policy, then (run only) cwd confinement.

pub mod exec;

use std::path::PathBuf;

use mcp_safety_core::policy::command::{find_metacharacter, split_command};
use mcp_safety_core::policy::paths::{CwdError, confine_cwd};
use mcp_safety_core::policy::{Policy, Redactor, TerminalPolicy};
use mcp_safety_core::trail::AuditTrail;
use serde_json::{Value, json};

use crate::audited::audited;
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

    /// The single attempt/outcome point of every tool.
    fn serve(
        &self,
        action: &str,
        args: Value,
        body: impl FnOnce() -> OperationResult,
    ) -> OperationResult {
        audited(
            &self.trail,
            &self.redactor,
            action,
            &args,
            &["exit_code"],
            body,
        )
    }
}
