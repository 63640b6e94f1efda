//! `request`: any request by method name, answered now or collected by an `await`.

use super::rounds::{Retry, answers};
use super::{StepFailure, session_failure};
use crate::model::Step;
use crate::model::steps::request::Request;
use crate::runner::context::Run;
use crate::runner::observe::response_observation;
use serde_json::{Value, json};
use std::time::Duration;

/// Runs one `request` step.
pub(super) async fn run(
    run: &Run<'_>,
    step: &Step,
    request: &Request,
    timeout: Duration,
) -> Result<Option<Value>, StepFailure> {
    let (_, s) = run.session(step.on.as_deref()).await?;
    let mut params = match &request.params {
        Some(p) => Some(run.expand(p)?),
        None => None,
    };
    if let Some(m) = &request.meta {
        let m = run.expand(m)?;
        let obj = params.get_or_insert_with(|| json!({}));
        if obj.is_object() {
            obj["_meta"] = m;
        }
    }
    let mut answered = None;
    if let Some(inputs) = &request.answer_inputs {
        let from = run.expand(&inputs.from)?;
        let Some(requests) = from.as_object() else {
            return Err(StepFailure::assertion(format!(
                "answer_inputs: `from` is not a map of input requests: {from}"
            )));
        };
        let responses = answers(&s, requests, inputs.take);
        let keys: Vec<&String> = requests.keys().collect();
        let (done, left): (Vec<&String>, Vec<&String>) =
            keys.into_iter().partition(|k| responses.contains_key(*k));
        answered = Some((json!(done), json!(left)));
        let obj = params.get_or_insert_with(|| json!({}));
        if obj.is_object() {
            obj["inputResponses"] = Value::Object(responses);
        }
    }
    let method = run.expand_str(&request.method)?;
    if let Some(handle) = &request.nowait {
        let id = s
            .send_request(&method, params)
            .await
            .map_err(session_failure)?;
        run.remember(handle, s.clone(), id, false, None);
        return Ok(None);
    }
    let retry = Retry {
        session: &s,
        method: &method,
        params: params.clone(),
        token: None,
        timeout,
    };
    let first = retry.send(params).await?;
    let (resp, rounds) = retry.complete(first, request.rounds).await?;
    let mut observation = response_observation(&resp);
    if request.rounds > 0 {
        observation["rounds"] = Value::Array(rounds);
    }
    if let Some((done, left)) = answered {
        observation["answered"] = done;
        observation["unanswered"] = left;
    }
    Ok(Some(observation))
}
