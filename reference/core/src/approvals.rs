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

use std::path::PathBuf;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use serde_json::value::RawValue;

use crate::clock::{SharedClock, Timestamp};
use crate::config::io_reason;
use crate::fsio::{DEFAULT_LOCK_TIMEOUT, FileLock, LockError, atomic_write};
use crate::state::StateRoot;

/// Most records the store may hold after adding one (exactly this many is allowed).
pub const MAX_RECORDS: usize = 10_000;
/// Most bytes of the final serialized store after adding one (exactly this many is allowed).
pub const MAX_STORE_BYTES: usize = 16 * 1024 * 1024;
/// The store format version.
pub const STORE_VERSION: u32 = 1;
/// A reasonable default time-to-live for new requests.
pub const DEFAULT_TTL: Duration = Duration::from_secs(15 * 60);

/// What an approval authorizes. The server derives the resume tool from it; the agent never
/// chooses it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Operation {
    /// `filesystem.write_file`.
    WriteFile,
    /// `filesystem.apply_patch`.
    ApplyPatch,
    /// `shell.run`.
    ShellRun,
}

impl Operation {
    /// All operations.
    pub const ALL: [Operation; 3] = [
        Operation::WriteFile,
        Operation::ApplyPatch,
        Operation::ShellRun,
    ];

    /// `write_file`, `apply_patch`, `shell_run` (the stored form).
    pub fn as_str(self) -> &'static str {
        match self {
            Operation::WriteFile => "write_file",
            Operation::ApplyPatch => "apply_patch",
            Operation::ShellRun => "shell_run",
        }
    }

    /// The tool that creates such a request.
    pub fn initial_tool(self) -> &'static str {
        match self {
            Operation::WriteFile => "filesystem.write_file",
            Operation::ApplyPatch => "filesystem.apply_patch",
            Operation::ShellRun => "shell.run",
        }
    }

    /// The tool that resumes (consumes) an approved request.
    pub fn resume_tool(self) -> &'static str {
        match self {
            Operation::WriteFile => "filesystem.write_file_approved",
            Operation::ApplyPatch => "filesystem.apply_patch_approved",
            Operation::ShellRun => "shell.run_approved",
        }
    }
}

/// Lifecycle state. PENDING → APPROVED | REJECTED | EXPIRED; APPROVED → CONSUMED | EXPIRED.
/// REJECTED, EXPIRED and CONSUMED are terminal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ApprovalStatus {
    /// Awaiting a human decision.
    Pending,
    /// Approved; may be consumed once before it expires.
    Approved,
    /// Rejected by a human.
    Rejected,
    /// Expired before being decided or consumed.
    Expired,
    /// Consumed by the resume tool; never usable again.
    Consumed,
}

impl ApprovalStatus {
    /// `PENDING`, `APPROVED`, ...
    pub fn as_str(self) -> &'static str {
        match self {
            ApprovalStatus::Pending => "PENDING",
            ApprovalStatus::Approved => "APPROVED",
            ApprovalStatus::Rejected => "REJECTED",
            ApprovalStatus::Expired => "EXPIRED",
            ApprovalStatus::Consumed => "CONSUMED",
        }
    }

    /// True for REJECTED, EXPIRED, CONSUMED.
    pub fn is_terminal(self) -> bool {
        matches!(
            self,
            ApprovalStatus::Rejected | ApprovalStatus::Expired | ApprovalStatus::Consumed
        )
    }
}

/// One stored request, including its protected payload.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ApprovalRecord {
    /// Unguessable id (`req_` + 128 random bits hex).
    pub request_id: String,
    /// The lifecycle correlation id given at creation.
    pub trace_id: String,
    /// What it authorizes.
    pub operation: Operation,
    /// The workspace this request belongs to.
    pub workspace_id: String,
    /// The stored status (see [`ApprovalRecord::effective_status`]).
    pub status: ApprovalStatus,
    /// The protected, immutable request (what the human approves and what will execute).
    pub payload: Value,
    /// When created.
    pub created_at: Timestamp,
    /// When it stops being approvable/consumable.
    pub expires_at: Timestamp,
    /// When approved or rejected.
    #[serde(default)]
    pub decided_at: Option<Timestamp>,
    /// When consumed.
    #[serde(default)]
    pub consumed_at: Option<Timestamp>,
    /// When it became terminal (rejected, consumed, or expiry persisted).
    #[serde(default)]
    pub terminal_at: Option<Timestamp>,
}

