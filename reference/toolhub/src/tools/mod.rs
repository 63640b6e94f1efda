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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jail_failures_map_to_refused_conflict_or_failed() {
        // A file that changed between the check and the write (a race the earlier hash check
        // hides from any client) is a CONFLICT, as a changed file is everywhere else.
        let changed = JailError::Conflict {
            expected: Some("a".repeat(64)),
            actual: None,
        };
        let (outcome, error) = jail_outcome(&changed);
        assert_eq!(
            (outcome, error.code.as_str(), error.retryable),
            (Outcome::Conflict, "CONFLICT", false)
        );
        let io = JailError::Io {
            op: "write",
            reason: "disk full".into(),
        };
        let (outcome, error) = jail_outcome(&io);
        assert_eq!((outcome, error.retryable), (Outcome::Failed, true));
        let (outcome, error) = jail_outcome(&JailError::PathTraversal);
        assert_eq!((outcome, error.retryable), (Outcome::Refused, false));
    }

    #[test]
    fn only_plausible_ids_reach_the_store() {
        let longest = "r".repeat(crate::limits::MAX_REQUEST_ID_CHARS);
        for id in ["req_0123abcdef", "a-b_C", longest.as_str()] {
            assert!(plausible_request_id(id), "{id}");
        }
        let too_long = "r".repeat(crate::limits::MAX_REQUEST_ID_CHARS + 1);
        for id in ["", "../x", "req 1", "req\n", "réq", too_long.as_str()] {
            assert!(!plausible_request_id(id), "{id:?}");
        }
    }
}
