//! `stdout`: what the server wrote to stdout, parsed line by line.

use super::{Build, Modifiers, NoArgs, StepKindInfo};

/// The descriptor of `stdout`.
pub const INFO: StepKindInfo = StepKindInfo {
    name: "stdout",
    doc: "The server's stdout so far; observation `{messages, invalid, text}`.",
    observes: true,
    modifiers: &["within", "every"],
};

/// What `stdout:` holds: nothing.
pub type Raw = NoArgs;

/// A `stdout` step.
#[derive(Debug, Clone)]
pub struct Stdout;

pub(super) fn build(_: Raw, _: &mut Modifiers, _: &mut dyn Build) -> Option<(Stdout, String)> {
    Some((Stdout, INFO.name.to_string()))
}
