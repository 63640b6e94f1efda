//! `processes`: count which recorded processes are still alive (nothing may outlive a
//! server).

use super::{Build, KindValue, Modifiers, StepKindInfo, label};
use schemars::JsonSchema;
use serde::Deserialize;

/// The descriptor of `processes`.
pub const INFO: StepKindInfo = StepKindInfo {
    name: "processes",
    doc: "Count the recorded processes still alive; observation `{recorded, alive, alive_pids}`.",
    observes: true,
    modifiers: &["within", "every"],
};

/// What `processes:` holds.
pub type Raw = ProcessesSpec;

/// Options of `processes`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ProcessesSpec {
    /// A file with one pid per line (as the probe's `--pidfile` writes).
    pub pidfile: String,
}

impl KindValue for ProcessesSpec {}

/// A `processes` step.
#[derive(Debug, Clone)]
pub struct Processes {
    /// The file of pids (interpolated when run).
    pub pidfile: String,
}

pub(super) fn build(raw: Raw, _: &mut Modifiers, _: &mut dyn Build) -> Option<(Processes, String)> {
    let label = label(&INFO, &raw.pidfile);
    Some((Processes { pidfile: raw.pidfile }, label))
}