impl ApprovalRecord {
    /// True if PENDING/APPROVED and `now >= expires_at`.
    pub fn is_lazily_expired(&self, now: Timestamp) -> bool {
        self.life().is_lazily_expired(now)
    }

    /// The status with lazy expiry applied.
    pub fn effective_status(&self, now: Timestamp) -> ApprovalStatus {
        self.life().effective_status(now)
    }

    /// When it became (effectively) terminal; `None` while still usable. A lazily expired
    /// record uses `expires_at`; stored terminal records without `terminal_at` fall back to
    /// `decided_at`/`consumed_at`/`expires_at`.
    pub fn effective_terminal_at(&self, now: Timestamp) -> Option<Timestamp> {
        self.life().effective_terminal_at(now)
    }

    /// The payload-free view at `now`.
    pub fn view(&self, now: Timestamp) -> ApprovalView {
        make_view(
            &self.request_id,
            &self.trace_id,
            self.operation,
            self.created_at,
            self.life(),
            now,
        )
    }

    fn life(&self) -> Life {
        Life {
            status: self.status,
            expires_at: self.expires_at,
            decided_at: self.decided_at,
            consumed_at: self.consumed_at,
            terminal_at: self.terminal_at,
        }
    }
}

/// The lifecycle fields, shared by the public record and the stored form.
#[derive(Clone, Copy)]
struct Life {
    status: ApprovalStatus,
    expires_at: Timestamp,
    decided_at: Option<Timestamp>,
    consumed_at: Option<Timestamp>,
    terminal_at: Option<Timestamp>,
}

impl Life {
    fn is_lazily_expired(self, now: Timestamp) -> bool {
        matches!(
            self.status,
            ApprovalStatus::Pending | ApprovalStatus::Approved
        ) && now >= self.expires_at
    }

    fn effective_status(self, now: Timestamp) -> ApprovalStatus {
        if self.is_lazily_expired(now) {
            ApprovalStatus::Expired
        } else {
            self.status
        }
    }

    fn effective_terminal_at(self, now: Timestamp) -> Option<Timestamp> {
        match self.effective_status(now) {
            ApprovalStatus::Pending | ApprovalStatus::Approved => None,
            ApprovalStatus::Expired if self.is_lazily_expired(now) => Some(self.expires_at),
            ApprovalStatus::Expired => self.terminal_at.or(Some(self.expires_at)),
            ApprovalStatus::Rejected => self.terminal_at.or(self.decided_at),
            ApprovalStatus::Consumed => self.terminal_at.or(self.consumed_at),
        }
    }
}

fn make_view(
    request_id: &str,
    trace_id: &str,
    operation: Operation,
    created_at: Timestamp,
    life: Life,
    now: Timestamp,
) -> ApprovalView {
    ApprovalView {
        request_id: request_id.to_string(),
        trace_id: trace_id.to_string(),
        operation,
        status: life.effective_status(now),
        resume_tool: operation.resume_tool().to_string(),
        created_at,
        expires_at: life.expires_at,
        decided_at: life.decided_at,
        consumed_at: life.consumed_at,
        terminal_at: life.effective_terminal_at(now),
    }
}

/// The stored form: identical fields, but the payload is kept as raw JSON text so that
/// loading and saving a large store never builds (or re-serializes) payload trees. The payload
/// is only parsed for the one record a caller asks for.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct StoredRecord {
    request_id: String,
    trace_id: String,
    operation: Operation,
    workspace_id: String,
    status: ApprovalStatus,
    payload: Box<RawValue>,
    created_at: Timestamp,
    expires_at: Timestamp,
    #[serde(default)]
    decided_at: Option<Timestamp>,
    #[serde(default)]
    consumed_at: Option<Timestamp>,
    #[serde(default)]
    terminal_at: Option<Timestamp>,
}

impl StoredRecord {
    fn life(&self) -> Life {
        Life {
            status: self.status,
            expires_at: self.expires_at,
            decided_at: self.decided_at,
            consumed_at: self.consumed_at,
            terminal_at: self.terminal_at,
        }
    }

