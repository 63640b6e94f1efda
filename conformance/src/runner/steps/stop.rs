//! `stop`: closes the server's stdin and observes its exit (`wait_exit` shares the wait).

use super::StepFailure;
use crate::model::Step;
use crate::model::steps::stop::Stop;
use crate::runner::context::Run;
use crate::runner::observe::exit_observation;
use serde_json::{Value, json};
use std::time::Duration;

/// Runs one `stop` step.
pub(super) async fn run(
    run: &Run<'_>,
    step: &Step,
    _: &Stop,
    timeout: Duration,
) -> Result<Option<Value>, StepFailure> {
    observe_exit(run, step, true, timeout).await
}

/// Waits `within` for the server to exit (after closing its stdin when `close_stdin`) and
/// observes how it ended and what it wrote.
pub(super) async fn observe_exit(
    run: &Run<'_>,
    step: &Step,
    close_stdin: bool,
    timeout: Duration,
) -> Result<Option<Value>, StepFailure> {
    let (_, s) = run.session(step.on.as_deref()).await?;
    if close_stdin {
        s.close_stdin().await;
    }
    let within = step.within.unwrap_or(timeout);
    let status = s.wait_exit(within).await;
    if status.is_some() {
        // What it wrote before exiting is still in the pipes: read it all (a descendant
        // holding them open is cut off after a second).
        s.wait_streams_closed(Duration::from_secs(1)).await;
    }
    let mut obs = exit_observation(status);
    obs["stdout"] = s.stdout_observation()["text"].clone();
    obs["stderr"] = json!(s.stderr_text());
    if status.is_none() {
        s.shutdown(Duration::ZERO).await;
    }
    // The ended session stays in its slot so a failure report still has its transcript;
    // `start` replaces it.
    Ok(Some(obs))
}
