//! The input type of each tool (`tools/call` arguments), with its schema.

use schemars::JsonSchema;
use serde::Deserialize;

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