    fn view(&self, now: Timestamp) -> ApprovalView {
        make_view(
            &self.request_id,
            &self.trace_id,
            self.operation,
            self.created_at,
            self.life(),
            now,
        )
    }

    fn expire(&mut self) {
        self.status = ApprovalStatus::Expired;
        self.terminal_at = Some(self.expires_at);
    }

    fn to_public(&self) -> Result<ApprovalRecord, StoreError> {
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

    fn from_public(r: &ApprovalRecord) -> Result<StoredRecord, StoreError> {
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

/// A request without its protected payload, with the effective status. Safe to show to the
/// agent (`toolhub.request_status`) and in listings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ApprovalView {
    /// The id.
    pub request_id: String,
    /// The original trace id.
    pub trace_id: String,
    /// What it authorizes.
    pub operation: Operation,
    /// Effective status (lazy expiry applied, never persisted by reading).
    pub status: ApprovalStatus,
    /// Server-derived resume tool name.
    pub resume_tool: String,
    /// When created.
    pub created_at: Timestamp,
    /// When it expires.
    pub expires_at: Timestamp,
    /// When decided.
    pub decided_at: Option<Timestamp>,
    /// When consumed.
    pub consumed_at: Option<Timestamp>,
    /// When it became (effectively) terminal.
    pub terminal_at: Option<Timestamp>,
}

/// Which capacity ceiling a new request would exceed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CapacityLimit {
    /// [`MAX_RECORDS`].
    Records,
    /// [`MAX_STORE_BYTES`].
    Bytes,
}

impl CapacityLimit {
    /// `records` or `bytes`.
    pub fn as_str(self) -> &'static str {
        match self {
            CapacityLimit::Records => "records",
            CapacityLimit::Bytes => "bytes",
        }
    }
}

/// Store failures.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// Adding the request would exceed a ceiling; the store is unchanged.
    #[error(
        "approval store is full: {limit:?} would be {would_be}, the limit is {max}; prune old requests"
    )]
    Full {
        /// Which ceiling.
        limit: CapacityLimit,
        /// The ceiling.
        max: u64,
        /// The size the store would have had.
        would_be: u64,
    },
    /// No such request in this workspace.
    #[error("request not found")]
    NotFound,
    /// The request has expired (for approve/reject).
    #[error("request has expired")]
    Expired,
    /// The transition is not allowed from the current (effective) status.
    #[error("request is {}, not PENDING", .from.as_str())]
    InvalidTransition {
        /// The current effective status.
        from: ApprovalStatus,
    },
    /// The store file cannot be parsed; it is left untouched.
    #[error("approval store is malformed: {0}")]
    Malformed(String),
    /// The store has an unknown format version; it is left untouched.
    #[error("approval store has unsupported version {0}")]
    UnsupportedVersion(u64),
    /// The store lock could not be taken.
    #[error(transparent)]
    Lock(#[from] LockError),
    /// Reading or writing failed (OS reason only).
    #[error("approval store i/o error: {0}")]
    Io(String),
}

impl StoreError {
    /// A stable machine code.
    pub fn code(&self) -> &'static str {
        match self {
            StoreError::Full { .. } => "STORE_FULL",
            StoreError::NotFound => "REQUEST_NOT_FOUND",
            StoreError::Expired => "REQUEST_EXPIRED",
            StoreError::InvalidTransition { .. } => "INVALID_TRANSITION",
            StoreError::Malformed(_) => "STORE_MALFORMED",
            StoreError::UnsupportedVersion(_) => "STORE_UNSUPPORTED_VERSION",
            StoreError::Lock(e) => e.code(),
            StoreError::Io(_) => "STORE_IO",
        }
    }
}

impl From<std::io::Error> for StoreError {
    fn from(e: std::io::Error) -> Self {
        StoreError::Io(io_reason(&e))
    }
}

