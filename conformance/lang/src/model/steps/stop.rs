//! `stop`: close the server's stdin and wait for its exit.

use super::{Build, Modifiers, NoArgs, StepKindInfo};

/// The descriptor of `stop`.
pub const INFO: StepKindInfo = StepKindInfo {
    name: "stop",
    doc: "Close the server's stdin and wait for it to exit within `within`; observation `{exited, code, signal, stdout, stderr}`.",
    observes: true,
    modifiers: &["within"],
};

/// What `stop:` holds: nothing.
pub type Raw = NoArgs;

/// A `stop` step.
#[derive(Debug, Clone)]
pub struct Stop;

pub(super) fn build(_: Raw, _: &mut Modifiers, _: &mut dyn Build) -> Option<(Stop, String)> {
    Some((Stop, INFO.name.to_string()))
}
