//! Multi round-trip requests (2026-07-28, SEP-2322), for a `call` or `request` step with
//! `rounds: N`: a result with `resultType: "input_required"` has its `inputRequests` answered
//! (each by its method: the `answer` step's script, else a neutral default) and the request
//! is retried, with a new id, carrying `inputResponses` and the `requestState` exactly as
//! received (none when none came), until a result of another kind, an error, or N retries.
//!
//! What the page makes the server's duty is judged on every round, at level must: at least
//! one of `inputRequests` and `requestState`; each input request an elicitation, sampling or
//! roots request; none for a capability the request did not declare.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Map, Value, json};

use super::{StepFailure, session_failure};
use crate::model::Level;
use crate::session::Session;

const MRTR: &str = "https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr";
/// The `_meta` key carrying a 2026-07-28 request's client capabilities.
const CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";

/// A request to send again, and how to wait for its answers.
pub(super) struct Retry<'a> {
    pub session: &'a Arc<Session>,
    pub method: &'a str,
    /// The params as the step wrote them (the session stamps `_meta` on each send).
    pub params: Option<Value>,
    /// The progress token the request carries, whose notifications extend the wait.
    pub token: Option<&'a Value>,
    pub timeout: Duration,
}

impl Retry<'_> {
    async fn answer(&self, id: &Value) -> Result<Value, StepFailure> {
        match self.token {
            Some(t) => {
                self.session
                    .response_with_progress(id, t, self.timeout)
                    .await
            }
            None => self.session.response(id, self.timeout).await,
        }
        .map_err(session_failure)
    }

    /// Sends the request once and reads its answer.
    pub async fn send(&self, params: Option<Value>) -> Result<Value, StepFailure> {
        let id = self
            .session
            .send_request(self.method, params)
            .await
            .map_err(session_failure)?;
        self.answer(&id).await
    }

    /// From the first answer to a complete one (or the last of `max` retries): the final
    /// answer, and each `input_required` result in the order it came. With `max` 0 the
    /// first answer is final, and still judged if it asks for input.
    pub async fn complete(
        &self,
        first: Value,
        max: u32,
    ) -> Result<(Value, Vec<Value>), StepFailure> {
        let declared = self.declared_capabilities();
        let mut answer = first;
        let mut rounds = Vec::new();
        while let Some(result) = input_required(&answer) {
            check_round(&result, &declared)?;
            rounds.push(result.clone());
            if rounds.len() > max as usize {
                break;
            }
            let mut params = self.params.clone().unwrap_or_else(|| json!({}));
            let Some(obj) = params.as_object_mut() else {
                break;
            };
            obj.insert(
                "inputResponses".into(),
                Value::Object(self.input_responses(&result)),
            );
            match result.get("requestState") {
                Some(state) => obj.insert("requestState".into(), state.clone()),
                None => obj.remove("requestState"),
            };
            answer = self.send(Some(params)).await?;
        }
        Ok((answer, rounds))
    }

    /// The client capabilities the request declares: its own `_meta`'s, else the session's.
    fn declared_capabilities(&self) -> Value {
        self.params
            .as_ref()
            .and_then(|p| {
                p.pointer(&format!(
                    "/_meta/{}",
                    CLIENT_CAPABILITIES.replace('/', "~1")
                ))
            })
            .cloned()
            .or_else(|| self.session.modern().map(|m| m.capabilities))
            .unwrap_or_else(|| json!({}))
    }

    /// An answer for each input request of a round.
    fn input_responses(&self, result: &Value) -> Map<String, Value> {
        match result.get("inputRequests").and_then(Value::as_object) {
            Some(requests) => answers(self.session, requests, None),
            None => Map::new(),
        }
    }
}

/// An answer for each input request (the first `take` of them, when given): the scripted
/// result of its method, else the default; a method scripted with an error gets no response
/// (the client could not).
pub(super) fn answers(
    session: &Session,
    requests: &Map<String, Value>,
    take: Option<usize>,
) -> Map<String, Value> {
    let mut out = Map::new();
    for (key, request) in requests.iter().take(take.unwrap_or(usize::MAX)) {
        let method = request.get("method").and_then(Value::as_str).unwrap_or("");
        let answer = match session.scripted_answer(method) {
            Some(script) => script.get("result").cloned(),
            None => default_answer(method),
        };
        if let Some(answer) = answer {
            out.insert(key.clone(), answer);
        }
    }
    out
}

/// The result, when the answer is an `input_required` one.
fn input_required(answer: &Value) -> Option<Value> {
    let result = answer.get("result")?;
    (result.get("resultType").and_then(Value::as_str) == Some("input_required"))
        .then(|| result.clone())
}

