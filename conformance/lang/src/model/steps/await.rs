//! `await`: collect the response of a request sent with `nowait`.

use super::{Build, Modifiers, StepKindInfo, label};

/// The descriptor of `await`.
pub const INFO: StepKindInfo = StepKindInfo {
    name: "await",
    doc: "Wait for the response of an earlier step sent with `nowait: HANDLE`.",
    observes: true,
    modifiers: &[],
};

/// What `await:` holds: the handle of a `nowait` request.
pub type Raw = String;

/// A `await` step.
#[derive(Debug, Clone)]
pub struct Await {
    /// The handle the request was sent with.
    pub handle: String,
}

pub(super) fn build(handle: Raw, _: &mut Modifiers, _: &mut dyn Build) -> Option<(Await, String)> {
    let label = label(&INFO, &handle);
    Some((Await { handle }, label))
}
