//! The output type of each tool (structured content), with its schema.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{ApprovalHandle, ApprovalStatus, ErrorInfo, Outcome};

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
