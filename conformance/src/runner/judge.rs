//! What a failed step means for its scenario: a failure, a warning the scenario goes on
//! after, a warning it stops at, or a precondition that leaves the scenario unjudged.

use crate::model::{LevelPolicy, Step};
use crate::report::{Failure, FailureKind};

/// The scenario's course after a step failed.
pub(super) enum Judged {
    /// A warning; the next step runs.
    Continue,
    /// A warning; the scenario ends here and passes with its warnings.
    Stop,
    /// The scenario ends here, skipped for this reason (a precondition did not hold).
    Skip(String),
    /// The scenario fails.
    Fail(Box<Failure>),
}

/// Judges the failure of `step` (`None`: the scenario's deadline, which ends everything).
///
/// A check of level `should` that did not hold is a warning whether the level is the step's
/// or the whole scenario's, and the scenario goes on: the checks after it are still carried
/// out and reported. It stops there (passing with its warnings) only when later steps need
/// what the failed step would have left behind: variables it `save`s or the handle of a
/// `nowait` request ([`Step::captures`]). An assertion of a `skip_unless` step (a
/// precondition) leaves the scenario unjudged on this target. Anything else, a `must` or
/// `beyond` check or a scenario that could not run as written (an error, not an assertion),
/// fails it.
pub(super) fn judge(
    failure: Failure,
    step: Option<&Step>,
    policy: LevelPolicy,
    warnings: &mut Vec<Failure>,
) -> Judged {
    if failure.kind == FailureKind::Assertion
        && let Some(need) = step.and_then(|s| s.skip_unless.as_deref())
    {
        return Judged::Skip(format!(
            "precondition not met: {need} (the step `{}`: {})",
            step.map_or("", |s| s.label.as_str()),
            failure.message
        ));
    }
    if policy.warns(failure.level) && failure.kind == FailureKind::Assertion {
        warnings.push(failure);
        if step.is_none_or(Step::captures) {
            Judged::Stop
        } else {
            Judged::Continue
        }
    } else {
        Judged::Fail(Box::new(failure))
    }
}
