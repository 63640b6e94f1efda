//! `no_response`: check that a request sent with `nowait` stays unanswered.

use super::{Build, Modifiers, StepKindInfo, label};

/// The descriptor of `no_response`.
pub const INFO: StepKindInfo = StepKindInfo {
    name: "no_response",
    doc: "Fail if the request sent with `nowait: HANDLE` is answered (so far, or within `within`): e.g. a cancelled request must never be answered.",
    observes: false,
    modifiers: &["within"],
};

/// What `no_response:` holds: the handle of a `nowait` request.
pub type Raw = String;

/// A `no_response` step.
#[derive(Debug, Clone)]
pub struct NoResponse {
    /// The handle the request was sent with.
    pub handle: String,
}

pub(super) fn build(handle: Raw, _: &mut Modifiers, _: &mut dyn Build) -> Option<(NoResponse, String)> {
    let label = label(&INFO, &handle);
    Some((NoResponse { handle }, label))
}
