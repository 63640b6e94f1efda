//! `list_tools`: every page of `tools/list`.

use super::StepFailure;
use crate::model::Step;
use crate::model::steps::list_tools::ListTools;
use crate::runner::context::Run;
use serde_json::Value;
use std::time::Duration;

/// Runs one `list_tools` step.
pub(super) async fn run(
    run: &Run<'_>,
    step: &Step,
    _: &ListTools,
    timeout: Duration,
) -> Result<Option<Value>, StepFailure> {
    let (index, s) = run.session(step.on.as_deref()).await?;
    run.list_tools(index, &s, timeout, step.expect.is_none())
        .await
        .map(Some)
}
