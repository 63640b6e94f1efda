//! Creating requests: both capacity ceilings are checked against the final serialized store.

use serde_json::Value;

use super::io::serialize;
use super::stored::StoredRecord;
use super::{
    ApprovalRecord, ApprovalStatus, ApprovalStore, CapacityLimit, MAX_RECORDS, MAX_STORE_BYTES,
    Operation, StoreError,
};
use crate::fsio::atomic_write;

impl ApprovalStore {
    /// Creates a PENDING request. Both ceilings are checked under the lock against the final
    /// serialized store; exactly at a ceiling is allowed, over it is [`StoreError::Full`] and
    /// the file is left byte-identical.
    pub fn create(
        &self,
        operation: Operation,
        payload: Value,
        trace_id: &str,
    ) -> Result<ApprovalRecord, StoreError> {
        let request_id = crate::ids::new_request_id()?;
        let _lock = self.lock()?;
        let (mut file, _) = self.load()?;
        let now = self.clock.now();
        let record = ApprovalRecord {
            request_id,
            trace_id: trace_id.to_string(),
            operation,
            workspace_id: self.workspace_id.clone(),
            status: ApprovalStatus::Pending,
            payload,
            created_at: now,
            expires_at: now.saturating_add(self.ttl),
            decided_at: None,
            consumed_at: None,
            terminal_at: None,
        };
        let count = file.records.len() + 1;
        if count > MAX_RECORDS {
            return Err(StoreError::Full {
                limit: CapacityLimit::Records,
                max: MAX_RECORDS as u64,
                would_be: count as u64,
            });
        }
        file.push(StoredRecord::from_public(&record)?);
        let bytes = serialize(&file)?;
        if bytes.len() > MAX_STORE_BYTES {
            return Err(StoreError::Full {
                limit: CapacityLimit::Bytes,
                max: MAX_STORE_BYTES as u64,
                would_be: bytes.len() as u64,
            });
        }
        atomic_write(&self.path, &bytes)?;
        Ok(record)
    }
}
