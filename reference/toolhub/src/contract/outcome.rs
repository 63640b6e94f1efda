//! The shared vocabulary of results: the outcome of a call, the approval status, the approval
//! handle an agent polls with, and the structured error.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The outcome of an approval-gated call or a status query.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Outcome {
    ApprovalRequired,
    ApprovalPending,
    ApprovalApproved,
    ApprovalRejected,
    ApprovalExpired,
    ApprovalConsumed,
    Succeeded,
    CommandFailed,
    TimedOut,
    Conflict,
    Refused,
    Failed,
}

impl Outcome {
    pub const ALL: [Outcome; 12] = [
        Self::ApprovalRequired,
        Self::ApprovalPending,
        Self::ApprovalApproved,
        Self::ApprovalRejected,
        Self::ApprovalExpired,
        Self::ApprovalConsumed,
        Self::Succeeded,
        Self::CommandFailed,
        Self::TimedOut,
        Self::Conflict,
        Self::Refused,
        Self::Failed,
    ];

    /// The outcome that reports an approval state.
    pub fn for_status(status: ApprovalStatus) -> Self {
        match status {
            ApprovalStatus::Pending => Self::ApprovalPending,
            ApprovalStatus::Approved => Self::ApprovalApproved,
            ApprovalStatus::Rejected => Self::ApprovalRejected,
            ApprovalStatus::Expired => Self::ApprovalExpired,
            ApprovalStatus::Consumed => Self::ApprovalConsumed,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::ApprovalRequired => "APPROVAL_REQUIRED",
            Self::ApprovalPending => "APPROVAL_PENDING",
            Self::ApprovalApproved => "APPROVAL_APPROVED",
            Self::ApprovalRejected => "APPROVAL_REJECTED",
            Self::ApprovalExpired => "APPROVAL_EXPIRED",
            Self::ApprovalConsumed => "APPROVAL_CONSUMED",
            Self::Succeeded => "SUCCEEDED",
            Self::CommandFailed => "COMMAND_FAILED",
            Self::TimedOut => "TIMED_OUT",
            Self::Conflict => "CONFLICT",
            Self::Refused => "REFUSED",
            Self::Failed => "FAILED",
        }
    }
}

/// The effective state of an approval request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ApprovalStatus {
    Pending,
    Approved,
    Rejected,
    Expired,
    Consumed,
}

impl From<mcp_safety_core::approvals::ApprovalStatus> for ApprovalStatus {
    fn from(s: mcp_safety_core::approvals::ApprovalStatus) -> Self {
        use mcp_safety_core::approvals::ApprovalStatus as Core;
        match s {
            Core::Pending => Self::Pending,
            Core::Approved => Self::Approved,
            Core::Rejected => Self::Rejected,
            Core::Expired => Self::Expired,
            Core::Consumed => Self::Consumed,
        }
    }
}

impl ApprovalStatus {
    pub const ALL: [ApprovalStatus; 5] = [
        Self::Pending,
        Self::Approved,
        Self::Rejected,
        Self::Expired,
        Self::Consumed,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Pending => "PENDING",
            Self::Approved => "APPROVED",
            Self::Rejected => "REJECTED",
            Self::Expired => "EXPIRED",
            Self::Consumed => "CONSUMED",
        }
    }
}

/// The safe approval handle: everything a client needs to poll and resume, nothing protected.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ApprovalHandle {
    /// Opaque request identifier.
    pub request_id: String,
    /// Effective state at the time of the response.
    pub status: ApprovalStatus,
    /// RFC 3339 UTC instant after which a pending or approved request is expired.
    pub expires_at: String,
    /// The tool to invoke, with only `request_id`, once the request is APPROVED.
    pub resume_tool: String,
}

impl ApprovalHandle {
    /// The safe handle of a stored request (payload-free view).
    pub fn from_view(view: &mcp_safety_core::approvals::ApprovalView) -> Self {
        Self {
            request_id: view.request_id.clone(),
            status: view.status.into(),
            expires_at: view.expires_at.to_rfc3339(),
            resume_tool: view.resume_tool.clone(),
        }
    }
}

/// A bounded, stable error description.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ErrorInfo {
    /// Stable machine-readable code (for example `REQUEST_NOT_FOUND`, `PATH_OUTSIDE_WORKSPACE`).
    pub code: String,
    /// Human-readable explanation; never parse it.
    pub message: String,
    /// Whether the same call may succeed if retried unchanged.
    pub retryable: bool,
}

impl ErrorInfo {
    pub fn new(code: impl Into<String>, message: impl Into<String>, retryable: bool) -> Self {
        Self {
            code: code.into(),
            message: message.into(),
            retryable,
        }
    }
}
