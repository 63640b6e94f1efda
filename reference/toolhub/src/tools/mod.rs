//! Tool implementations, one module per family. Each is a synchronous method on
//! [`crate::hub::Hub`] returning a Contract V1 output (or a [`crate::error::ToolError`]).

pub mod fs;
pub mod git;
mod lifecycle;
pub mod meta;
mod refusal;
pub mod shell;

use mcp_safety_core::jail::JailError;

use crate::contract::{ErrorInfo, Outcome};

/// The Contract V1 outcome for a jail failure on an approval-gated path: confinement and
/// file-shape refusals are REFUSED, a changed file is CONFLICT, anything else FAILED.
pub(crate) fn jail_outcome(e: &JailError) -> (Outcome, ErrorInfo) {
    let retryable = matches!(e, JailError::Io { .. });
    let outcome = match e {
        JailError::Conflict { .. } => Outcome::Conflict,
        JailError::Io { .. } => Outcome::Failed,
        _ => Outcome::Refused,
    };
    (outcome, ErrorInfo::new(e.code(), e.to_string(), retryable))
}

/// Request ids are opaque; anything that cannot be one is simply "not found".
pub(crate) fn plausible_request_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= crate::limits::MAX_REQUEST_ID_CHARS
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}
