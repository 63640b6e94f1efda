//! `admin`: the target's operator command, as an operator at a terminal would run it.

use super::StepFailure;
use crate::model::Step;
use crate::model::steps::admin::Admin;
use crate::runner::context::Run;
use serde_json::Value;
use std::time::Duration;

/// Runs one `admin` step.
pub(super) async fn run(
    run: &Run<'_>,
    step: &Step,
    admin: &Admin,
    timeout: Duration,
) -> Result<Option<Value>, StepFailure> {
    let index = run.server_index(step.on.as_deref());
    let slot = &run.servers[index];
    let mut inv = slot.admin.clone().ok_or_else(|| {
        StepFailure::error(format!(
            "target {} has no admin command",
            run.target.target.name
        ))
    })?;
    for a in &admin.args {
        inv.args.push(run.expand_str(a)?);
    }
    for (k, v) in &admin.env {
        inv.env.insert(k.clone(), run.expand_str(v)?);
    }
    let stdin = match &admin.stdin {
        Some(t) => Some(run.expand_str(t)?),
        None => None,
    };
    run.run_program(&inv, stdin.as_deref(), timeout)
        .await
        .map(Some)
}
