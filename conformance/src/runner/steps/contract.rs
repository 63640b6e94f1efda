//! `contract`: `tools/list` compared with a contract surface file (`runner/contract.rs`).

use super::StepFailure;
use crate::model::Step;
use crate::model::steps::contract::Contract;
use crate::runner::context::{Run, lock};
use crate::runner::contract::{compare, is_clean, load_surface};
use serde_json::Value;
use std::path::PathBuf;
use std::time::Duration;

/// Runs one `contract` step.
pub(super) async fn run(
    run: &Run<'_>,
    step: &Step,
    contract: &Contract,
    timeout: Duration,
) -> Result<Option<Value>, StepFailure> {
    let (index, s) = run.session(step.on.as_deref()).await?;
    let listed = run.list_tools(index, &s, timeout, true).await?;
    let path = run.expand_str(&contract.file)?;
    let base = lock(&run.vars)
        .get("scenario_dir")
        .and_then(Value::as_str)
        .map(PathBuf::from)
        .unwrap_or_default();
    let surface = load_surface(&base.join(path)).map_err(StepFailure::error)?;
    let obs = compare(&surface, &listed["tools"]);
    if step.expect.is_none() && !is_clean(&obs) {
        let mut f = StepFailure::assertion("tools/list does not match the contract surface");
        f.actual = Some(obs);
        return Err(f);
    }
    Ok(Some(obs))
}
