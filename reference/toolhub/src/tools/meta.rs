//! `toolhub.ping`, `toolhub.capabilities`, `toolhub.request_status`, `toolhub.audit_recent`.

use mcp_safety_core::approvals::{self, Operation};
use mcp_safety_core::audit::AuditEvent;
use serde_json::Value;

use crate::contract::{
    ApprovalHandle, ApprovalModel, ApprovalOperation, AuditRecentInput, AuditRecentOutput,
    CONTRACT_VERSION, CapabilitiesOutput, ErrorInfo, Limits, Outcome, PingInput, RequestIdInput,
    RequestStatusOutput, codes, tools,
};
use crate::error::ToolError;
use crate::hub::Hub;
use crate::limits;

/// The package (server) version, independent of the contract version.
pub const PACKAGE_VERSION: &str = env!("CARGO_PKG_VERSION");

/// `toolhub.ping`: liveness; echoes `message` when given.
pub fn ping(input: PingInput) -> String {
    match input.message {
        Some(m) => format!("pong: {m}"),
        None => "pong".to_string(),
    }
}

/// The initial/resume mappings, sorted by initial tool.
pub fn approval_operations() -> Vec<ApprovalOperation> {
    let mut ops: Vec<ApprovalOperation> = Operation::ALL
        .iter()
        .map(|op| ApprovalOperation {
            initial_tool: op.initial_tool().to_string(),
            resume_tool: op.resume_tool().to_string(),
        })
        .collect();
    ops.sort_by(|a, b| a.initial_tool.cmp(&b.initial_tool));
    ops
}

impl Hub {
    /// `toolhub.capabilities`: deterministic discovery; never a path, payload or secret.
    pub fn capabilities(&self) -> CapabilitiesOutput {
        CapabilitiesOutput {
            contract_version: CONTRACT_VERSION.to_string(),
            package_version: PACKAGE_VERSION.to_string(),
            transport: "stdio".to_string(),
            approval_model: ApprovalModel {
                kind: "out_of_band_human".to_string(),
                approver: "mcp-toolhub-admin".to_string(),
                mcp_self_approval: false,
                single_use: true,
                expiring: true,
                status_tool: tools::REQUEST_STATUS.to_string(),
                description: "Approval-gated operations return APPROVAL_REQUIRED with an approval \
                    handle. A human administrator approves or rejects the request out of band \
                    with the trusted local CLI (mcp-toolhub-admin approve|reject REQUEST_ID); no \
                    MCP tool can approve or reject. Poll toolhub.request_status until \
                    APPROVAL_APPROVED, then call approval.resume_tool with only the request_id. \
                    Approvals expire and are consumed atomically, once. Clients must never \
                    automate human approval."
                    .to_string(),
            },
            approval_operations: approval_operations(),
            limits: Limits {
                shell_output_retained_chars: limits::SHELL_OUTPUT_RETAINED_CHARS,
                git_output_retained_chars: limits::GIT_OUTPUT_RETAINED_CHARS,
                max_read_file_bytes: limits::MAX_READ_FILE_BYTES,
                max_write_file_bytes: limits::MAX_WRITE_FILE_BYTES,
                max_patch_bytes: limits::MAX_PATCH_BYTES,
                max_directory_entries: limits::MAX_DIRECTORY_ENTRIES as u64,
                approval_ttl_seconds: self.approval_ttl.as_secs(),
                approval_store_max_records: approvals::MAX_RECORDS as u64,
                approval_store_max_bytes: approvals::MAX_STORE_BYTES as u64,
                audit_recent_max_limit: limits::AUDIT_RECENT_MAX as u64,
            },
        }
    }

    /// `toolhub.request_status`: strictly read-only. Unknown ids and ids of another workspace
    /// get the same REFUSED / REQUEST_NOT_FOUND shape (a fresh trace id, no metadata).
    pub fn request_status(&self, input: RequestIdInput) -> Result<RequestStatusOutput, ToolError> {
        let view = if super::plausible_request_id(&input.request_id) {
            self.approvals
                .status(&input.request_id)
                .map_err(|e| ToolError::internal(format!("approval store: {e}")))?
        } else {
            None
        };
        Ok(match view {
            Some(view) => RequestStatusOutput {
                outcome: Outcome::for_status(view.status.into()),
                trace_id: view.trace_id.clone(),
                request_id: view.request_id.clone(),
                approval: Some(ApprovalHandle::from_view(&view)),
                error: None,
            },
            None => RequestStatusOutput {
                outcome: Outcome::Refused,
                trace_id: self.new_trace_id()?,
                request_id: input.request_id,
                approval: None,
                error: Some(not_found()),
            },
        })
    }

    /// `toolhub.audit_recent`: the newest events, oldest first.
    pub fn audit_recent(&self, input: AuditRecentInput) -> Result<AuditRecentOutput, ToolError> {
        let limit = match input.limit {
            None => limits::AUDIT_RECENT_DEFAULT,
            Some(n) if (1..=limits::AUDIT_RECENT_MAX as u32).contains(&n) => n as usize,
            Some(_) => {
                return Err(ToolError::invalid_params(format!(
                    "limit must be between 1 and {}",
                    limits::AUDIT_RECENT_MAX
                )));
            }
        };
        let events: Vec<serde_json::Map<String, Value>> = self
            .audit_log
            .recent(limit)
            .map_err(|e| ToolError::internal(format!("audit log: {e}")))?
            .into_iter()
            .filter_map(|v| match v {
                Value::Object(m) => Some(m),
                _ => None,
            })
            .collect();
        Ok(AuditRecentOutput {
            count: events.len(),
            events,
        })
    }

    /// Audits a refusal or other non-success result: `event` names the step, `error` (if
    /// any) contributes its code to the details.
    pub(crate) fn audit_outcome(
        &self,
        event: AuditEvent,
        outcome: Outcome,
        error: Option<&ErrorInfo>,
        mut details: Value,
    ) {
        if let (Some(err), Value::Object(m)) = (error, &mut details) {
            m.insert("error_code".into(), Value::String(err.code.clone()));
        }
        self.audit(event.outcome(outcome.as_str()).details(details));
    }
}

/// The one REQUEST_NOT_FOUND error (identical for unknown and foreign ids).
pub fn not_found() -> ErrorInfo {
    ErrorInfo::new(
        codes::REQUEST_NOT_FOUND,
        "no such approval request in this workspace",
        false,
    )
}
