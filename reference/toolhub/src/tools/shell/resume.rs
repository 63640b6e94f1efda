//! `shell.run_approved`: consume first, re-validate the snapshot, run the bound executable in
//! the core's contained execution, and map how it ended to an outcome.

use std::time::Duration;

use mcp_safety_core::approvals::Operation;
use mcp_safety_core::audit::AuditEvent;
use mcp_safety_core::exec::{self, Captured, ExecError, ExecResult, ExecSpec, Termination};
use mcp_safety_core::redact::redact_value;
use serde_json::{Value, json};

use super::payload::ShellPayload;
use super::program::{check_cwd, identity_stop};
use crate::contract::{ErrorInfo, Lifecycle, Outcome, RequestIdInput, Risk, ShellRunOutput, tools};
use crate::error::ToolError;
use crate::hub::Hub;
use crate::tools::refusal::Stop;

/// Codes of executions that ran but did not succeed, and of setup failures.
pub mod exec_codes {
    pub const COMMAND_FAILED: &str = "COMMAND_FAILED";
    pub const TIMED_OUT: &str = "TIMED_OUT";
    pub const ENVIRONMENT_MISMATCH: &str = "ENVIRONMENT_MISMATCH";
    pub const WORKSPACE_MISMATCH: &str = "WORKSPACE_MISMATCH";
}

/// The output of a resume that has not executed (yet): echoes the snapshot when known.
fn output(lifecycle: Lifecycle, payload: Option<&ShellPayload>) -> ShellRunOutput {
    ShellRunOutput {
        lifecycle,
        program: payload.map(|p| p.program.clone()).unwrap_or_default(),
        args: payload.map(|p| p.args.clone()).unwrap_or_default(),
        cwd: payload.map(|p| p.cwd.clone()).unwrap_or_default(),
        risk: payload.map(|p| p.risk).unwrap_or(Risk::High),
        risk_reason: payload
            .map(|p| p.risk_reason.clone())
            .unwrap_or_else(|| "unknown request".to_string()),
        returncode: None,
        stdout: None,
        stderr: None,
        timed_out: None,
    }
}

/// Byte counters of one captured stream, for the audit log.
fn counters(c: &Captured) -> Value {
    json!({
        "total_bytes": c.total_bytes,
        "retained_bytes": c.retained_bytes,
        "dropped_bytes": c.dropped_bytes,
    })
}

impl Hub {
    /// `shell.run_approved`
    pub fn shell_run_approved(&self, input: RequestIdInput) -> Result<ShellRunOutput, ToolError> {
        let tool = tools::SHELL_RUN_APPROVED;
        let resumed =
            match self.resume::<ShellPayload>(tool, &input.request_id, Operation::ShellRun)? {
                Ok(r) => r,
                Err((lifecycle, _)) => {
                    let payload = self.stored_shell_payload(&input.request_id);
                    return Ok(output(lifecycle, payload.as_ref()));
                }
            };
        let stop_with = |stop: Stop, payload: &ShellPayload| {
            let details = json!({"executable": payload.executable.basename()});
            Ok(output(
                resumed.stop(self, tool, stop, details),
                Some(payload),
            ))
        };
        let payload = &resumed.payload;
        if payload.workspace_id != self.workspace.id() {
            let stop = Stop::new(
                Outcome::Refused,
                exec_codes::WORKSPACE_MISMATCH,
                "the request was made for another workspace",
            );
            return stop_with(stop, payload);
        }
        if payload.env.digest() != payload.env_digest {
            let stop = Stop::new(
                Outcome::Failed,
                exec_codes::ENVIRONMENT_MISMATCH,
                "the stored environment snapshot does not match its digest; submit a new request",
            );
            return stop_with(stop, payload);
        }
        let cwd = match check_cwd(&self.workspace, &payload.cwd) {
            Ok(cwd) => cwd,
            Err(stop) => return stop_with(stop, payload),
        };
        let spec = ExecSpec {
            program: payload.executable.canonical_path.clone(),
            args: payload.args.clone(),
            cwd: cwd.abs,
            env: payload.env.vars.clone(),
            identity: Some(payload.executable.clone()),
            timeout: Duration::from_secs(u64::from(payload.timeout_seconds)),
            grace: exec::DEFAULT_GRACE,
            capture_limit: exec::MAX_CAPTURE_BYTES_PER_STREAM,
        };
        match exec::run(&spec) {
            Ok(result) => Ok(self.executed(
                resumed.consumed.clone(),
                &resumed.request_id,
                payload,
                result,
            )),
            Err(ExecError::Identity(e)) => stop_with(identity_stop(&e), payload),
            Err(e) => stop_with(Stop::new(Outcome::Failed, e.code(), e.to_string()), payload),
        }
    }