/// Why a consume was refused. Variants about an existing request carry its view (with the
/// original trace id) so the caller can build the approval handle.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConsumeError {
    /// Unknown id, or an id of another workspace (indistinguishable by design).
    #[error("request not found")]
    NotFound,
    /// The request is for another operation (wrong resume tool); nothing changed.
    #[error("request is for another operation")]
    OperationMismatch(Box<ApprovalView>),
    /// Still pending.
    #[error("request is not approved yet")]
    NotApproved(Box<ApprovalView>),
    /// Rejected by the operator.
    #[error("request was rejected")]
    Rejected(Box<ApprovalView>),
    /// Expired.
    #[error("request has expired")]
    Expired(Box<ApprovalView>),
    /// Already consumed; single use.
    #[error("request was already consumed")]
    AlreadyConsumed(Box<ApprovalView>),
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl ConsumeError {
    /// A stable machine code.
    pub fn code(&self) -> &'static str {
        match self {
            ConsumeError::NotFound => "REQUEST_NOT_FOUND",
            ConsumeError::OperationMismatch(_) => "OPERATION_MISMATCH",
            ConsumeError::NotApproved(_) => "APPROVAL_PENDING",
            ConsumeError::Rejected(_) => "APPROVAL_REJECTED",
            ConsumeError::Expired(_) => "APPROVAL_EXPIRED",
            ConsumeError::AlreadyConsumed(_) => "APPROVAL_CONSUMED",
            ConsumeError::Store(e) => e.code(),
        }
    }

    /// The request's view, when the request exists in this workspace.
    pub fn view(&self) -> Option<&ApprovalView> {
        match self {
            ConsumeError::OperationMismatch(v)
            | ConsumeError::NotApproved(v)
            | ConsumeError::Rejected(v)
            | ConsumeError::Expired(v)
            | ConsumeError::AlreadyConsumed(v) => Some(v),
            ConsumeError::NotFound | ConsumeError::Store(_) => None,
        }
    }
}

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

/// Size of the store.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct StoreStats {
    /// Records (all workspaces).
    pub records: usize,
    /// Bytes of the file (0 if absent).
    pub bytes: u64,
}

/// The loaded store: parsed records plus, for each record unchanged since loading, its
/// original JSON text, so saving a large store copies untouched records instead of
/// re-serializing them. Every record is still fully parsed (and validated) on load.
#[derive(Debug, Default)]
struct StoreFile {
    version: u64,
    records: Vec<StoredRecord>,
    raw: Vec<Option<Box<RawValue>>>,
}

impl StoreFile {
    fn new(records: Vec<StoredRecord>) -> Self {
        let raw = records.iter().map(|_| None).collect();
        StoreFile {
            version: u64::from(STORE_VERSION),
            records,
            raw,
        }
    }

    fn push(&mut self, r: StoredRecord) {
        self.records.push(r);
        self.raw.push(None);
    }

    /// Mutable access that drops the cached text of that record.
    fn touch(&mut self, idx: usize) -> &mut StoredRecord {
        self.raw[idx] = None;
        &mut self.records[idx]
    }

    fn retain(&mut self, mut keep: impl FnMut(&StoredRecord) -> bool) {
        let records = std::mem::take(&mut self.records);
        let raw = std::mem::take(&mut self.raw);
        for (r, t) in records.into_iter().zip(raw) {
            if keep(&r) {
                self.records.push(r);
                self.raw.push(t);
            }
        }
    }
}

