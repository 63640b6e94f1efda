//! `contract`: compare the server's tools with a contract surface file.

use super::{Build, Modifiers, StepKindInfo, label};

/// The descriptor of `contract`.
pub const INFO: StepKindInfo = StepKindInfo {
    name: "contract",
    doc: "Compare `tools/list` with a contract surface file (JSON: tool names, annotations, input/output properties and required fields), relative to the scenario file; observation `{tools, missing, extra, mismatches}`.",
    observes: true,
    modifiers: &[],
};

/// What `contract:` holds: the contract surface file.
pub type Raw = String;

/// A `contract` step.
#[derive(Debug, Clone)]
pub struct Contract {
    /// The surface file, relative to the scenario file.
    pub file: String,
}

pub(super) fn build(file: Raw, _: &mut Modifiers, _: &mut dyn Build) -> Option<(Contract, String)> {
    let label = label(&INFO, &file);
    Some((Contract { file }, label))
}
