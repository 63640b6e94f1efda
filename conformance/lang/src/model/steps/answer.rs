//! `answer`: how the client answers a request the server sends it (`sampling/createMessage`,
//! `elicitation/create`, `roots/list`...) from this step on, while calls are in flight; the
//! engine's reader sends it. A request of a method with no answer gets -32601.

use super::{Build, KindValue, Modifiers, StepKindInfo};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

/// The descriptor of `answer`.
pub const INFO: StepKindInfo = StepKindInfo {
    name: "answer",
    doc: "From now on, answer the server's requests of `method` with `result` (or `error`); \
          the requests stay visible to `expect_message`.",
    observes: false,
    modifiers: &[],
};

/// What `answer:` holds.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Raw {
    /// The method of the server's requests to answer, e.g. `sampling/createMessage`.
    pub method: String,
    /// The result to answer with (variables expanded when the step runs).
    #[serde(default)]
    pub result: Option<Value>,
    /// Or a JSON-RPC error object (`{code, message}`) to answer with.
    #[serde(default)]
    pub error: Option<Value>,
}

impl KindValue for Raw {}

/// An `answer` step.
#[derive(Debug, Clone)]
pub struct Answer {
    pub method: String,
    /// `{"result": ...}` or `{"error": ...}`: the response without `jsonrpc` and `id`.
    pub body: Value,
}

pub(super) fn build(raw: Raw, _: &mut Modifiers, cx: &mut dyn Build) -> Option<(Answer, String)> {
    let body = match (raw.result, raw.error) {
        (Some(result), None) => serde_json::json!({ "result": result }),
        (None, Some(error)) => serde_json::json!({ "error": error }),
        _ => {
            cx.error("`answer` needs exactly one of `result` and `error`".into());
            return None;
        }
    };
    let label = format!("answer {}", raw.method);
    Some((
        Answer {
            method: raw.method,
            body,
        },
        label,
    ))
}
