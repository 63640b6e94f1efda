//! `parallel`: runs steps at the same time; the step ends when all have.

use super::StepFailure;
use crate::model::Step;
use crate::model::steps::parallel::Parallel;
use crate::runner::context::Run;
use serde_json::Value;
use std::time::Duration;

/// Runs one `parallel` step.
pub(super) async fn run(
    run: &Run<'_>,
    _: &Step,
    parallel: &Parallel,
    _: Duration,
) -> Result<Option<Value>, StepFailure> {
    let results = futures::future::join_all(parallel.steps.iter().map(|s| run.step(s))).await;
    results.into_iter().collect::<Result<Vec<_>, _>>()?;
    Ok(None)
}
