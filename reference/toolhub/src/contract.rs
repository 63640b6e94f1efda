//! Contract V1: the public, versioned types of ToolHub's agent-facing API.
//!
//! Every type here is part of the locked surface (`fixtures/contract_v1.json`): field names,
//! required fields and the normalized schema digests are compared with the live server by
//! `tests/contract.rs`. Optional output fields are `Option` with `skip_serializing_if`, so the
//! serialize-contract schema rmcp publishes as `outputSchema` lists them as not required.
//!
//! Expected domain states (approval states, refusals, conflicts) are values of [`Outcome`] in a
//! structured result, never MCP errors.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The contract version, independent of the package version.
pub const CONTRACT_VERSION: &str = "1.0";

/// Tool names, as listed by `tools/list`.
pub mod tools {
    pub const PING: &str = "toolhub.ping";
    pub const AUDIT_RECENT: &str = "toolhub.audit_recent";
    pub const CAPABILITIES: &str = "toolhub.capabilities";
    pub const REQUEST_STATUS: &str = "toolhub.request_status";
    pub const LIST_DIRECTORY: &str = "filesystem.list_directory";
    pub const READ_FILE: &str = "filesystem.read_file";
    pub const WRITE_FILE: &str = "filesystem.write_file";
    pub const WRITE_FILE_APPROVED: &str = "filesystem.write_file_approved";
    pub const APPLY_PATCH: &str = "filesystem.apply_patch";
    pub const APPLY_PATCH_APPROVED: &str = "filesystem.apply_patch_approved";
    pub const GIT_STATUS: &str = "git.status";
    pub const GIT_DIFF: &str = "git.diff";
    pub const SHELL_RUN: &str = "shell.run";
    pub const SHELL_RUN_APPROVED: &str = "shell.run_approved";

    /// All 14 tools, sorted.
    pub const ALL: [&str; 14] = [
        APPLY_PATCH,
        APPLY_PATCH_APPROVED,
        LIST_DIRECTORY,
        READ_FILE,
        WRITE_FILE,
        WRITE_FILE_APPROVED,
        GIT_DIFF,
        GIT_STATUS,
        SHELL_RUN,
        SHELL_RUN_APPROVED,
        AUDIT_RECENT,
        CAPABILITIES,
        PING,
        REQUEST_STATUS,
    ];
}

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

/// Stable error codes of this implementation. Confinement and filesystem refusals use the
/// core jail's codes (`PATH_TRAVERSAL`, `PATH_ABSOLUTE`, `SYMLINK_REFUSED`, `NOT_FOUND`, ...),
/// patch refusals the core patch codes (`PATCH_MALFORMED`, `PATCH_DOES_NOT_APPLY`, ...), a full
/// approval store the core store code (`STORE_FULL`).
pub mod codes {
    /// Unknown request id, or one of another workspace (indistinguishable by design).
    pub const REQUEST_NOT_FOUND: &str = "REQUEST_NOT_FOUND";
    /// The tool exists in Contract V1 but this build does not execute it yet.
    pub const NOT_IMPLEMENTED: &str = "NOT_IMPLEMENTED";
    /// `expected_hash` does not match the file at submission.
    pub const HASH_MISMATCH: &str = "HASH_MISMATCH";
    /// The file changed between submission and approved execution.
    pub const FILE_CHANGED: &str = "FILE_CHANGED";
    /// A resume tool was called with the id of another operation's request.
    pub const OPERATION_MISMATCH: &str = "OPERATION_MISMATCH";
    /// `content` exceeds the write limit.
    pub const CONTENT_TOO_LARGE: &str = "CONTENT_TOO_LARGE";
    /// `patch` exceeds the patch limit.
    pub const PATCH_TOO_LARGE: &str = "PATCH_TOO_LARGE";
    /// The file is not UTF-8 text.
    pub const NOT_UTF8: &str = "NOT_UTF8";
    /// The parent directory is missing and `create_parents` was not set.
    pub const PARENT_NOT_FOUND: &str = "PARENT_NOT_FOUND";
    /// A stored approval payload could not be understood (the approval stays consumed).
    pub const PAYLOAD_INVALID: &str = "PAYLOAD_INVALID";
}

// ---------------------------------------------------------------------------------------------
// Inputs
// ---------------------------------------------------------------------------------------------

/// `toolhub.ping`
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PingInput {
    /// Optional text echoed back.
    #[serde(default)]
    pub message: Option<String>,
}

