//! `shell.run`: the LOW intrinsic answered in-process, or validation, resolution and snapshot
//! followed by APPROVAL_REQUIRED. Nothing external runs here.

use mcp_safety_core::approvals::Operation;
use mcp_safety_core::audit::AuditEvent;
use mcp_safety_core::exec::SanitizedEnv;
use mcp_safety_core::redact::redact_value;
use serde_json::json;

use super::DEFAULT_TIMEOUT_SECONDS;
use super::payload::ShellPayload;
use super::program::{check_args_and_timeout, check_cwd, resolve};
use super::risk::{classify, intrinsic_stdout, is_intrinsic};
use crate::contract::{Lifecycle, Outcome, Risk, ShellRunInput, ShellRunOutput, tools};
use crate::error::ToolError;
use crate::hub::Hub;
use crate::tools::refusal::Stop;

/// The reason shown while a request could not be classified (it was refused first).
const UNCLASSIFIED: &str = "not classified: the request was refused before classification";

impl Hub {
    /// `shell.run`
    pub fn shell_run(&self, input: ShellRunInput) -> Result<ShellRunOutput, ToolError> {
        let tool = tools::SHELL_RUN;
        let trace_id = self.new_trace_id()?;
        let args = input.args.unwrap_or_default();
        let raw_cwd = input.cwd.unwrap_or_else(|| ".".to_string());
        let timeout = input.timeout_seconds.unwrap_or(DEFAULT_TIMEOUT_SECONDS);
        let mut out = ShellRunOutput {
            lifecycle: Lifecycle::new(Outcome::Refused, &trace_id),
            program: input.program,
            args,
            cwd: raw_cwd.clone(),
            risk: Risk::High,
            risk_reason: UNCLASSIFIED.to_string(),
            returncode: None,
            stdout: None,
            stderr: None,
            timed_out: None,
        };
        let refuse = |out: ShellRunOutput, stop: Stop| {
            self.audit_stop(
                tool,
                &trace_id,
                None,
                &stop,
                json!({"program": redact_value(&json!(out.program)), "arg_count": out.args.len()}),
            );
            ShellRunOutput {
                lifecycle: Lifecycle::failed(stop.outcome, &trace_id, stop.error),
                ..out
            }
        };
        if let Err(stop) = check_args_and_timeout(&out.args, timeout) {
            return Ok(refuse(out, stop));
        }
        let cwd = match check_cwd(&self.workspace, &raw_cwd) {
            Ok(cwd) => cwd,
            Err(stop) => return Ok(refuse(out, stop)),
        };
        out.cwd = cwd.shown();
        if is_intrinsic(&out.program, &out.args) {
            return Ok(self.intrinsic(out, &trace_id));
        }
        let identity = match resolve(&out.program, &cwd) {
            Ok(identity) => identity,
            Err(stop) => return Ok(refuse(out, stop)),
        };
        let inside = self.workspace.contains_canonical(&identity.canonical_path);
        let (risk, risk_reason) = classify(&out.program, &identity.canonical_path, inside);
        out.risk = risk;
        out.risk_reason = risk_reason.clone();
        let env = SanitizedEnv::posix_baseline();
        let payload = ShellPayload {
            program: out.program.clone(),
            args: out.args.clone(),
            cwd: out.cwd.clone(),
            timeout_seconds: timeout,
            workspace_id: self.workspace.id().to_string(),
            env_digest: env.digest(),
            env,
            executable: identity.clone(),
            risk,
            risk_reason,
        };
        let details = json!({
            "executable": {
                "basename": identity.basename(),
                "sha256": identity.sha256,
                "size": identity.size,
            },
            "args": redact_value(&json!(out.args)),
            "arg_count": out.args.len(),
            "cwd": out.cwd,
            "timeout_seconds": timeout,
            "risk": risk,
        });
        out.lifecycle = self.submit(tool, Operation::ShellRun, &payload, &trace_id, details)?;
        Ok(out)
    }

    /// The LOW intrinsic: answered here, no PATH search, no subprocess, no approval.
    fn intrinsic(&self, mut out: ShellRunOutput, trace_id: &str) -> ShellRunOutput {
        out.lifecycle = Lifecycle::new(Outcome::Succeeded, trace_id);
        out.lifecycle.message =
            Some("answered by ToolHub itself; no external process was created".to_string());
        out.risk = Risk::Low;
        out.risk_reason =
            "ToolHub intrinsic (its own version), answered in-process without a subprocess"
                .to_string();
        out.returncode = Some(0);
        out.stdout = Some(intrinsic_stdout());
        out.stderr = Some(String::new());
        out.timed_out = Some(false);
        self.audit(
            AuditEvent::new("shell.intrinsic", tools::SHELL_RUN, trace_id)
                .outcome(Outcome::Succeeded.as_str())
                .details(json!({"program": out.program, "args": out.args, "risk": Risk::Low})),
        );
        out
    }
}
