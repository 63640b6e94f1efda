//! `stderr`: what the server wrote to stderr.

use super::{Build, Modifiers, NoArgs, StepKindInfo};

/// The descriptor of `stderr`.
pub const INFO: StepKindInfo = StepKindInfo {
    name: "stderr",
    doc: "The server's stderr so far; observation `{text, lines}`.",
    observes: true,
    modifiers: &["within", "every"],
};

/// What `stderr:` holds: nothing.
pub type Raw = NoArgs;

/// A `stderr` step.
#[derive(Debug, Clone)]
pub struct Stderr;

pub(super) fn build(_: Raw, _: &mut Modifiers, _: &mut dyn Build) -> Option<(Stderr, String)> {
    Some((Stderr, INFO.name.to_string()))
}
