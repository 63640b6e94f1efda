//! `start`: starts a server declared with `start: false`, or one that ended.

use super::StepFailure;
use crate::model::Step;
use crate::model::steps::start::Start;
use crate::runner::context::Run;
use serde_json::Value;
use std::time::Duration;

/// Runs one `start` step.
pub(super) async fn run(
    run: &Run<'_>,
    step: &Step,
    _: &Start,
    _: Duration,
) -> Result<Option<Value>, StepFailure> {
    let index = run.server_index(step.on.as_deref());
    let running = run.servers[index].current().await;
    if running.is_some_and(|s| s.exit_status().is_none()) {
        return Err(StepFailure::error(format!(
            "server {} is already running",
            run.servers[index].name
        )));
    }
    run.start_server(index).await?;
    Ok(None)
}
