//! The approval store: expiring, single-use, human-approved requests in `approvals.json`.
//!
//! File format: `{"version":1,"records":[ApprovalRecord...]}` (compact JSON plus a newline),
//! replaced atomically ([`crate::fsio::atomic_write`]). Every read-modify-write happens under
//! the store's cross-process [`FileLock`], so concurrent servers and the admin CLI never lose
//! an update and a request is consumed at most once. Read-only queries (`status`, `list`,
//! `get_full`, dry-run `prune`) read the file without the lock: atomic replacement means they
//! always see a complete version.
//!
//! Expiry is lazy: a PENDING or APPROVED record whose `expires_at` is at or before "now" is
//! *effectively* EXPIRED (with terminal time `expires_at`). Read-only queries compute that
//! without writing; a mutating call (`approve`, `reject`, `consume`) that meets such a record
//! persists EXPIRED as part of its refusal, so a clock stepping backwards can never revive it.
//!
//! A malformed store fails closed with [`StoreError::Malformed`]; it is never reset.

//! The module is split by job: `model` (the public record, status and view types), `stored`
//! (the on-disk record form), `errors` (refusals and capacity limits), `io` (loading, locking
//! and saving the file), `capacity` (creating requests within the ceilings), `queries`
//! (read-only lookups), `transitions` (approve, reject, consume) and `prune` (maintenance).

use std::path::PathBuf;
use std::time::Duration;

use crate::clock::{SharedClock, Timestamp};
use crate::fsio::DEFAULT_LOCK_TIMEOUT;
use crate::state::StateRoot;

mod capacity;
mod errors;
mod io;
mod model;
mod prune;
mod queries;
mod stored;
mod transitions;

pub use errors::{CapacityLimit, ConsumeError, StoreError};
pub use model::{ApprovalRecord, ApprovalStatus, ApprovalView, Operation};
pub use prune::PruneReport;
pub use queries::StoreStats;

#[cfg(test)]
use crate::fsio::{FileLock, atomic_write};
#[cfg(test)]
use io::{StoreFile, serialize};
#[cfg(test)]
use serde_json::Value;
#[cfg(test)]
use stored::StoredRecord;

/// Most records the store may hold after adding one (exactly this many is allowed).
pub const MAX_RECORDS: usize = 10_000;
/// Most bytes of the final serialized store after adding one (exactly this many is allowed).
pub const MAX_STORE_BYTES: usize = 16 * 1024 * 1024;
/// The store format version.
pub const STORE_VERSION: u32 = 1;

/// The approval store of one bound state root.
#[derive(Clone)]
pub struct ApprovalStore {
    path: PathBuf,
    lock_path: PathBuf,
    workspace_id: String,
    clock: SharedClock,
    ttl: Duration,
    lock_timeout: Duration,
}

impl std::fmt::Debug for ApprovalStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ApprovalStore")
            .field("path", &self.path)
            .field("workspace_id", &self.workspace_id)
            .field("ttl", &self.ttl)
            .finish_non_exhaustive()
    }
}

impl ApprovalStore {
    /// A store over `state`'s `approvals.json`; new requests live for `ttl`.
    pub fn new(state: &StateRoot, clock: SharedClock, ttl: Duration) -> Self {
        ApprovalStore {
            path: state.approvals_path(),
            lock_path: state.approvals_lock_path(),
            workspace_id: state.workspace_id().to_string(),
            clock,
            ttl,
            lock_timeout: DEFAULT_LOCK_TIMEOUT,
        }
    }

    /// Overrides how long mutating calls wait for the lock (default 10 s).
    pub fn with_lock_timeout(mut self, timeout: Duration) -> Self {
        self.lock_timeout = timeout;
        self
    }

    /// The current time on the store's clock.
    pub fn now(&self) -> Timestamp {
        self.clock.now()
    }
}

#[cfg(test)]
mod tests;
