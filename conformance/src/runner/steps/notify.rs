//! `notify`: a notification by method name.

use super::{StepFailure, session_failure};
use crate::model::Step;
use crate::model::steps::notify::Notify;
use crate::runner::context::Run;
use serde_json::Value;
use std::time::Duration;

/// Runs one `notify` step.
pub(super) async fn run(
    run: &Run<'_>,
    step: &Step,
    notify: &Notify,
    _: Duration,
) -> Result<Option<Value>, StepFailure> {
    let (_, s) = run.session(step.on.as_deref()).await?;
    let params = match &notify.params {
        Some(p) => Some(run.expand(p)?),
        None => None,
    };
    s.notify(&run.expand_str(&notify.method)?, params)
        .await
        .map_err(session_failure)?;
    Ok(None)
}
