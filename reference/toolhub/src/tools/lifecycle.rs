//! The lifecycle steps shared by the approval-gated tools: submitting a request, consuming it
//! before anything else on resume, and auditing a stop.

use mcp_safety_core::approvals::{ApprovalRecord, ConsumeError, Operation};
use mcp_safety_core::audit::AuditEvent;
use serde::Serialize;
use serde_json::{Value, json};

use crate::contract::{ApprovalHandle, ErrorInfo, Lifecycle, Outcome, codes};
use crate::error::ToolError;
use crate::hub::Hub;
use crate::tools::meta::not_found;
use crate::tools::plausible_request_id;
use crate::tools::refusal::{Stop, fail};

impl Hub {
    /// Creates the approval request for `payload` and audits `approval.requested` with
    /// `details` (what the operator will be shown, never secrets). A full store is a
    /// structured REFUSED (nothing changed).
    pub(crate) fn submit(
        &self,
        tool: &str,
        operation: Operation,
        payload: &impl Serialize,
        trace_id: &str,
        details: Value,
    ) -> Result<Lifecycle, ToolError> {
        let payload = serde_json::to_value(payload)
            .map_err(|e| ToolError::internal(format!("payload: {e}")))?;
        match self.approvals.create(operation, payload, trace_id) {
            Ok(record) => {
                let view = record.view(self.approvals.now());
                let mut lifecycle = Lifecycle::new(Outcome::ApprovalRequired, trace_id)
                    .with_approval(ApprovalHandle::from_view(&view));
                lifecycle.message = Some(format!(
                    "Approval required: a human administrator must run `mcp-toolhub-admin approve {}`; \
                     poll toolhub.request_status, then call {} with only the request_id.",
                    record.request_id,
                    operation.resume_tool()
                ));
                self.audit(
                    AuditEvent::new("approval.requested", tool, trace_id)
                        .request_id(&record.request_id)
                        .outcome(Outcome::ApprovalRequired.as_str())
                        .details(details),
                );
                Ok(lifecycle)
            }
            Err(e @ mcp_safety_core::approvals::StoreError::Full { .. }) => {
                let stop = Stop::new(Outcome::Refused, e.code(), e.to_string());
                self.audit_stop(tool, trace_id, None, &stop, json!({}));
                Ok(Lifecycle::failed(stop.outcome, trace_id, stop.error))
            }
            Err(e) => Err(ToolError::internal(format!("approval store: {e}"))),
        }
    }

    /// Consumes `request_id` for `operation`, atomically and before any validation. A request
    /// that is not consumable gives its structured outcome (`Err(lifecycle)`).
    pub(crate) fn consume(
        &self,
        tool: &str,
        request_id: &str,
        operation: Operation,
    ) -> Result<Result<ApprovalRecord, Box<Lifecycle>>, ToolError> {
        if !plausible_request_id(request_id) {
            return Ok(Err(Box::new(self.not_found_lifecycle(tool, request_id)?)));
        }
        match self.approvals.consume(request_id, operation) {
            Ok(record) => {
                self.audit(
                    AuditEvent::new("approval.consumed", tool, &record.trace_id)
                        .request_id(&record.request_id)
                        .outcome("CONSUMED"),
                );
                Ok(Ok(record))
            }
            Err(ConsumeError::NotFound) => {
                Ok(Err(Box::new(self.not_found_lifecycle(tool, request_id)?)))
            }
            Err(ConsumeError::Store(e)) => Err(ToolError::internal(format!("approval store: {e}"))),
            Err(e) => {
                let Some(view) = e.view() else {
                    return Err(ToolError::internal(format!("approval store: {e}")));
                };
                let handle = ApprovalHandle::from_view(view);
                let (outcome, error) = match &e {
                    ConsumeError::OperationMismatch(_) => (
                        Outcome::Refused,
                        Some(ErrorInfo::new(
                            codes::OPERATION_MISMATCH,
                            format!("this request is resumed with {}", view.resume_tool),
                            false,
                        )),
                    ),
                    _ => (Outcome::for_status(view.status.into()), None),
                };
                let mut lifecycle = Lifecycle::new(outcome, &view.trace_id).with_approval(handle);
                lifecycle.message = Some(e.to_string());
                lifecycle.error = error;
                self.audit_outcome(
                    AuditEvent::new("resume.refused", tool, &view.trace_id)
                        .request_id(&view.request_id),
                    outcome,
                    lifecycle.error.as_ref(),
                    json!({}),
                );
                Ok(Err(Box::new(lifecycle)))
            }
        }
    }

