//! `request`: send any request by method name.

use super::{Build, Modifiers, StepKindInfo, label};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

/// The descriptor of `request`.
pub const INFO: StepKindInfo = StepKindInfo {
    name: "request",
    doc: "Send any request by method name with `params`; observation `{result, error}`.",
    observes: true,
    modifiers: &["params", "meta", "rounds", "answer_inputs", "nowait"],
};

/// What `request:` holds: the method.
pub type Raw = String;

/// `answer_inputs`: input requests a server left outstanding (a task's `inputRequests`),
/// answered in the params' `inputResponses` the way `rounds` answers a round, so a scenario
/// can deliver answers whose keys only the server knows (`tasks/update`).
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AnswerInputs {
    /// The `inputRequests` map (usually `${saved}`): keys to request objects.
    pub from: Value,
    /// Answer only the first this many, in the map's order (default: all).
    #[serde(default)]
    pub take: Option<usize>,
}

/// A `request` step.
#[derive(Debug, Clone)]
pub struct Request {
    /// The method.
    pub method: String,
    /// Its params.
    pub params: Option<Value>,
    /// `_meta` of the request.
    pub meta: Option<Value>,
    /// Retries an `input_required` result may take (0: the first answer is the observation).
    pub rounds: u32,
    /// Input requests to answer in the params' `inputResponses`.
    pub answer_inputs: Option<AnswerInputs>,
    /// Do not wait: the handle an `await` step collects the response by.
    pub nowait: Option<String>,
}

pub(super) fn build(method: Raw, m: &mut Modifiers, _: &mut dyn Build) -> Option<(Request, String)> {
    let label = label(&INFO, &method);
    let request = Request {
        method,
        params: m.params.take(),
        meta: m.meta.take(),
        rounds: m.rounds.unwrap_or(0),
        answer_inputs: m.answer_inputs.take(),
        nowait: m.nowait.take(),
    };
    Some((request, label))
}