/// `toolhub.audit_recent`
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AuditRecentInput {
    /// How many of the newest events to return (1..=500, default 50).
    #[serde(default)]
    #[schemars(range(min = 1, max = 500))]
    pub limit: Option<u32>,
}

/// `toolhub.request_status` and every `*_approved` resume tool.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RequestIdInput {
    /// The `approval.request_id` returned at submission.
    pub request_id: String,
}

/// `filesystem.list_directory`
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListDirectoryInput {
    /// Workspace-relative directory; the workspace root when absent.
    #[serde(default)]
    pub path: Option<String>,
}

/// `filesystem.read_file`
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReadFileInput {
    /// Workspace-relative file path.
    pub path: String,
}

/// `filesystem.write_file`
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WriteFileInput {
    /// Workspace-relative file path.
    pub path: String,
    /// The complete new UTF-8 content.
    pub content: String,
    /// Create missing parent directories (inside the workspace) when writing.
    #[serde(default)]
    pub create_parents: Option<bool>,
    /// SHA-256 (hex) the file must currently have; mismatch gives CONFLICT.
    #[serde(default)]
    pub expected_hash: Option<String>,
}

/// `filesystem.apply_patch`
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ApplyPatchInput {
    /// Workspace-relative file path.
    pub path: String,
    /// A unified diff for this one file.
    pub patch: String,
    /// SHA-256 (hex) the file must currently have; mismatch gives CONFLICT.
    #[serde(default)]
    pub expected_hash: Option<String>,
}

/// `git.diff`
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GitDiffInput {
    /// Workspace-relative path to restrict the diff to.
    #[serde(default)]
    pub path: Option<String>,
    /// Diff the index instead of the working tree.
    #[serde(default)]
    pub staged: Option<bool>,
}

/// `shell.run`
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ShellRunInput {
    /// Program name or path (never a shell command line).
    pub program: String,
    /// Arguments, each passed as one argv element.
    #[serde(default)]
    pub args: Option<Vec<String>>,
    /// Workspace-relative working directory.
    #[serde(default)]
    pub cwd: Option<String>,
    /// Timeout in seconds.
    #[serde(default)]
    pub timeout_seconds: Option<u32>,
}

// ---------------------------------------------------------------------------------------------
// Outputs
// ---------------------------------------------------------------------------------------------

/// `toolhub.audit_recent`
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct AuditRecentOutput {
    pub count: usize,
    /// Newest last; bounded, redacted events.
    pub events: Vec<serde_json::Map<String, serde_json::Value>>,
}

/// One initial/resume mapping.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ApprovalOperation {
    pub initial_tool: String,
    pub resume_tool: String,
}

/// Public limits.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Limits {
    /// Original shell output characters retained before a truncation marker is appended.
    pub shell_output_retained_chars: u64,
    /// Original git output characters retained before a truncation marker is appended.
    pub git_output_retained_chars: u64,
    /// Largest file `filesystem.read_file` returns.
    pub max_read_file_bytes: u64,
    /// Largest content `filesystem.write_file` accepts.
    pub max_write_file_bytes: u64,
    /// Largest patch `filesystem.apply_patch` accepts.
    pub max_patch_bytes: u64,
    /// Most entries `filesystem.list_directory` returns.
    pub max_directory_entries: u64,
    /// Seconds a new approval request stays valid.
    pub approval_ttl_seconds: u64,
    /// Most records the approval store holds.
    pub approval_store_max_records: u64,
    /// Largest serialized approval store, in bytes.
    pub approval_store_max_bytes: u64,
    /// Most events `toolhub.audit_recent` returns.
    pub audit_recent_max_limit: u64,
}

/// `toolhub.capabilities`
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct CapabilitiesOutput {
    pub contract_version: String,
    pub package_version: String,
    pub transport: String,
    /// The public human approval model.
    pub approval_model: ApprovalModel,
    pub approval_operations: Vec<ApprovalOperation>,
    pub limits: Limits,
}

/// How approvals work, for clients.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ApprovalModel {
    /// `out_of_band_human`.
    pub kind: String,
    /// The trusted administrator command a human runs to approve or reject.
    pub approver: String,
    /// Whether any MCP tool can approve or reject (never).
    pub mcp_self_approval: bool,
    /// Approvals are consumed atomically, once.
    pub single_use: bool,
    /// Pending and approved requests expire.
    pub expiring: bool,
    /// The read-only polling tool.
    pub status_tool: String,
    pub description: String,
}

