//! `expect_message`: wait for a message from the server that matches a pattern.

use super::{Build, Modifiers, RawPattern, StepKindInfo};
use serde_json::Value;

/// The descriptor of `expect_message`.
pub const INFO: StepKindInfo = StepKindInfo {
    name: "expect_message",
    doc: "Wait for the next unconsumed message from the server that matches this pattern.",
    observes: true,
    modifiers: &["within"],
};

/// What `expect_message:` holds: a pattern, with its position.
pub type Raw = RawPattern;

/// A `expect_message` step.
#[derive(Debug, Clone)]
pub struct ExpectMessage {
    /// The pattern (checked when the scenario was loaded).
    pub pattern: Value,
}

pub(super) fn build(raw: Raw, _: &mut Modifiers, cx: &mut dyn Build) -> Option<(ExpectMessage, String)> {
    let pattern = cx.pattern(INFO.name, &raw.0);
    Some((ExpectMessage { pattern }, INFO.name.to_string()))
}
