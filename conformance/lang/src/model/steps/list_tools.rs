//! `list_tools`: list the server's tools, every page.

use super::{Build, Modifiers, NoArgs, StepKindInfo};

/// The descriptor of `list_tools`.
pub const INFO: StepKindInfo = StepKindInfo {
    name: "list_tools",
    doc: "Send `tools/list` (following `nextCursor`); observation `{tools, result, error}`.",
    observes: true,
    modifiers: &[],
};

/// What `list_tools:` holds: nothing.
pub type Raw = NoArgs;

/// A `list_tools` step.
#[derive(Debug, Clone)]
pub struct ListTools;

pub(super) fn build(_: Raw, _: &mut Modifiers, _: &mut dyn Build) -> Option<(ListTools, String)> {
    Some((ListTools, INFO.name.to_string()))
}
