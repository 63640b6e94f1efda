//! `start`: start a server.

use super::{Build, Modifiers, NoArgs, StepKindInfo};

/// The descriptor of `start`.
pub const INFO: StepKindInfo = StepKindInfo {
    name: "start",
    doc: "Start a server declared with `start: false` (or one that was stopped).",
    observes: false,
    modifiers: &[],
};

/// What `start:` holds: nothing.
pub type Raw = NoArgs;

/// A `start` step.
#[derive(Debug, Clone)]
pub struct Start;

pub(super) fn build(_: Raw, _: &mut Modifiers, _: &mut dyn Build) -> Option<(Start, String)> {
    Some((Start, INFO.name.to_string()))
}
