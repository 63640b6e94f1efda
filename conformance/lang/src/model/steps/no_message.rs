//! `no_message`: check that no unsolicited message matches a pattern.

use super::{Build, Modifiers, RawPattern, StepKindInfo};
use serde_json::Value;

/// The descriptor of `no_message`.
pub const INFO: StepKindInfo = StepKindInfo {
    name: "no_message",
    doc: "Fail if any unsolicited message (not a response to this client's own requests) received so far, or within `within`, matches this pattern.",
    observes: false,
    modifiers: &["within"],
};

/// What `no_message:` holds: a pattern, with its position.
pub type Raw = RawPattern;

/// A `no_message` step.
#[derive(Debug, Clone)]
pub struct NoMessage {
    /// The pattern (checked when the scenario was loaded).
    pub pattern: Value,
}

pub(super) fn build(raw: Raw, _: &mut Modifiers, cx: &mut dyn Build) -> Option<(NoMessage, String)> {
    let pattern = cx.pattern(INFO.name, &raw.0);
    Some((NoMessage { pattern }, INFO.name.to_string()))
}
