//! Explicit maintenance: removing old terminal records of this workspace.

use std::time::Duration;

use serde::Serialize;

use super::stored::StoredRecord;
use super::{ApprovalStore, StoreError};
use crate::clock::Timestamp;

/// What `prune` found (and, with `apply`, did).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PruneReport {
    /// `now - older_than`; terminal at or before this is eligible.
    pub cutoff: Timestamp,
    /// Whether this was `--apply`.
    pub applied: bool,
    /// Records in the store (all workspaces) before pruning.
    pub total: usize,
    /// Records eligible for removal.
    pub eligible: usize,
    /// Records removed (0 on a dry run).
    pub removed: usize,
    /// Records remaining (`total - removed`).
    pub kept: usize,
    /// The eligible ids, in store order.
    pub eligible_request_ids: Vec<String>,
    /// Damaged rows of this workspace: never eligible, removed only by
    /// [`ApprovalStore::remove_damaged`].
    pub damaged: Vec<super::DamagedRecord>,
}

impl ApprovalStore {
    /// Explicit maintenance. Eligible: records of this workspace that are terminal REJECTED,
    /// EXPIRED or CONSUMED with terminal time at or before `now - older_than`, where a
    /// PENDING/APPROVED record already past `expires_at` counts as EXPIRED at `expires_at`.
    /// Still-valid PENDING/APPROVED records are never eligible. A dry run (`apply == false`)
    /// reads without writing; `apply` re-reads and recomputes in one write transaction (under
    /// the store's write lock) and deletes only the eligible rows. Works on an over-limit store.
    pub fn prune(&self, older_than: Duration, apply: bool) -> Result<PruneReport, StoreError> {
        self.with_db(|conn| {
            let tx = if apply {
                self.write(conn)?
            } else {
                self.read(conn)?
            };
            let now = self.clock.now();
            let cutoff = now.saturating_sub(older_than);
            let rows = self.rows(&tx)?;
            let total = rows.len();
            let mut eligible: Vec<(i64, String)> = Vec::new();
            let mut damaged = Vec::new();
            for row in rows {
                let seq = row.seq;
                match row.split() {
                    Ok((r, _)) if self.prune_eligible(&r, now, cutoff) => {
                        eligible.push((seq, r.request_id));
                    }
                    Ok(_) => {}
                    Err(row) if row.workspace_id == self.workspace_id => damaged.push(row),
                    Err(_) => {}
                }
            }
            let mut removed = 0;
            if apply && !eligible.is_empty() {
                {
                    let mut delete = tx
                        .prepare("DELETE FROM approvals WHERE seq = ?1")
                        .map_err(|e| self.sql(e))?;
                    for (seq, _) in &eligible {
                        removed += delete.execute([seq]).map_err(|e| self.sql(e))?;
                    }
                }
                tx.commit().map_err(|e| self.sql(e))?;
            }
            Ok(PruneReport {
                cutoff,
                applied: apply,
                total,
                eligible: eligible.len(),
                removed,
                kept: total - removed,
                eligible_request_ids: eligible.into_iter().map(|(_, id)| id).collect(),
                damaged,
            })
        })
    }

    /// Removes (with `apply`; a dry run only names them) this workspace's damaged rows, the
    /// operator's way out of a damaged record: its request is then unknown, so nothing can
    /// run on it. Returns the rows found.
    pub fn remove_damaged(&self, apply: bool) -> Result<Vec<super::DamagedRecord>, StoreError> {
        self.with_db(|conn| {
            let tx = if apply {
                self.write(conn)?
            } else {
                self.read(conn)?
            };
            let mut found = Vec::new();
            let mut seqs = Vec::new();
            for row in self.rows(&tx)? {
                let seq = row.seq;
                if let Err(row) = row.split()
                    && row.workspace_id == self.workspace_id
                {
                    seqs.push(seq);
                    found.push(row);
                }
            }
            if apply && !seqs.is_empty() {
                {
                    let mut delete = tx
                        .prepare("DELETE FROM approvals WHERE seq = ?1")
                        .map_err(|e| self.sql(e))?;
                    for seq in &seqs {
                        delete.execute([seq]).map_err(|e| self.sql(e))?;
                    }
                }
                tx.commit().map_err(|e| self.sql(e))?;
            }
            Ok(found)
        })
    }

    fn prune_eligible(&self, r: &StoredRecord, now: Timestamp, cutoff: Timestamp) -> bool {
        r.workspace_id == self.workspace_id
            && r.life()
                .effective_terminal_at(now)
                .is_some_and(|t| t <= cutoff)
    }
}
