//! Read-only lookups: they never take the lock and never persist lazy expiry.

use serde::Serialize;

use super::stored::StoredRecord;
use super::{ApprovalRecord, ApprovalStore, ApprovalView, StoreError};

/// Size of the store.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct StoreStats {
    /// Records (all workspaces).
    pub records: usize,
    /// Bytes of the file (0 if absent).
    pub bytes: u64,
}

impl ApprovalStore {
    /// The payload-free view with the effective status, or `None` for an unknown id or one of
    /// another workspace. Strictly read-only (lazy expiry is computed, never persisted).
    pub fn status(&self, request_id: &str) -> Result<Option<ApprovalView>, StoreError> {
        let now = self.clock.now();
        Ok(self.get_full(request_id)?.map(|r| r.view(now)))
    }

    /// The stored record WITH its payload (for the trusted operator display). Read-only; the
    /// stored `status` is returned as is (use [`ApprovalRecord::effective_status`]).
    pub fn get_full(&self, request_id: &str) -> Result<Option<ApprovalRecord>, StoreError> {
        let (file, _) = self.load()?;
        file.records
            .iter()
            .find(|r| r.request_id == request_id && r.workspace_id == self.workspace_id)
            .map(StoredRecord::to_public)
            .transpose()
    }

    /// All requests of this workspace, in creation order, payload-free, effective status.
    pub fn list(&self) -> Result<Vec<ApprovalView>, StoreError> {
        let now = self.clock.now();
        let (file, _) = self.load()?;
        Ok(file
            .records
            .iter()
            .filter(|r| r.workspace_id == self.workspace_id)
            .map(|r| r.view(now))
            .collect())
    }

    /// Record count and file size.
    pub fn stats(&self) -> Result<StoreStats, StoreError> {
        let (file, bytes) = self.load()?;
        Ok(StoreStats {
            records: file.records.len(),
            bytes,
        })
    }
}
