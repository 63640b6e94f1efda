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
        // The message it waited for came, and breaks JSON-RPC 2.0 (an answer with both result
        // and error...): that is the failure, not whatever the pattern left unsaid.
        Ok(m) => match s.violations().into_iter().find(|v| v.message == m) {
            Some(v) => Err(StepFailure::violation(&v)),
            None => Ok(Some(m)),
        },
        Err(_) => {
            let waited = format!("no message matching the pattern arrived within {within:?}");
            let violations = s.violations();
            // An answer to one of the requests we wrote that breaks JSON-RPC 2.0 (an id of
            // another type, result and error together): what the wait was likely for, and a
            // failure in itself.
            if let Some(v) = violations.iter().find(|v| v.answers.is_some()) {
                let mut f = StepFailure::violation(v);
                f.message = format!("{}\n({waited})", f.message);
                f.expected = Some(pattern);
                return Err(f);
            }
            let mut message = waited;
            for v in violations.iter().take(3) {
                message.push_str("\nmeanwhile the server sent ");
                message.push_str(&v.report());
            }
            let mut f = StepFailure::assertion(message);
            f.expected = Some(pattern);
            f.actual = Some(Value::Array(s.unconsumed()));
            Err(f)
        }
    }
}
