//! `repeat`: runs steps several times, with the round number in a variable.

use super::StepFailure;
use crate::model::Step;
use crate::model::steps::repeat::Repeat;
use crate::runner::context::{Run, lock};
use serde_json::{Value, json};
use std::time::Duration;

/// Runs one `repeat` step.
pub(super) async fn run(
    run: &Run<'_>,
    _: &Step,
    repeat: &Repeat,
    _: Duration,
) -> Result<Option<Value>, StepFailure> {
    for round in 1..=repeat.times {
        lock(&run.vars).set(repeat.var.clone(), json!(round));
        for inner in &repeat.steps {
            run.step(inner).await?;
        }
    }
    Ok(None)
}
