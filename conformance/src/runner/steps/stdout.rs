//! `stdout`: what the server wrote to stdout so far, line by line, retried `within`.

use super::StepFailure;
use crate::model::Step;
use crate::model::steps::stdout::Stdout;
use crate::runner::context::Run;
use serde_json::Value;
use std::time::Duration;

/// Runs one `stdout` step.
pub(super) async fn run(
    run: &Run<'_>,
    step: &Step,
    _: &Stdout,
    timeout: Duration,
) -> Result<Option<Value>, StepFailure> {
    let (_, s) = run.session(step.on.as_deref()).await?;
    run.observe_until(step, timeout, || {
        let s = s.clone();
        async move { Ok(s.stdout_observation()) }
    })
    .await
}
