//! `stderr`: what the server wrote to stderr so far, retried `within`.

use super::StepFailure;
use crate::model::Step;
use crate::model::steps::stderr::Stderr;
use crate::runner::context::Run;
use serde_json::{Value, json};
use std::time::Duration;

/// Runs one `stderr` step.
pub(super) async fn run(
    run: &Run<'_>,
    step: &Step,
    _: &Stderr,
    timeout: Duration,
) -> Result<Option<Value>, StepFailure> {
    let (_, s) = run.session(step.on.as_deref()).await?;
    run.observe_until(step, timeout, || {
        let s = s.clone();
        async move {
            let text = s.stderr_text();
            let lines: Vec<&str> = text.lines().collect();
            Ok(json!({"text": text, "lines": lines}))
        }
    })
    .await
}
