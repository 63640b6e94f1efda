//! The protected payloads stored with write and patch requests: what the human approves and
//! what the resume executes.

use serde::{Deserialize, Serialize};

/// The protected payload of a write request.
#[derive(Debug, Serialize, Deserialize)]
pub struct WritePayload {
    pub path: String,
    pub content: String,
    pub create_parents: bool,
    #[serde(default)]
    pub expected_hash: Option<String>,
    /// SHA-256 of the file at submission (`None`: it did not exist).
    #[serde(default)]
    pub observed_sha256: Option<String>,
    pub content_sha256: String,
    pub bytes: u64,
}

/// The protected payload of a patch request.
#[derive(Debug, Serialize, Deserialize)]
pub struct PatchPayload {
    pub path: String,
    pub patch: String,
    #[serde(default)]
    pub expected_hash: Option<String>,
    /// SHA-256 of the file at submission.
    pub observed_sha256: String,
    pub bytes_before: u64,
    pub additions: u64,
    pub deletions: u64,
}
