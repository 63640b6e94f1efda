//! Tools do blocking work (processes, file system, fsync'd audit records): both servers run
//! each call on the blocking pool the same way, and a task that dies is a structured
//! INTERNAL_ERROR, never a dropped request.
//!
//! The answer is `Ok` when the operation happened (`ok: true`) and `Err` when it was refused
//! or failed (`ok: false`): rmcp sends both as the same structured `OperationResult` (and its
//! JSON as text), the `Err` side with `isError: true`. The MCP tools page reports tool
//! execution errors, business logic errors among them, "in tool results with `isError:
//! true`"; a client reading only `isError` would otherwise take a `POLICY_DENIED` for a
//! success.

use std::sync::Arc;

use rmcp::Json;

use crate::result::{Code, OperationResult};

/// A tool's answer: the same structured body either way, `Err` flagged `isError: true`.
///
/// Tool functions spell the type out (`Result<Json<OperationResult>, Json<OperationResult>>`)
/// rather than through an alias: rmcp's `#[tool]` derives the `outputSchema` from that
/// spelling.
pub(crate) type Answer = Result<Json<OperationResult>, Json<OperationResult>>;

/// `result` as a tool answer: `isError` is exactly `!ok`.
// Both sides hold the same body, so neither is "large" beside the other; boxing it would hide
// the `Json<OperationResult>` that rmcp derives the output schema from.
#[allow(clippy::result_large_err)]
pub(crate) fn answer(result: OperationResult) -> Answer {
    if result.ok {
        Ok(Json(result))
    } else {
        Err(Json(result))
    }
}

/// Runs `f` on `inner` in the blocking pool and wraps its result for rmcp ([`answer`]).
#[allow(clippy::result_large_err)]
pub(crate) async fn on_blocking_pool<T, F>(inner: &Arc<T>, action: &'static str, f: F) -> Answer
where
    T: Send + Sync + 'static,
    F: FnOnce(&T) -> OperationResult + Send + 'static,
{
    let inner = Arc::clone(inner);
    match tokio::task::spawn_blocking(move || f(&inner)).await {
        Ok(r) => answer(r),
        Err(e) => answer(OperationResult::refused(
            Code::InternalError,
            action,
            format!("tool task failed: {e}"),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_refusal_is_an_error_and_the_body_is_the_same() {
        let refused = OperationResult::refused(Code::PathEscape, "move_file", "outside");
        let Err(Json(body)) = answer(refused.clone()) else {
            panic!("a refusal is the error side");
        };
        assert_eq!(body, refused);
        let done = OperationResult::new(true, Code::Ok, "move_file", "moved");
        let Ok(Json(body)) = answer(done.clone()) else {
            panic!("a success is the ok side");
        };
        assert_eq!(body, done);
    }
}
