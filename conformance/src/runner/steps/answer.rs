//! `answer`: tells the session how to answer the server's requests of one method.

use super::StepFailure;
use crate::model::Step;
use crate::model::steps::answer::Answer;
use crate::runner::context::Run;
use serde_json::Value;
use std::time::Duration;

/// Runs one `answer` step: from now on the reader answers the method's requests so.
pub(super) async fn run(
    run: &Run<'_>,
    step: &Step,
    answer: &Answer,
    _: Duration,
) -> Result<Option<Value>, StepFailure> {
    let (_, s) = run.session(step.on.as_deref()).await?;
    s.answer_with(&run.expand_str(&answer.method)?, run.expand(&answer.body)?);
    Ok(None)
}