/// The capability an input request's method needs, for the three the page allows.
fn needed_capability(method: &str) -> Option<&'static str> {
    match method {
        "elicitation/create" => Some("elicitation"),
        "sampling/createMessage" => Some("sampling"),
        "roots/list" => Some("roots"),
        _ => None,
    }
}

/// What the page makes every `InputRequiredResult`'s duty.
fn check_round(result: &Value, declared: &Value) -> Result<(), StepFailure> {
    let requests = result.get("inputRequests");
    if requests.is_none() && result.get("requestState").is_none() {
        return Err(must(
            "an input_required result with neither inputRequests nor requestState",
            "Server Requirements (Basic Workflow)",
            "Servers MUST include at least one of inputRequests or requestState in every \
             InputRequiredResult response.",
            result,
        ));
    }
    let Some(requests) = requests else {
        return Ok(());
    };
    let Some(requests) = requests.as_object() else {
        return Err(must(
            "inputRequests is not an object (a map of keys to requests)",
            "InputRequests",
            "An InputRequests object is a map of server-client requests. Keys are \
             server-assigned string identifiers; values are request objects",
            result,
        ));
    };
    for (key, request) in requests {
        let method = request.get("method").and_then(Value::as_str).unwrap_or("");
        let Some(capability) = needed_capability(method) else {
            return Err(must(
                &format!("inputRequests[{key:?}] is a {method:?} request"),
                "Server Requirements (Basic Workflow)",
                "inputRequests values are request objects that MUST be one of ElicitRequest, \
                 CreateMessageRequest, or ListRootsRequest",
                result,
            ));
        };
        if declared.get(capability).is_none_or(Value::is_null) {
            return Err(must(
                &format!(
                    "inputRequests[{key:?}] asks for {method}, but the request declared no \
                     {capability} capability (clientCapabilities {declared})"
                ),
                "Server Requirements (Basic Workflow)",
                "Servers MUST NOT send an inputRequests that the client has not declared \
                 support for in its capabilities.",
                result,
            ));
        }
    }
    Ok(())
}

fn must(what: &str, section: &str, quote: &str, result: &Value) -> StepFailure {
    StepFailure {
        actual: Some(result.clone()),
        level: Some(Level::Must),
        ..StepFailure::assertion(format!("{what}\nMCP ({MRTR}, {section}): \"{quote}\""))
    }
}

/// What the client answers an input request nobody scripted: a sampled text, no roots, an
/// elicitation declined (a form's fields are the user's to fill).
fn default_answer(method: &str) -> Option<Value> {
    match method {
        "sampling/createMessage" => Some(json!({
            "role": "assistant",
            "content": {"type": "text", "text": "mcp-conformance sampled this answer"},
            "model": "mcp-conformance",
            "stopReason": "endTurn",
        })),
        "elicitation/create" => Some(json!({"action": "decline"})),
        "roots/list" => Some(json!({"roots": []})),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn first_line(r: Result<(), StepFailure>) -> String {
        r.err()
            .map(|f| f.message.lines().next().unwrap_or("").to_owned())
            .unwrap_or_default()
    }

    #[test]
    fn every_round_is_held_to_the_page() {
        let all = json!({"elicitation": {}, "sampling": {}, "roots": {}});
        let ask = |method: &str| json!({"resultType": "input_required", "inputRequests": {"k": {"method": method}}});
        assert!(check_round(&ask("elicitation/create"), &all).is_ok());
        assert!(check_round(&json!({"requestState": "s"}), &json!({})).is_ok());
        assert_eq!(
            first_line(check_round(&json!({"resultType": "input_required"}), &all)),
            "an input_required result with neither inputRequests nor requestState"
        );
        assert_eq!(
            first_line(check_round(&ask("roots/get"), &all)),
            "inputRequests[\"k\"] is a \"roots/get\" request"
        );
        let undeclared = check_round(&ask("sampling/createMessage"), &json!({"roots": {}}));
        assert!(first_line(undeclared.clone()).contains("declared no sampling capability"));
        let f = undeclared.expect_err("a failure");
        assert_eq!(f.level, Some(Level::Must));
        assert!(f.message.contains("Servers MUST NOT send an inputRequests"));
    }

    #[test]
    fn unscripted_input_requests_get_neutral_answers() {
        assert_eq!(
            default_answer("elicitation/create"),
            Some(json!({"action": "decline"}))
        );
        assert_eq!(default_answer("roots/list"), Some(json!({"roots": []})));
        assert!(default_answer("sampling/createMessage").is_some_and(|a| a["role"] == "assistant"));
        assert_eq!(default_answer("tools/call"), None);
    }
}
