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
}

impl ApprovalStore {
    /// Explicit maintenance. Eligible: records of this workspace that are terminal REJECTED,
    /// EXPIRED or CONSUMED with terminal time at or before `now - older_than`, where a
    /// PENDING/APPROVED record already past `expires_at` counts as EXPIRED at `expires_at`.
    /// Still-valid PENDING/APPROVED records are never eligible. A dry run (`apply == false`)
    /// reads without writing; `apply` re-reads and recomputes under the lock and writes only
    /// if something is removed. Works on an over-limit store.
    pub fn prune(&self, older_than: Duration, apply: bool) -> Result<PruneReport, StoreError> {
        let _lock = if apply { Some(self.lock()?) } else { None };
        let (mut file, _) = self.load()?;
        let now = self.clock.now();
        let cutoff = now.saturating_sub(older_than);
        let total = file.records.len();
        let eligible_request_ids: Vec<String> = file
            .records
            .iter()
            .filter(|r| self.prune_eligible(r, now, cutoff))
            .map(|r| r.request_id.clone())
            .collect();
        let eligible = eligible_request_ids.len();
        let mut removed = 0;
        if apply && eligible > 0 {
            file.retain(|r| !self.prune_eligible(r, now, cutoff));
            removed = total - file.records.len();
            self.save(&file)?;
        }
        Ok(PruneReport {
            cutoff,
            applied: apply,
            total,
            eligible,
            removed,
            kept: total - removed,
            eligible_request_ids,
        })
    }

    fn prune_eligible(&self, r: &StoredRecord, now: Timestamp, cutoff: Timestamp) -> bool {
        r.workspace_id == self.workspace_id
            && r.life()
                .effective_terminal_at(now)
                .is_some_and(|t| t <= cutoff)
    }
}
