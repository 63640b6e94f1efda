//! `restart`: stop a server and start it again.

use super::{Build, Modifiers, NoArgs, StepKindInfo};

/// The descriptor of `restart`.
pub const INFO: StepKindInfo = StepKindInfo {
    name: "restart",
    doc: "Stop the server (stdin closed, killed after a grace period) and start it again.",
    observes: false,
    modifiers: &[],
};

/// What `restart:` holds: nothing.
pub type Raw = NoArgs;

/// A `restart` step.
#[derive(Debug, Clone)]
pub struct Restart;

pub(super) fn build(_: Raw, _: &mut Modifiers, _: &mut dyn Build) -> Option<(Restart, String)> {
    Some((Restart, INFO.name.to_string()))
}
