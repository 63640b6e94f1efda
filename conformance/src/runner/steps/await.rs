//! `await`: the response to a request sent earlier with `nowait`.

use super::{StepFailure, session_failure};
use crate::model::Step;
use crate::model::steps::r#await::Await;
use crate::runner::context::{Run, lock};
use crate::runner::observe::{call_observation, response_observation};
use serde_json::Value;
use std::time::Duration;

/// Runs one `await` step.
pub(super) async fn run(
    run: &Run<'_>,
    _: &Step,
    awaited: &Await,
    timeout: Duration,
) -> Result<Option<Value>, StepFailure> {
    let handle = &awaited.handle;
    let pending = lock(&run.pending).get(handle).cloned().ok_or_else(|| {
        StepFailure::error(format!(
            "await {handle}: no request was sent with nowait: {handle}"
        ))
    })?;
    // The session the request went to, even if the server restarted since: a new session
    // numbers its requests from 1 again.
    let s = pending.session.clone();
    let resp = s
        .response(&pending.id, timeout)
        .await
        .map_err(session_failure)?;
    Ok(Some(if pending.is_call {
        let progress = pending
            .progress_token
            .map(|t| s.progress_for(&t))
            .unwrap_or_default();
        call_observation(&resp, progress)
    } else {
        response_observation(&resp)
    }))
}
