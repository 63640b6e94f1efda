//! `wait_exit`: observes the server's exit without closing its stdin.

use super::StepFailure;
use crate::model::Step;
use crate::model::steps::wait_exit::WaitExit;
use crate::runner::context::Run;
use serde_json::Value;
use std::time::Duration;

/// Runs one `wait_exit` step.
pub(super) async fn run(
    run: &Run<'_>,
    step: &Step,
    _: &WaitExit,
    timeout: Duration,
) -> Result<Option<Value>, StepFailure> {
    super::stop::observe_exit(run, step, false, timeout).await
}
