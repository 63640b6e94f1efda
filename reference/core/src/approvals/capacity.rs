//! Creating requests: both capacity ceilings are checked under the write lock against the
//! size the serialized store would have, computed from the counts the store keeps (no record
//! is read).

use serde_json::Value;

use super::json_form::serialized_size;
use super::schema::record_text;
use super::stored::StoredRecord;
use super::{
    ApprovalRecord, ApprovalStatus, ApprovalStore, CapacityLimit, MAX_RECORDS, MAX_STORE_BYTES,
    Operation, StoreError,
};

impl ApprovalStore {
    /// Creates a PENDING request. Both ceilings are checked under the lock against the final
    /// serialized store; exactly at a ceiling is allowed, over it is [`StoreError::Full`] and
    /// the store is left unchanged.
    pub fn create(
        &self,
        operation: Operation,
        payload: Value,
        trace_id: &str,
    ) -> Result<ApprovalRecord, StoreError> {
        let request_id = crate::ids::new_request_id()?;
        self.with_db(|conn| {
            let tx = self.write(conn)?;
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
            let text = record_text(&StoredRecord::from_public(&record)?)?;
            let counts = self.counts(&tx)?;
            let records = counts.records + 1;
            if records > MAX_RECORDS as u64 {
                return Err(StoreError::Full {
                    limit: CapacityLimit::Records,
                    max: MAX_RECORDS as u64,
                    would_be: records,
                });
            }
            let bytes = serialized_size(records, counts.record_bytes + text.len() as u64);
            if bytes > MAX_STORE_BYTES as u64 {
                return Err(StoreError::Full {
                    limit: CapacityLimit::Bytes,
                    max: MAX_STORE_BYTES as u64,
                    would_be: bytes,
                });
            }
            tx.execute(
                "INSERT INTO approvals (workspace_id, request_id, record) VALUES (?1, ?2, ?3)",
                (&record.workspace_id, &record.request_id, &text),
            )
            .map_err(|e| self.sql(e))?;
            tx.commit().map_err(|e| self.sql(e))?;
            Ok(record)
        })
    }
}
