//! `no_response`: a request sent with `nowait` stays unanswered (a cancelled one must).

use super::StepFailure;
use crate::model::Step;
use crate::model::steps::no_response::NoResponse;
use crate::runner::context::{Run, lock};
use serde_json::Value;
use std::time::Duration;

/// Runs one `no_response` step.
pub(super) async fn run(
    run: &Run<'_>,
    step: &Step,
    unanswered: &NoResponse,
    _: Duration,
) -> Result<Option<Value>, StepFailure> {
    let handle = &unanswered.handle;
    let pending = lock(&run.pending).get(handle).cloned().ok_or_else(|| {
        StepFailure::error(format!(
            "no_response {handle}: no request was sent with nowait: {handle}"
        ))
    })?;
    let within = step.within.unwrap_or(Duration::ZERO);
    match pending.session.answered(&pending.id, within).await {
        None => Ok(None),
        Some(resp) => {
            let mut f = StepFailure::assertion(format!("the request sent as {handle} was answered"));
            f.actual = Some(resp);
            Err(f)
        }
    }
}
