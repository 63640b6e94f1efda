//! `expect_message`: waits for the next unconsumed message that matches a pattern.

use super::{StepFailure, compiled};
use crate::model::Step;
use crate::model::steps::expect_message::ExpectMessage;
use crate::runner::context::Run;
use serde_json::Value;
use std::time::Duration;

/// Runs one `expect_message` step.
pub(super) async fn run(
    run: &Run<'_>,
    step: &Step,
    expected: &ExpectMessage,
    timeout: Duration,
) -> Result<Option<Value>, StepFailure> {
    let (_, s) = run.session(step.on.as_deref()).await?;
    let pattern = run.expand(&expected.pattern)?;
    let compiled = compiled(&pattern, "`expect_message`")?;
    let within = step.within.unwrap_or(timeout);
    match s
        .take_message(within, |m| compiled.matches(m).is_ok())
        .await
    {
        Ok(m) => Ok(Some(m)),
        Err(_) => {
            let mut f = StepFailure::assertion(format!(
                "no message matching the pattern arrived within {within:?}"
            ));
            f.expected = Some(pattern);
            f.actual = Some(Value::Array(s.unconsumed()));
            Err(f)
        }
    }
}