    /// The REFUSED lifecycle (with a fresh trace id) for an unknown request id, audited.
    fn not_found_lifecycle(&self, tool: &str, request_id: &str) -> Result<Lifecycle, ToolError> {
        let trace_id = self.new_trace_id()?;
        let mut lifecycle = Lifecycle::failed(Outcome::Refused, &trace_id, not_found());
        lifecycle.request_id = Some(request_id.to_string());
        self.audit_outcome(
            AuditEvent::new("resume.refused", tool, &trace_id),
            Outcome::Refused,
            lifecycle.error.as_ref(),
            json!({}),
        );
        Ok(lifecycle)
    }

    /// The path of an existing request of this workspace ("" when unknown).
    pub(crate) fn payload_path(&self, request_id: &str) -> String {
        if !plausible_request_id(request_id) {
            return String::new();
        }
        self.approvals
            .get_full(request_id)
            .ok()
            .flatten()
            .and_then(|r| {
                r.payload
                    .get("path")
                    .and_then(Value::as_str)
                    .map(String::from)
            })
            .unwrap_or_default()
    }

    /// Audits a stop as `operation.conflict`, `operation.refused` or `operation.failed`.
    pub(crate) fn audit_stop(
        &self,
        tool: &str,
        trace_id: &str,
        request_id: Option<&str>,
        stop: &Stop,
        details: Value,
    ) {
        let event = match stop.outcome {
            Outcome::Conflict => "operation.conflict",
            Outcome::Refused => "operation.refused",
            _ => "operation.failed",
        };
        let mut ev = AuditEvent::new(event, tool, trace_id);
        if let Some(r) = request_id {
            ev = ev.request_id(r);
        }
        self.audit_outcome(ev, stop.outcome, Some(&stop.error), details);
    }
}

/// A consumed request, ready to execute: its decoded payload and the lifecycle so far.
pub(crate) struct Resumed<P> {
    pub(crate) trace_id: String,
    pub(crate) request_id: String,
    /// CONSUMED, not yet executed; the caller turns it into SUCCEEDED or a stop.
    pub(crate) consumed: Lifecycle,
    pub(crate) payload: P,
}

impl<P> Resumed<P> {
    /// Audits `stop` for this consumed request and gives its lifecycle: consumed, not
    /// executed, with the stop's outcome and error.
    pub(crate) fn stop(&self, hub: &Hub, tool: &str, stop: Stop, details: Value) -> Lifecycle {
        hub.audit_stop(tool, &self.trace_id, Some(&self.request_id), &stop, details);
        fail(self.consumed.clone(), stop)
    }
}

impl Hub {
    /// The start every resume tool shares: consume the approval first (atomically, before
    /// any validation), then decode its protected payload. `Err((lifecycle, path))` is the
    /// answer to give at once: not consumable, or a malformed stored payload (then FAILED,
    /// and the approval stays consumed).
    pub(crate) fn resume<P: serde::de::DeserializeOwned>(
        &self,
        tool: &str,
        request_id: &str,
        operation: Operation,
    ) -> Result<Result<Resumed<P>, (Lifecycle, String)>, ToolError> {
        let record = match self.consume(tool, request_id, operation)? {
            Ok(record) => record,
            Err(lifecycle) => return Ok(Err((*lifecycle, self.payload_path(request_id)))),
        };
        let consumed = consumed_lifecycle(&record);
        match serde_json::from_value(record.payload) {
            Ok(payload) => Ok(Ok(Resumed {
                trace_id: record.trace_id,
                request_id: record.request_id,
                consumed,
                payload,
            })),
            Err(_) => {
                let stop = Stop::new(
                    Outcome::Failed,
                    codes::PAYLOAD_INVALID,
                    "stored request is malformed",
                );
                self.audit_stop(
                    tool,
                    &record.trace_id,
                    Some(&record.request_id),
                    &stop,
                    json!({}),
                );
                Ok(Err((
                    crate::tools::refusal::fail(consumed, stop),
                    String::new(),
                )))
            }
        }
    }
}

/// The lifecycle after a successful consume (status CONSUMED, original trace id).
fn consumed_lifecycle(record: &ApprovalRecord) -> Lifecycle {
    let view = record.view(record.consumed_at.unwrap_or(record.created_at));
    Lifecycle::new(Outcome::Failed, &record.trace_id)
        .with_approval(ApprovalHandle::from_view(&view))
}
