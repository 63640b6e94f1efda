//! `set`: sets variables (values expanded now).

use super::StepFailure;
use crate::model::Step;
use crate::model::steps::set::Set;
use crate::runner::context::{Run, lock};
use serde_json::Value;
use std::time::Duration;

/// Runs one `set` step.
pub(super) async fn run(
    run: &Run<'_>,
    _: &Step,
    set: &Set,
    _: Duration,
) -> Result<Option<Value>, StepFailure> {
    for (k, v) in &set.values {
        let value = run.expand(v)?;
        lock(&run.vars).set(k.clone(), value);
    }
    Ok(None)
}