/// The on-disk shape, read without building records yet.
#[derive(Deserialize)]
struct RawStoreFile<'a> {
    version: u64,
    #[serde(borrow)]
    records: Vec<&'a RawValue>,
}

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

    /// The time-to-live of new requests.
    pub fn ttl(&self) -> Duration {
        self.ttl
    }

    /// The current time on the store's clock.
    pub fn now(&self) -> Timestamp {
        self.clock.now()
    }

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
        let _lock = self.lock()?;
        let (mut file, _) = self.load()?;
        let now = self.clock.now();
        let idx = self.find(&file, request_id).ok_or(StoreError::NotFound)?;
        let rec = file.touch(idx);
        if rec.life().is_lazily_expired(now) {
            rec.expire();
            self.save(&file)?;
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
        self.save(&file)?;
        Ok(out)
    }

    /// Atomically consumes an effectively APPROVED request of `operation`, returning it with
    /// its payload. Exactly one caller (in any process) can win; the record stays CONSUMED
    /// whatever the caller does afterwards, so a failed execution needs a new approval.
    pub fn consume(
        &self,
        request_id: &str,
        operation: Operation,
    ) -> Result<ApprovalRecord, ConsumeError> {
        let _lock = self.lock()?;
        let (mut file, _) = self.load()?;
        let now = self.clock.now();
        let idx = self.find(&file, request_id).ok_or(ConsumeError::NotFound)?;
        let rec = file.touch(idx);
        if rec.operation != operation {
            return Err(ConsumeError::OperationMismatch(Box::new(rec.view(now))));
        }
        if rec.life().is_lazily_expired(now) {
            rec.expire();
            let view = Box::new(rec.view(now));
            self.save(&file)?;
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
            ApprovalStatus::Expired => return Err(ConsumeError::Expired(Box::new(rec.view(now)))),
            ApprovalStatus::Consumed => {
                return Err(ConsumeError::AlreadyConsumed(Box::new(rec.view(now))));
            }
        }
        rec.status = ApprovalStatus::Consumed;
        rec.consumed_at = Some(now);
        rec.terminal_at = Some(now);
        let out = rec.to_public()?;
        self.save(&file)?;
        Ok(out)
    }

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

    fn find(&self, file: &StoreFile, request_id: &str) -> Option<usize> {
        file.records
            .iter()
            .position(|r| r.request_id == request_id && r.workspace_id == self.workspace_id)
    }

    fn lock(&self) -> Result<FileLock, StoreError> {
        Ok(FileLock::acquire(&self.lock_path, self.lock_timeout)?)
    }

    fn load(&self) -> Result<(StoreFile, u64), StoreError> {
        let bytes = match std::fs::read(&self.path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Ok((StoreFile::new(Vec::new()), 0));
            }
            Err(e) => return Err(e.into()),
        };
        // Fast path: the current format. On failure, look closer to report an unknown
        // version as such (never guess, never reset).
        match serde_json::from_slice::<RawStoreFile<'_>>(&bytes) {
            Ok(file) if file.version == u64::from(STORE_VERSION) => {
                let mut records = Vec::with_capacity(file.records.len());
                let mut raw = Vec::with_capacity(file.records.len());
                for (i, r) in file.records.into_iter().enumerate() {
                    let rec: StoredRecord = serde_json::from_str(r.get())
                        .map_err(|e| StoreError::Malformed(format!("record {i}: {e}")))?;
                    records.push(rec);
                    raw.push(Some(r.to_owned()));
                }
                let file = StoreFile {
                    version: u64::from(STORE_VERSION),
                    records,
                    raw,
                };
                Ok((file, bytes.len() as u64))
            }
            Ok(file) => Err(StoreError::UnsupportedVersion(file.version)),
            Err(e) => {
                let probe: Value = serde_json::from_slice(&bytes)
                    .map_err(|e| StoreError::Malformed(format!("not JSON ({e})")))?;
                match probe.get("version").and_then(Value::as_u64) {
                    Some(v) if v != u64::from(STORE_VERSION) => {
                        Err(StoreError::UnsupportedVersion(v))
                    }
                    Some(_) => Err(StoreError::Malformed(e.to_string())),
                    None => Err(StoreError::Malformed("missing version".into())),
                }
            }
        }
    }

    fn save(&self, file: &StoreFile) -> Result<(), StoreError> {
        let bytes = serialize(file)?;
        atomic_write(&self.path, &bytes)?;
        Ok(())
    }
}

/// `{"version":1,"records":[...]}` plus a newline, compact; untouched records are copied
/// from their loaded text.
fn serialize(file: &StoreFile) -> Result<Vec<u8>, StoreError> {
    let cached: usize = file.raw.iter().flatten().map(|r| r.get().len() + 1).sum();
    let mut out = Vec::with_capacity(cached + 256 * (file.records.len() + 1));
    out.extend_from_slice(format!("{{\"version\":{},\"records\":[", file.version).as_bytes());
    for (i, (rec, raw)) in file.records.iter().zip(&file.raw).enumerate() {
        if i > 0 {
            out.push(b',');
        }
        match raw {
            Some(text) => out.extend_from_slice(text.get().as_bytes()),
            None => {
                serde_json::to_writer(&mut out, rec).map_err(|e| StoreError::Io(e.to_string()))?
            }
        }
    }
    out.extend_from_slice(b"]}\n");
    Ok(out)
}

#[cfg(test)]
mod tests;