/// `toolhub.request_status`
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct RequestStatusOutput {
    pub outcome: Outcome,
    pub trace_id: String,
    pub request_id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub approval: Option<ApprovalHandle>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorInfo>,
}

/// One directory entry.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct DirectoryEntry {
    pub name: String,
    /// `file`, `directory`, `symlink` or `other`.
    #[serde(rename = "type")]
    pub kind: String,
    /// Size in bytes, for files.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
}

/// `filesystem.list_directory`
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ListDirectoryOutput {
    pub path: String,
    pub entries: Vec<DirectoryEntry>,
}

/// `filesystem.read_file`
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ReadFileOutput {
    pub path: String,
    pub size: u64,
    pub sha256: String,
    pub content: String,
}

/// The fields every approval-gated result shares (flattened into each output).
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Lifecycle {
    pub outcome: Outcome,
    /// One correlation id per lifecycle: submission, status, resume and audit.
    pub trace_id: String,
    /// Whether this call performed the protected operation.
    pub executed: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub request_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub approval: Option<ApprovalHandle>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub approval_status: Option<ApprovalStatus>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorInfo>,
    /// Human-readable compatibility message; never parse it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

impl Lifecycle {
    pub fn new(outcome: Outcome, trace_id: impl Into<String>) -> Self {
        Self {
            outcome,
            trace_id: trace_id.into(),
            executed: false,
            request_id: None,
            approval: None,
            approval_status: None,
            error: None,
            message: None,
        }
    }

    /// A structured refusal (or other failure outcome) with its error.
    pub fn failed(outcome: Outcome, trace_id: impl Into<String>, error: ErrorInfo) -> Self {
        let mut l = Self::new(outcome, trace_id);
        l.message = Some(error.message.clone());
        l.error = Some(error);
        l
    }

    /// Attach an approval handle (and its request id and status).
    pub fn with_approval(mut self, handle: ApprovalHandle) -> Self {
        self.request_id = Some(handle.request_id.clone());
        self.approval_status = Some(handle.status);
        self.approval = Some(handle);
        self
    }
}

/// `filesystem.write_file` and `filesystem.write_file_approved`
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct WriteFileOutput {
    #[serde(flatten)]
    pub lifecycle: Lifecycle,
    pub path: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bytes_written: Option<u64>,
    /// Whether the write created the file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub created: Option<bool>,
    /// SHA-256 before the write (absent when the file did not exist).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub previous_hash: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub new_hash: Option<String>,
}

impl WriteFileOutput {
    pub fn new(lifecycle: Lifecycle, path: impl Into<String>) -> Self {
        Self {
            lifecycle,
            path: path.into(),
            bytes_written: None,
            created: None,
            previous_hash: None,
            new_hash: None,
        }
    }
}

/// `filesystem.apply_patch` and `filesystem.apply_patch_approved`
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ApplyPatchOutput {
    #[serde(flatten)]
    pub lifecycle: Lifecycle,
    pub path: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub changed: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub additions: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deletions: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bytes_before: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bytes_after: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub previous_hash: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub new_hash: Option<String>,
}

impl ApplyPatchOutput {
    pub fn new(lifecycle: Lifecycle, path: impl Into<String>) -> Self {
        Self {
            lifecycle,
            path: path.into(),
            changed: None,
            additions: None,
            deletions: None,
            bytes_before: None,
            bytes_after: None,
            previous_hash: None,
            new_hash: None,
        }
    }
}

/// Risk class of a shell request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Risk {
    Low,
    Medium,
    High,
}

/// `shell.run` and `shell.run_approved`
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ShellRunOutput {
    #[serde(flatten)]
    pub lifecycle: Lifecycle,
    pub program: String,
    pub args: Vec<String>,
    pub cwd: String,
    pub risk: Risk,
    pub risk_reason: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub returncode: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stdout: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stderr: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timed_out: Option<bool>,
}

/// One `git status` entry.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct GitStatusEntry {
    /// Two-letter porcelain status (`XY`).
    pub status: String,
    pub path: String,
}

/// `git.status`
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct GitStatusOutput {
    pub path: String,
    pub clean: bool,
    pub entries: Vec<GitStatusEntry>,
    pub raw: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub branch: Option<String>,
}

/// `git.diff`
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct GitDiffOutput {
    pub path: String,
    pub staged: bool,
    pub raw: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub additions: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deletions: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub binary: Option<bool>,
}
