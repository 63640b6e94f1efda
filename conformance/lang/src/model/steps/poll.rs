//! `poll`: call a tool again and again until its observation matches `until`.

use super::{Build, KindValue, Modifiers, StepKindInfo};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

/// The descriptor of `poll`.
pub const INFO: StepKindInfo = StepKindInfo {
    name: "poll",
    doc: "Repeat a call until `until` matches, within `within`, every `every`.",
    observes: true,
    modifiers: &["until", "within", "every"],
};

/// What `poll:` holds.
pub type Raw = PollSpec;

/// What `poll` repeats.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PollSpec {
    /// The tool to call.
    pub call: String,
    /// Its arguments.
    #[serde(default)]
    pub args: Option<Value>,
}

impl KindValue for PollSpec {}

/// A `poll` step.
#[derive(Debug, Clone)]
pub struct Poll {
    /// The tool to call.
    pub name: String,
    /// Its arguments (default `{}`).
    pub args: Option<Value>,
    /// The pattern the call's observation must come to match.
    pub until: Value,
}

pub(super) fn build(raw: Raw, m: &mut Modifiers, cx: &mut dyn Build) -> Option<(Poll, String)> {
    let label = format!("poll {}", raw.call);
    let Some(until) = m.until.take() else {
        cx.error("`poll` needs an `until` pattern".into());
        return None;
    };
    let poll = Poll {
        name: raw.call,
        args: raw.args,
        until,
    };
    Some((poll, label))
}
