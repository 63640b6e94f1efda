//! Contract V1: the public, versioned types of ToolHub's agent-facing API.
//!
//! Every type here is part of the locked surface (`fixtures/contract_v1.json`): field names,
//! required fields and the normalized schema digests are compared with the live server by
//! `tests/contract.rs`. Optional output fields are `Option` with `skip_serializing_if`, so the
//! serialize-contract schema rmcp publishes as `outputSchema` lists them as not required.
//!
//! Expected domain states (approval states, refusals, conflicts) are values of [`Outcome`] in a
//! structured result, never MCP errors.

//!
//! The module is split by job: `outcome` (outcome, status, approval handle and error info),
//! `inputs` (tool arguments) and `outputs` (tool results); the tool names and error codes
//! stay here.

mod inputs;
mod outcome;
mod outputs;

pub use inputs::{
    ApplyPatchInput, AuditRecentInput, GitDiffInput, ListDirectoryInput, PingInput, ReadFileInput,
    RequestIdInput, ShellRunInput, WriteFileInput,
};
pub use outcome::{ApprovalHandle, ApprovalStatus, ErrorInfo, Outcome};
pub use outputs::{
    ApplyPatchOutput, ApprovalModel, ApprovalOperation, AuditRecentOutput, CapabilitiesOutput,
    DirectoryEntry, GitDiffOutput, GitStatusEntry, GitStatusOutput, Lifecycle, Limits,
    ListDirectoryOutput, ReadFileOutput, RequestStatusOutput, Risk, ShellRunOutput,
    WriteFileOutput,
};

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

/// Stable error codes of this implementation. Confinement and filesystem refusals use the
/// core jail's codes (`PATH_TRAVERSAL`, `PATH_ABSOLUTE`, `SYMLINK_REFUSED`, `NOT_FOUND`, ...),
/// patch refusals the core patch codes (`PATCH_MALFORMED`, `PATCH_DOES_NOT_APPLY`, ...), a full
/// approval store the core store code (`STORE_FULL`).
pub mod codes {
    /// Unknown request id, or one of another workspace (indistinguishable by design).
    pub const REQUEST_NOT_FOUND: &str = "REQUEST_NOT_FOUND";
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
