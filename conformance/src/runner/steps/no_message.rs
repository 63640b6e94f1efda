//! `no_message`: no unsolicited message matches a pattern (so far, or within `within`).

use super::{StepFailure, compiled};
use crate::model::Step;
use crate::model::steps::no_message::NoMessage;
use crate::runner::context::Run;
use serde_json::{Value, json};
use std::time::Duration;

/// Runs one `no_message` step.
pub(super) async fn run(
    run: &Run<'_>,
    step: &Step,
    unwanted: &NoMessage,
    _: Duration,
) -> Result<Option<Value>, StepFailure> {
    let (_, s) = run.session(step.on.as_deref()).await?;
    let pattern = run.expand(&unwanted.pattern)?;
    let compiled = compiled(&pattern, "`no_message`")?;
    // Unsolicited messages only: responses to our own requests are checked with
    // `no_response`.
    let within = step.within.unwrap_or(Duration::ZERO);
    let seen = s
        .find_any_message(within, |m| compiled.matches(m).is_ok())
        .await;
    match seen {
        None => Ok(None),
        Some(m) => {
            let mut f = StepFailure::assertion("a message arrived that must not have");
            f.expected = Some(json!({"$not": pattern}));
            f.actual = Some(m);
            Err(f)
        }
    }
}
