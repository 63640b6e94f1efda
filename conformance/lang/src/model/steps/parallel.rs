//! `parallel`: run steps at the same time; the step ends when all have.

use super::{Build, Modifiers, RawSteps, Step, StepKindInfo};

/// The descriptor of `parallel`.
pub const INFO: StepKindInfo = StepKindInfo {
    name: "parallel",
    doc: "Run these steps at the same time; the step ends when all have.",
    observes: false,
    modifiers: &[],
};

/// What `parallel:` holds: the steps.
pub type Raw = RawSteps;

/// A `parallel` step.
#[derive(Debug, Clone)]
pub struct Parallel {
    /// The steps run together.
    pub steps: Vec<Step>,
}

pub(super) fn build(raw: Raw, _: &mut Modifiers, cx: &mut dyn Build) -> Option<(Parallel, String)> {
    if raw.0.len() < 2 {
        cx.error("`parallel` needs at least two steps".into());
    }
    let steps = cx.block(raw.0, INFO.name);
    let label = format!("parallel ({} steps)", steps.len());
    Some((Parallel { steps }, label))
}
