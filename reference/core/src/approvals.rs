//! The approval store: expiring, single-use, human-approved requests.
//!
//! Where they live: `approvals.sqlite3` in the state root (a SQLite database in write-ahead-log
//! mode, with its `-wal` and `-shm` files while it is in use), one row per request holding the
//! request's JSON record, the same text `approvals.json` held ([`db`] says why SQLite). An
//! `approvals.json` found where no database exists yet (an earlier version's store, or an
//! export being restored) is migrated once, atomically ([`migrate`]). The JSON form of the
//! whole store is what an export writes and what the document's byte ceiling measures
//! ([`json_form`]).
//!
//! Every change is one `BEGIN IMMEDIATE` transaction, so concurrent servers and the admin CLI
//! never lose an update and a request is consumed at most once; its cost does not grow with
//! the number of records (one indexed lookup, one row written, one durable log append).
//! Read-only queries (`status`, `list`, `get_full`, `export`, dry-run `prune`) read one
//! consistent snapshot and never wait for a writer.
//!
//! Expiry is lazy: a PENDING or APPROVED record whose `expires_at` is at or before "now" is
//! *effectively* EXPIRED (with terminal time `expires_at`). Read-only queries compute that
//! without writing; a mutating call (`approve`, `reject`, `consume`) that meets such a record
//! persists EXPIRED as part of its refusal, so a clock stepping backwards can never revive it.
//!
//! A malformed store fails closed with [`StoreError::Malformed`]; it is never reset.
//!
//! The module is split by job: `model` (the public record, status and view types), `stored`
//! (the stored record form), `errors` (refusals and capacity limits), `schema` (the
//! database's tables and the conversions shared below `db` and `migrate`), `db` (the database:
//! opening, transactions, rows), `migrate` (creating it, from `approvals.json` if there is one),
//! `json_form` (the JSON form), `capacity` (creating requests within the ceilings), `queries`
//! (read-only lookups and the export), `transitions` (approve, reject, consume) and `prune`
//! (maintenance).

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rusqlite::Connection;

use crate::clock::{SharedClock, Timestamp};
use crate::fsio::DEFAULT_LOCK_TIMEOUT;
use crate::state::StateRoot;

mod capacity;
mod db;
mod decided;
mod errors;
mod json_form;
mod migrate;
mod model;
mod prune;
mod queries;
mod schema;
mod stored;
mod transitions;

pub use errors::{CapacityLimit, ConsumeError, StoreError};
pub use model::{ApprovalRecord, ApprovalStatus, ApprovalView, Operation};
pub use prune::PruneReport;
pub use queries::{DamagedRecord, StoreStats};

#[cfg(test)]
use serde_json::Value;

/// Most records the store may hold after adding one (exactly this many is allowed).
pub const MAX_RECORDS: usize = 10_000;
/// Most bytes of the final serialized store after adding one (exactly this many is allowed):
/// the size of the store's JSON form, `approvals.json` as an export writes it.
pub const MAX_STORE_BYTES: usize = 16 * 1024 * 1024;
/// The store format version (of the JSON form and of the database's `store_meta.format`).
pub const STORE_VERSION: u32 = 1;

/// The approval store of one bound state root.
#[derive(Clone)]
pub struct ApprovalStore {
    /// `approvals.sqlite3`.
    path: PathBuf,
    /// `approvals.json`, migrated when no database exists yet.
    json_path: PathBuf,
    /// `approvals.lock`, held while the database is created or a migration finished.
    lock_path: PathBuf,
    /// This process's idle connections, opened on demand and shared by clones (one per call
    /// at a time: see `db::with_db`).
    db: Arc<Mutex<Vec<Connection>>>,
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
    /// A store over `state`'s approval database; new requests live for `ttl`. Nothing is
    /// opened until the first call.
    pub fn new(state: &StateRoot, clock: SharedClock, ttl: Duration) -> Self {
        ApprovalStore {
            path: state.approvals_db_path(),
            json_path: state.approvals_path(),
            lock_path: state.approvals_lock_path(),
            db: Arc::new(Mutex::new(Vec::new())),
            workspace_id: state.workspace_id().to_string(),
            clock,
            ttl,
            lock_timeout: DEFAULT_LOCK_TIMEOUT,
        }
    }

    /// Overrides how long mutating calls wait for the store's write lock (default 10 s).
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
