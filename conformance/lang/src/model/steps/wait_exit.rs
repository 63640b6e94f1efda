//! `wait_exit`: wait for the server to exit on its own.

use super::{Build, Modifiers, NoArgs, StepKindInfo};

/// The descriptor of `wait_exit`.
pub const INFO: StepKindInfo = StepKindInfo {
    name: "wait_exit",
    doc: "Wait, without closing stdin, for the server to exit on its own within `within`.",
    observes: true,
    modifiers: &["within"],
};

/// What `wait_exit:` holds: nothing.
pub type Raw = NoArgs;

/// A `wait_exit` step.
#[derive(Debug, Clone)]
pub struct WaitExit;

pub(super) fn build(_: Raw, _: &mut Modifiers, _: &mut dyn Build) -> Option<(WaitExit, String)> {
    Some((WaitExit, INFO.name.to_string()))
}
