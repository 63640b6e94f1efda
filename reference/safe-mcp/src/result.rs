//! The `OperationResult` every safe-mcp tool returns, exactly as the document names its
//! fields, and the result codes. Domain refusals are tool results (`ok: false`, sent with
//! `isError: true`), not JSON-RPC errors, so a client always gets the code and the reason.

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{Map, Value};

/// Result codes (the document's `ResultCode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Code {
    /// It happened (or, for `explain_command`, it would be allowed).
    Ok,
    /// A policy rule (or deny by default) refused it.
    PolicyDenied,
    /// The request itself is malformed (empty command, unbalanced quote, bad cwd).
    InvalidRequest,
    /// A path resolves outside the jail.
    PathEscape,
    /// The command ran past its deadline and was killed with its whole process tree.
    Timeout,
    /// The command ran; its output was cut at the cap (after redaction).
    OutputTruncated,
    /// The command could not be started.
    OperationFailed,
    /// The audit trail could not be written and `audit_fail_mode` is `closed`.
    AuditUnavailable,
    /// A bug or an unexpected system failure.
    InternalError,
    /// Files: cleared every safety invariant, declined only because acting unprompted would
    /// be a guess; name the file with `move_file`.
    NeedsExplicitRequest,
    /// Files: a destination is occupied, or a plan/undo no longer matches the workspace;
    /// nothing was moved (never overwritten, never renamed around).
    Conflict,
}

impl Code {
    /// The wire spelling, for audit records.
    pub fn as_str(self) -> &'static str {
        match self {
            Code::Ok => "OK",
            Code::PolicyDenied => "POLICY_DENIED",
            Code::InvalidRequest => "INVALID_REQUEST",
            Code::PathEscape => "PATH_ESCAPE",
            Code::Timeout => "TIMEOUT",
            Code::OutputTruncated => "OUTPUT_TRUNCATED",
            Code::OperationFailed => "OPERATION_FAILED",
            Code::AuditUnavailable => "AUDIT_UNAVAILABLE",
            Code::InternalError => "INTERNAL_ERROR",
            Code::NeedsExplicitRequest => "NEEDS_EXPLICIT_REQUEST",
            Code::Conflict => "CONFLICT",
        }
    }
}

/// `OperationResult { ok, code, action, reason, detail, duration_ms }`.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct OperationResult {
    /// Whether the operation happened as asked (a nonzero exit code is still `true`).
    pub ok: bool,
    /// The result code.
    pub code: Code,
    /// The tool name.
    pub action: String,
    /// Why, in words (redacted).
    pub reason: String,
    /// Tool-specific facts; empty when nothing ran.
    pub detail: Map<String, Value>,
    /// Wall-clock time of the call.
    pub duration_ms: u64,
}

impl OperationResult {
    /// A result with empty detail and zero duration (set by the caller).
    pub fn new(ok: bool, code: Code, action: &str, reason: impl Into<String>) -> Self {
        OperationResult {
            ok,
            code,
            action: action.to_string(),
            reason: reason.into(),
            detail: Map::new(),
            duration_ms: 0,
        }
    }

    /// A refusal (`ok: false`).
    pub fn refused(code: Code, action: &str, reason: impl Into<String>) -> Self {
        Self::new(false, code, action, reason)
    }
}
