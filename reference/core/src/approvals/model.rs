//! The public shapes of a request: what it authorizes, its lifecycle status, the full record
//! and the payload-free view, plus the shared lazy-expiry rules.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::clock::Timestamp;

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
pub(super) struct Life {
    pub(super) status: ApprovalStatus,
    pub(super) expires_at: Timestamp,
    pub(super) decided_at: Option<Timestamp>,
    pub(super) consumed_at: Option<Timestamp>,
    pub(super) terminal_at: Option<Timestamp>,
}

impl Life {
    pub(super) fn is_lazily_expired(self, now: Timestamp) -> bool {
        matches!(
            self.status,
            ApprovalStatus::Pending | ApprovalStatus::Approved
        ) && now >= self.expires_at
    }

    pub(super) fn effective_status(self, now: Timestamp) -> ApprovalStatus {
        if self.is_lazily_expired(now) {
            ApprovalStatus::Expired
        } else {
            self.status
        }
    }

    pub(super) fn effective_terminal_at(self, now: Timestamp) -> Option<Timestamp> {
        match self.effective_status(now) {
            ApprovalStatus::Pending | ApprovalStatus::Approved => None,
            ApprovalStatus::Expired if self.is_lazily_expired(now) => Some(self.expires_at),
            ApprovalStatus::Expired => self.terminal_at.or(Some(self.expires_at)),
            ApprovalStatus::Rejected => self.terminal_at.or(self.decided_at),
            ApprovalStatus::Consumed => self.terminal_at.or(self.consumed_at),
        }
    }
}

/// Builds the payload-free view from a record's identity and lifecycle fields at `now`.
pub(super) fn make_view(
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
