//! `request`: any request by method name, answered now or collected by an `await`.

use super::{StepFailure, session_failure};
use crate::model::Step;
use crate::model::steps::request::Request;
use crate::runner::context::Run;
use crate::runner::observe::response_observation;
use serde_json::{Value, json};
use std::time::Duration;

/// Runs one `request` step.
pub(super) async fn run(
    run: &Run<'_>,
    step: &Step,
    request: &Request,
    timeout: Duration,
) -> Result<Option<Value>, StepFailure> {
    let (_, s) = run.session(step.on.as_deref()).await?;
    let mut params = match &request.params {
        Some(p) => Some(run.expand(p)?),
        None => None,
    };
    if let Some(m) = &request.meta {
        let m = run.expand(m)?;
        let obj = params.get_or_insert_with(|| json!({}));
        if obj.is_object() {
            obj["_meta"] = m;
        }
    }
    let id = s
        .send_request(&run.expand_str(&request.method)?, params)
        .await
        .map_err(session_failure)?;
    if let Some(handle) = &request.nowait {
        run.remember(handle, s.clone(), id, false, None);
        return Ok(None);
    }
    let resp = s.response(&id, timeout).await.map_err(session_failure)?;
    Ok(Some(response_observation(&resp)))
}
