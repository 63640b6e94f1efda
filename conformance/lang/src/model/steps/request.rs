//! `request`: send any request by method name.

use super::{Build, Modifiers, StepKindInfo, label};
use serde_json::Value;

/// The descriptor of `request`.
pub const INFO: StepKindInfo = StepKindInfo {
    name: "request",
    doc: "Send any request by method name with `params`; observation `{result, error}`.",
    observes: true,
    modifiers: &["params", "meta", "nowait"],
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
    /// Do not wait: the handle an `await` step collects the response by.
    pub nowait: Option<String>,
}

pub(super) fn build(method: Raw, m: &mut Modifiers, _: &mut dyn Build) -> Option<(Request, String)> {
    let label = label(&INFO, &method);
    let request = Request {
        method,
        params: m.params.take(),
        meta: m.meta.take(),
        nowait: m.nowait.take(),
    };
    Some((request, label))
}
