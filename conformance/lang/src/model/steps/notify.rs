//! `notify`: send a notification by method name.

use super::{Build, Modifiers, StepKindInfo, label};
use serde_json::Value;

/// The descriptor of `notify`.
pub const INFO: StepKindInfo = StepKindInfo {
    name: "notify",
    doc: "Send a notification by method name with `params`.",
    observes: false,
    modifiers: &["params"],
};

/// What `notify:` holds: the method.
pub type Raw = String;

/// A `notify` step.
#[derive(Debug, Clone)]
pub struct Notify {
    /// The method.
    pub method: String,
    /// Its params.
    pub params: Option<Value>,
}

pub(super) fn build(method: Raw, m: &mut Modifiers, _: &mut dyn Build) -> Option<(Notify, String)> {
    let label = label(&INFO, &method);
    let params = m.params.take();
    Some((Notify { method, params }, label))
}