    /// Maps a finished execution to SUCCEEDED, COMMAND_FAILED or TIMED_OUT and audits it
    /// (metadata and counters only, never the output).
    fn executed(
        &self,
        consumed: Lifecycle,
        request_id: &str,
        payload: &ShellPayload,
        result: ExecResult,
    ) -> ShellRunOutput {
        let mut lifecycle = consumed;
        lifecycle.executed = true;
        let (outcome, returncode, error) = match result.termination {
            Termination::Exited(0) => (Outcome::Succeeded, Some(0), None),
            Termination::Exited(code) => (
                Outcome::CommandFailed,
                Some(code),
                Some(ErrorInfo::new(
                    exec_codes::COMMAND_FAILED,
                    format!("the command exited with status {code}"),
                    false,
                )),
            ),
            Termination::Signaled(signo) => (
                Outcome::CommandFailed,
                Some(-signo),
                Some(ErrorInfo::new(
                    exec_codes::COMMAND_FAILED,
                    format!("the command was killed by signal {signo}"),
                    false,
                )),
            ),
            Termination::TimedOut => (
                Outcome::TimedOut,
                None,
                Some(ErrorInfo::new(
                    exec_codes::TIMED_OUT,
                    format!(
                        "the command did not finish within {} s; its process tree was terminated",
                        payload.timeout_seconds
                    ),
                    true,
                )),
            ),
        };
        lifecycle.outcome = outcome;
        lifecycle.message = Some(match &error {
            Some(e) => e.message.clone(),
            None => "the command exited with status 0".to_string(),
        });
        lifecycle.error = error;
        let stdout = result.stdout.text_with_marker();
        let stderr = result.stderr.text_with_marker();
        let timed_out = result.termination == Termination::TimedOut;
        self.audit(
            AuditEvent::new(
                "shell.executed",
                tools::SHELL_RUN_APPROVED,
                &lifecycle.trace_id,
            )
            .request_id(request_id)
            .outcome(outcome.as_str())
            .details(json!({
                "executable": {
                    "basename": payload.executable.basename(),
                    "sha256": payload.executable.sha256,
                    "size": payload.executable.size,
                },
                "arg_count": payload.args.len(),
                "args": redact_value(&json!(payload.args)),
                "cwd": payload.cwd,
                "returncode": returncode,
                "timed_out": timed_out,
                "duration_ms": result.duration.as_millis() as u64,
                "stdout_chars": result.stdout.retained_chars(),
                "stderr_chars": result.stderr.retained_chars(),
                "capture": {
                    "stdout": counters(&result.stdout),
                    "stderr": counters(&result.stderr),
                    "descendants_killed": result.descendants_killed,
                    "pipes_forced_closed": result.pipes_forced_closed,
                },
            })),
        );
        let mut out = output(lifecycle, Some(payload));
        out.returncode = returncode;
        out.stdout = Some(stdout);
        out.stderr = Some(stderr);
        out.timed_out = Some(timed_out);
        out
    }

    /// The stored snapshot of an existing request of this workspace, to echo on refusals.
    fn stored_shell_payload(&self, request_id: &str) -> Option<ShellPayload> {
        if !crate::tools::plausible_request_id(request_id) {
            return None;
        }
        let record = self.approvals.get_full(request_id).ok().flatten()?;
        if record.operation != Operation::ShellRun {
            return None;
        }
        serde_json::from_value(record.payload).ok()
    }
}
