//! Why a store operation or a consume was refused, with stable machine codes.

use serde::Serialize;

use super::model::{ApprovalStatus, ApprovalView};
use crate::config::io_reason;
use crate::fsio::LockError;

/// Which capacity ceiling a new request would exceed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CapacityLimit {
    /// [`MAX_RECORDS`](super::MAX_RECORDS).
    Records,
    /// [`MAX_STORE_BYTES`](super::MAX_STORE_BYTES).
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
        "approval store is full: {} would be {would_be}, the limit is {max}; prune old requests", .limit.as_str()
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
    /// The store cannot be read as a store (not a database, corrupt, a record that is not a
    /// request, a file to migrate that cannot be parsed); it is left untouched.
    #[error("approval store is malformed: {0}")]
    Malformed(String),
    /// The store has an unknown format version; it is left untouched.
    #[error("approval store has unsupported version {0}")]
    UnsupportedVersion(u64),
    /// The state root holds two stores (an `approvals.json` beside the database that was not
    /// migrated from it); neither is touched until the operator chooses.
    #[error("approval store conflict: {0}")]
    Conflict(String),
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
            StoreError::Conflict(_) => "STORE_CONFLICT",
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
