//! The stored form of a record, whose payload stays raw JSON text until asked for.

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use super::StoreError;
use super::model::{ApprovalRecord, ApprovalStatus, ApprovalView, Life, Operation, make_view};
use crate::clock::Timestamp;

/// The stored form: identical fields, but the payload is kept as raw JSON text so that
/// loading and saving a large store never builds (or re-serializes) payload trees. The payload
/// is only parsed for the one record a caller asks for.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(super) struct StoredRecord {
    pub(super) request_id: String,
    pub(super) trace_id: String,
    pub(super) operation: Operation,
    pub(super) workspace_id: String,
    pub(super) status: ApprovalStatus,
    pub(super) payload: Box<RawValue>,
    pub(super) created_at: Timestamp,
    pub(super) expires_at: Timestamp,
    #[serde(default)]
    pub(super) decided_at: Option<Timestamp>,
    #[serde(default)]
    pub(super) consumed_at: Option<Timestamp>,
    #[serde(default)]
    pub(super) terminal_at: Option<Timestamp>,
}

impl StoredRecord {
    pub(super) fn life(&self) -> Life {
        Life {
            status: self.status,
            expires_at: self.expires_at,
            decided_at: self.decided_at,
            consumed_at: self.consumed_at,
            terminal_at: self.terminal_at,
        }
    }

    pub(super) fn view(&self, now: Timestamp) -> ApprovalView {
        make_view(
            &self.request_id,
            &self.trace_id,
            self.operation,
            self.created_at,
            self.life(),
            now,
        )
    }

    pub(super) fn expire(&mut self) {
        self.status = ApprovalStatus::Expired;
        self.terminal_at = Some(self.expires_at);
    }

    pub(super) fn to_public(&self) -> Result<ApprovalRecord, StoreError> {
        Ok(ApprovalRecord {
            request_id: self.request_id.clone(),
            trace_id: self.trace_id.clone(),
            operation: self.operation,
            workspace_id: self.workspace_id.clone(),
            status: self.status,
            payload: serde_json::from_str(self.payload.get())
                .map_err(|e| StoreError::Malformed(format!("payload: {e}")))?,
            created_at: self.created_at,
            expires_at: self.expires_at,
            decided_at: self.decided_at,
            consumed_at: self.consumed_at,
            terminal_at: self.terminal_at,
        })
    }

    pub(super) fn from_public(r: &ApprovalRecord) -> Result<StoredRecord, StoreError> {
        Ok(StoredRecord {
            request_id: r.request_id.clone(),
            trace_id: r.trace_id.clone(),
            operation: r.operation,
            workspace_id: r.workspace_id.clone(),
            status: r.status,
            payload: serde_json::value::to_raw_value(&r.payload)
                .map_err(|e| StoreError::Io(e.to_string()))?,
            created_at: r.created_at,
            expires_at: r.expires_at,
            decided_at: r.decided_at,
            consumed_at: r.consumed_at,
            terminal_at: r.terminal_at,
        })
    }
}
