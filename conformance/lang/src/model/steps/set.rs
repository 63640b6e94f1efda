//! `set`: set variables (values are expanded when the step runs).

use super::{Build, Modifiers, StepKindInfo};
use indexmap::IndexMap;
use serde_json::Value;

/// The descriptor of `set`.
pub const INFO: StepKindInfo = StepKindInfo {
    name: "set",
    doc: "Set variables (values are expanded).",
    observes: false,
    modifiers: &[],
};

/// What `set:` holds: the variables, in order.
pub type Raw = IndexMap<String, Value>;

/// A `set` step.
#[derive(Debug, Clone)]
pub struct Set {
    /// Name and (unexpanded) value of each variable, in order.
    pub values: IndexMap<String, Value>,
}

pub(super) fn build(values: Raw, _: &mut Modifiers, _: &mut dyn Build) -> Option<(Set, String)> {
    Some((Set { values }, INFO.name.to_string()))
}
