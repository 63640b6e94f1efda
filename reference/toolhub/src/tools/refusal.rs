//! How a submission or resume that stops before execution is described: the stop itself, the
//! failed lifecycle it produces, and the shared "file changed" conflict.

use mcp_safety_core::jail::JailError;

use crate::contract::{ErrorInfo, Lifecycle, Outcome, codes};
use crate::tools::jail_outcome;

/// A submission or resume that ended before execution.
pub(crate) struct Stop {
    pub(crate) outcome: Outcome,
    pub(crate) error: ErrorInfo,
}

impl Stop {
    /// A stop with this outcome and a non-retryable error.
    pub(crate) fn new(outcome: Outcome, code: &str, message: impl Into<String>) -> Self {
        Stop {
            outcome,
            error: ErrorInfo::new(code, message, false),
        }
    }

    /// A stop from a jail refusal, mapped as everywhere else.
    pub(crate) fn jail(e: &JailError) -> Self {
        let (outcome, error) = jail_outcome(e);
        Stop { outcome, error }
    }
}

/// Turns `lifecycle` into a not-executed one with the stop's outcome and error.
pub(crate) fn fail(mut lifecycle: Lifecycle, stop: Stop) -> Lifecycle {
    lifecycle.outcome = stop.outcome;
    lifecycle.executed = false;
    lifecycle.message = Some(stop.error.message.clone());
    lifecycle.error = Some(stop.error);
    lifecycle
}

/// The CONFLICT of a file that changed after submission; nothing was written.
pub(crate) fn file_changed() -> Stop {
    Stop::new(
        Outcome::Conflict,
        codes::FILE_CHANGED,
        "the file changed after the request was submitted; nothing was written",
    )
}
