//! `call`: `tools/call`, with a fresh progress token when asked, or left to an `await`.

use super::rounds::Retry;
use super::{StepFailure, session_failure};
use crate::model::Step;
use crate::model::steps::call::Call;
use crate::runner::context::Run;
use crate::runner::context::lock;
use crate::runner::observe::{call_observation, output_check};
use serde_json::{Value, json};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// Progress tokens unique in this process, so rounds of a `repeat` never share one.
static PROGRESS_TOKENS: AtomicU64 = AtomicU64::new(1);

/// Runs one `call` step.
pub(super) async fn run(
    run: &Run<'_>,
    step: &Step,
    call: &Call,
    timeout: Duration,
) -> Result<Option<Value>, StepFailure> {
    let (index, s) = run.session(step.on.as_deref()).await?;
    let name = run.expand_str(&call.name)?;
    let mut params = json!({"name": name});
    params["arguments"] = match &call.args {
        Some(a) => run.expand(a)?,
        None => json!({}),
    };
    let mut meta = match &call.meta {
        Some(m) => run.expand(m)?,
        None => Value::Null,
    };
    let token = call.progress.then(|| {
        let n = PROGRESS_TOKENS.fetch_add(1, Ordering::Relaxed);
        json!(format!("conformance-progress-{n}"))
    });
    if let Some(t) = &token {
        if !meta.is_object() {
            meta = json!({});
        }
        meta["progressToken"] = t.clone();
    }
    if !meta.is_null() {
        params["_meta"] = meta;
    }
    if let Some(handle) = &call.nowait {
        let id = s
            .send_request("tools/call", Some(params))
            .await
            .map_err(session_failure)?;
        run.remember(handle, s.clone(), id, true, token);
        return Ok(None);
    }
    let retry = Retry {
        session: &s,
        method: "tools/call",
        params: Some(params.clone()),
        token: token.as_ref(),
        timeout,
    };
    let first = retry.send(Some(params)).await?;
    let (resp, rounds) = retry.complete(first, call.rounds).await?;
    let progress = token.map(|t| s.progress_for(&t)).unwrap_or_default();
    let mut observation = call_observation(&resp, progress);
    if call.rounds > 0 {
        observation["rounds"] = Value::Array(rounds);
    }
    let declared = lock(&run.declared_outputs).get(&(index, name)).cloned();
    observation["outputSchema"] = output_check(declared.as_ref(), &observation);
    Ok(Some(observation))
}
