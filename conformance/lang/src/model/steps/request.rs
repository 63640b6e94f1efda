//! `request`: send any request by method name.

use super::{Build, Modifiers, StepKindInfo, label};
use serde_json::Value;

/// The descriptor of `request`.
pub const INFO: StepKindInfo = StepKindInfo {
    name: "request",
    doc: "Send any request by method name with `params`; observation `{result, error}`.",
    observes: true,
    modifiers: &["params", "meta", "rounds", "nowait"],
};

/// What `request:` holds: the method.
pub type Raw = String;

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
        nowait: m.nowait.take(),
    };
    Some((request, label))
}
