//! `initialize`: opens the session (`runner/open.rs` knows both generations).

use super::StepFailure;
use crate::model::Step;
use crate::model::steps::initialize::Initialize;
use crate::runner::context::Run;
use serde_json::Value;
use std::time::Duration;

/// Runs one `initialize` step.
pub(super) async fn run(
    run: &Run<'_>,
    step: &Step,
    spec: &Initialize,
    timeout: Duration,
) -> Result<Option<Value>, StepFailure> {
    run.open_session(step, spec, timeout).await
}
