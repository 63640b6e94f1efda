//! Lifecycle transitions, each one write transaction: approve, reject and the single-use
//! consume.

use super::{ApprovalRecord, ApprovalStatus, ApprovalStore, ConsumeError, Operation, StoreError};

impl ApprovalStore {
    /// PENDING → APPROVED. Expired → [`StoreError::Expired`] (expiry persisted); any other
    /// status → [`StoreError::InvalidTransition`]. Returns the updated record.
    pub fn approve(&self, request_id: &str) -> Result<ApprovalRecord, StoreError> {
        self.decide(request_id, ApprovalStatus::Approved)
    }

    /// PENDING → REJECTED (terminal). Same refusals as [`Self::approve`].
    pub fn reject(&self, request_id: &str) -> Result<ApprovalRecord, StoreError> {
        self.decide(request_id, ApprovalStatus::Rejected)
    }

    fn decide(&self, request_id: &str, to: ApprovalStatus) -> Result<ApprovalRecord, StoreError> {
        self.with_db(|conn| {
            let tx = self.write(conn)?;
            let now = self.clock.now();
            let mut row = self.find(&tx, request_id)?.ok_or(StoreError::NotFound)?;
            let rec = &mut row.record;
            if rec.life().is_lazily_expired(now) {
                rec.expire();
                self.update(&tx, row.seq, rec)?;
                self.note_decided(rec)?;
                tx.commit().map_err(|e| self.sql(e))?;
                return Err(StoreError::Expired);
            }
            match rec.status {
                ApprovalStatus::Pending => {}
                ApprovalStatus::Expired => return Err(StoreError::Expired),
                from => return Err(StoreError::InvalidTransition { from }),
            }
            rec.status = to;
            rec.decided_at = Some(now);
            if to.is_terminal() {
                rec.terminal_at = Some(now);
            }
            let out = rec.to_public()?;
            self.update(&tx, row.seq, rec)?;
            if to.is_terminal() {
                self.note_decided(rec)?;
            }
            tx.commit().map_err(|e| self.sql(e))?;
            Ok(out)
        })
    }

    /// Writes a record's terminal state to the decided ledger (inside its write transaction,
    /// before the commit), so no import can revive it ([`super::decided`]).
    fn note_decided(&self, record: &super::stored::StoredRecord) -> Result<(), StoreError> {
        super::decided::append(&super::decided::path_beside(&self.path), record)
    }

    /// Atomically consumes an effectively APPROVED request of `operation`, returning it with
    /// its payload. Exactly one caller (in any process) can win; the record stays CONSUMED
    /// whatever the caller does afterwards, so a failed execution needs a new approval.
    pub fn consume(
        &self,
        request_id: &str,
        operation: Operation,
    ) -> Result<ApprovalRecord, ConsumeError> {
        self.with_db(|conn| {
            let tx = self.write(conn)?;
            let now = self.clock.now();
            let mut row = self.find(&tx, request_id)?.ok_or(ConsumeError::NotFound)?;
            let rec = &mut row.record;
            if rec.operation != operation {
                return Err(ConsumeError::OperationMismatch(Box::new(rec.view(now))));
            }
            if rec.life().is_lazily_expired(now) {
                rec.expire();
                let view = Box::new(rec.view(now));
                self.update(&tx, row.seq, rec)?;
                self.note_decided(rec)?;
                tx.commit().map_err(|e| self.sql(e))?;
                return Err(ConsumeError::Expired(view));
            }
            match rec.status {
                ApprovalStatus::Approved => {}
                ApprovalStatus::Pending => {
                    return Err(ConsumeError::NotApproved(Box::new(rec.view(now))));
                }
                ApprovalStatus::Rejected => {
                    return Err(ConsumeError::Rejected(Box::new(rec.view(now))));
                }
                ApprovalStatus::Expired => {
                    return Err(ConsumeError::Expired(Box::new(rec.view(now))));
                }
                ApprovalStatus::Consumed => {
                    return Err(ConsumeError::AlreadyConsumed(Box::new(rec.view(now))));
                }
            }
            rec.status = ApprovalStatus::Consumed;
            rec.consumed_at = Some(now);
            rec.terminal_at = Some(now);
            let out = rec.to_public()?;
            self.update(&tx, row.seq, rec)?;
            self.note_decided(rec)?;
            tx.commit().map_err(|e| self.sql(e))?;
            Ok(out)
        })
    }
}
