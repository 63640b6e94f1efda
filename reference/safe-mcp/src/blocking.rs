//! Tools do blocking work (processes, file system, fsync'd audit records): both servers run
//! each call on the blocking pool the same way, and a task that dies is a structured
//! INTERNAL_ERROR, never a dropped request.

use std::sync::Arc;

use rmcp::Json;

use crate::result::{Code, OperationResult};

/// Runs `f` on `inner` in the blocking pool and wraps its result for rmcp.
pub(crate) async fn on_blocking_pool<T, F>(
    inner: &Arc<T>,
    action: &'static str,
    f: F,
) -> Json<OperationResult>
where
    T: Send + Sync + 'static,
    F: FnOnce(&T) -> OperationResult + Send + 'static,
{
    let inner = Arc::clone(inner);
    match tokio::task::spawn_blocking(move || f(&inner)).await {
        Ok(r) => Json(r),
        Err(e) => Json(OperationResult::refused(
            Code::InternalError,
            action,
            format!("tool task failed: {e}"),
        )),
    }
}
