//! `file`: look at a path in the sandbox.

use super::{Build, Modifiers, StepKindInfo, label};

/// The descriptor of `file`.
pub const INFO: StepKindInfo = StepKindInfo {
    name: "file",
    doc: "Look at a path (relative to the server's `${workspace}`, or absolute); observation `{exists, kind, size, sha256, content, target, entries, mode}`.",
    observes: true,
    modifiers: &["within", "every", "skip_unless"],
};

/// What `file:` holds: the path.
pub type Raw = String;

/// A `file` step.
#[derive(Debug, Clone)]
pub struct File {
    /// The path (relative to the server's `${workspace}`, or absolute; interpolated when run).
    pub path: String,
}

pub(super) fn build(path: Raw, _: &mut Modifiers, _: &mut dyn Build) -> Option<(File, String)> {
    let label = label(&INFO, &path);
    Some((File { path }, label))
}
