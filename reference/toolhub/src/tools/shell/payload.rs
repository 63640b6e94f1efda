//! The protected snapshot stored with a shell request: what the operator approves and the only
//! thing the resume executes. The agent cannot change any of it after submission.

use mcp_safety_core::exec::{ExecutableIdentity, SanitizedEnv};
use serde::{Deserialize, Serialize};

use crate::contract::Risk;

/// The protected payload of a `shell.run` request.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ShellPayload {
    /// The program exactly as the agent gave it (shown to the operator).
    pub program: String,
    /// Arguments, each one argv element.
    pub args: Vec<String>,
    /// Normalized workspace-relative working directory (`.` for the root).
    pub cwd: String,
    pub timeout_seconds: u32,
    /// The workspace the request was made in.
    pub workspace_id: String,
    /// The resolved primary executable, re-checked immediately before launch.
    pub executable: ExecutableIdentity,
    /// The exact child environment.
    pub env: SanitizedEnv,
    /// Digest binding `env`; a payload whose digest does not match never executes.
    pub env_digest: String,
    pub risk: Risk,
    pub risk_reason: String,
}
