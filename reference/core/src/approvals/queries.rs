//! Read-only lookups and the export: one consistent snapshot each; they never take the write
//! lock and never persist lazy expiry.

use serde::Serialize;

use super::json_form::{serialize, serialized_size};
use super::{ApprovalRecord, ApprovalStore, ApprovalView, StoreError};

/// Size of the store.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct StoreStats {
    /// Records (all workspaces).
    pub records: usize,
    /// Bytes of the store's serialized JSON form (what an export writes and the byte ceiling
    /// measures).
    pub bytes: u64,
}

/// A row whose record cannot be read (not text, not a request, another request's): what the
/// operator's tools name instead of failing on the whole store. The server's own calls still
/// fail closed on it ([`StoreError::Malformed`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DamagedRecord {
    /// The row's request id (as the row's key column holds it).
    pub request_id: String,
    /// The row's workspace id.
    pub workspace_id: String,
    /// What is wrong with it.
    pub reason: String,
}

impl ApprovalStore {
    /// Like [`Self::list`], but a damaged record does not fail the listing: the readable
    /// requests of this workspace, and the damaged rows of this workspace.
    pub fn list_readable(&self) -> Result<(Vec<ApprovalView>, Vec<DamagedRecord>), StoreError> {
        self.with_db(|conn| {
            let tx = self.read(conn)?;
            let now = self.clock.now();
            let mut views = Vec::new();
            let mut damaged = Vec::new();
            for row in self.rows(&tx)? {
                if row.workspace_id != self.workspace_id {
                    continue;
                }
                match row.split() {
                    Ok((record, _)) => views.push(record.view(now)),
                    Err(row) => damaged.push(row),
                }
            }
            Ok((views, damaged))
        })
    }

    /// Like [`Self::export`], but the damaged rows (of every workspace) are left out and
    /// named: the rest of the store, for an operator dealing with damage.
    pub fn export_readable(&self) -> Result<(Vec<u8>, Vec<DamagedRecord>), StoreError> {
        self.with_db(|conn| {
            let tx = self.read(conn)?;
            let mut texts = Vec::new();
            let mut damaged = Vec::new();
            for row in self.rows(&tx)? {
                match row.split() {
                    Ok((_, text)) => texts.push(text),
                    Err(row) => damaged.push(row),
                }
            }
            Ok((serialize(texts.iter().map(String::as_str)), damaged))
        })
    }

    /// The payload-free view with the effective status, or `None` for an unknown id or one of
    /// another workspace. Strictly read-only (lazy expiry is computed, never persisted).
    pub fn status(&self, request_id: &str) -> Result<Option<ApprovalView>, StoreError> {
        let now = self.clock.now();
        Ok(self.get_full(request_id)?.map(|r| r.view(now)))
    }

    /// The stored record WITH its payload (for the trusted operator display). Read-only; the
    /// stored `status` is returned as is (use [`ApprovalRecord::effective_status`]).
    pub fn get_full(&self, request_id: &str) -> Result<Option<ApprovalRecord>, StoreError> {
        self.with_db(|conn| {
            let tx = self.read(conn)?;
            self.find(&tx, request_id)?
                .map(|row| row.record.to_public())
                .transpose()
        })
    }

    /// All requests of this workspace, in creation order, payload-free, effective status.
    pub fn list(&self) -> Result<Vec<ApprovalView>, StoreError> {
        self.with_db(|conn| {
            let tx = self.read(conn)?;
            let now = self.clock.now();
            Ok(self
                .all(&tx)?
                .into_iter()
                .filter(|(_, r, _)| r.workspace_id == self.workspace_id)
                .map(|(_, r, _)| r.view(now))
                .collect())
        })
    }

    /// Record count and the size of the serialized store, from the counts the store keeps.
    pub fn stats(&self) -> Result<StoreStats, StoreError> {
        self.with_db(|conn| {
            let tx = self.read(conn)?;
            let counts = self.counts(&tx)?;
            Ok(StoreStats {
                records: usize::try_from(counts.records).unwrap_or(usize::MAX),
                bytes: serialized_size(counts.records, counts.record_bytes),
            })
        })
    }

    /// The whole store (all workspaces) in its JSON form, `approvals.json` as the document
    /// names it: `{"version":1,"records":[...]}` plus a newline, records in creation order,
    /// from one consistent snapshot. An operator's backup; placed as `approvals.json` in a
    /// state root without a database, it is migrated back at the next start.
    pub fn export(&self) -> Result<Vec<u8>, StoreError> {
        self.with_db(|conn| {
            let tx = self.read(conn)?;
            let rows = self.all(&tx)?;
            Ok(serialize(rows.iter().map(|(_, _, text)| text.as_str())))
        })
    }
}
