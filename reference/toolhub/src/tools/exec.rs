//! `shell.run`, `shell.run_approved`, `git.status`, `git.diff`.
//!
//! Listed with their full Contract V1 schemas, but this build executes nothing: the next issue
//! brings structured execution (risk policy, containment, bounded capture). Until then every
//! call is refused with the stable code `NOT_IMPLEMENTED`, creates no approval, consumes none
//! and starts no process. Shell refusals are structured (`outcome: REFUSED`); the git tools,
//! whose outputs have no `outcome`, refuse with a tool error result (see [`crate::error`]).

use mcp_safety_core::audit::AuditEvent;
use serde_json::json;

use crate::contract::{
    ErrorInfo, GitDiffInput, GitDiffOutput, GitStatusOutput, Lifecycle, Outcome, RequestIdInput,
    Risk, ShellRunInput, ShellRunOutput, codes, tools,
};
use crate::error::ToolError;
use crate::hub::Hub;

const SHELL_NOT_IMPLEMENTED: &str =
    "shell execution is not implemented in this build; nothing was executed";
const GIT_NOT_IMPLEMENTED: &str =
    "git tools are not implemented in this build; nothing was executed";

impl Hub {
    /// `shell.run`: REFUSED / NOT_IMPLEMENTED (deny by default; no approval is created).
    pub fn shell_run(&self, input: ShellRunInput) -> Result<ShellRunOutput, ToolError> {
        let trace_id = self.new_trace_id()?;
        let error = ErrorInfo::new(codes::NOT_IMPLEMENTED, SHELL_NOT_IMPLEMENTED, false);
        // Arguments may carry secrets: the audit records only their count.
        let args = input.args.unwrap_or_default();
        self.audit(
            AuditEvent::new("operation.refused", tools::SHELL_RUN, &trace_id)
                .outcome(Outcome::Refused.as_str())
                .details(json!({"error_code": codes::NOT_IMPLEMENTED, "arg_count": args.len()})),
        );
        Ok(ShellRunOutput {
            lifecycle: Lifecycle::failed(Outcome::Refused, &trace_id, error),
            program: input.program,
            args,
            cwd: input.cwd.unwrap_or_else(|| ".".to_string()),
            risk: Risk::High,
            risk_reason:
                "not classified: execution is not available in this build (deny by default)"
                    .to_string(),
            returncode: None,
            stdout: None,
            stderr: None,
            timed_out: None,
        })
    }

    /// `shell.run_approved`: REFUSED / NOT_IMPLEMENTED; consumes nothing.
    pub fn shell_run_approved(&self, input: RequestIdInput) -> Result<ShellRunOutput, ToolError> {
        let trace_id = self.new_trace_id()?;
        let error = ErrorInfo::new(codes::NOT_IMPLEMENTED, SHELL_NOT_IMPLEMENTED, false);
        self.audit(
            AuditEvent::new("resume.refused", tools::SHELL_RUN_APPROVED, &trace_id)
                .outcome(Outcome::Refused.as_str())
                .details(json!({"error_code": codes::NOT_IMPLEMENTED})),
        );
        let mut lifecycle = Lifecycle::failed(Outcome::Refused, &trace_id, error);
        lifecycle.request_id = Some(input.request_id);
        Ok(ShellRunOutput {
            lifecycle,
            program: String::new(),
            args: Vec::new(),
            cwd: String::new(),
            risk: Risk::High,
            risk_reason:
                "not classified: execution is not available in this build (deny by default)"
                    .to_string(),
            returncode: None,
            stdout: None,
            stderr: None,
            timed_out: None,
        })
    }

    /// `git.status`: refused (tool error result, code NOT_IMPLEMENTED).
    pub fn git_status(&self) -> Result<GitStatusOutput, ToolError> {
        Err(ToolError::refused(
            codes::NOT_IMPLEMENTED,
            GIT_NOT_IMPLEMENTED,
        ))
    }

    /// `git.diff`: refused (tool error result, code NOT_IMPLEMENTED).
    pub fn git_diff(&self, _input: GitDiffInput) -> Result<GitDiffOutput, ToolError> {
        Err(ToolError::refused(
            codes::NOT_IMPLEMENTED,
            GIT_NOT_IMPLEMENTED,
        ))
    }
}
