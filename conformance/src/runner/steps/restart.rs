//! `restart`: stops a server (stdin closed, killed after a grace period) and starts it again.

use super::StepFailure;
use crate::model::Step;
use crate::model::steps::restart::Restart;
use crate::runner::context::Run;
use serde_json::Value;
use std::time::Duration;

/// Runs one `restart` step.
pub(super) async fn run(
    run: &Run<'_>,
    step: &Step,
    _: &Restart,
    _: Duration,
) -> Result<Option<Value>, StepFailure> {
    let index = run.server_index(step.on.as_deref());
    if let Some(old) = run.servers[index].session.write().await.take() {
        old.shutdown(Duration::from_secs(2)).await;
    }
    run.start_server(index).await?;
    Ok(None)
}
