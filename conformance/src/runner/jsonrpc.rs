//! The JSON-RPC 2.0 check every scenario gets, whatever its steps: every message a server
//! writes is held to JSON-RPC 2.0 by its session (`session/check.rs`), and a message that
//! breaks it fails the scenario at level `must`.
//!
//! An answer a step waits for fails that step at once (the session ends the wait with it).
//! Any other such message (an answer to a request nobody waits for, a result with id null
//! in reply to a notification, an id of no request) is noticed after the step it arrived in
//! and judged once the scenario's own steps are done: the scenario's own checks keep the
//! first word, so a scenario still shows what it checks, and the liar still refutes each
//! one on its own assertions (the self-test). If every step held, the first such message
//! fails the scenario, at the step it arrived by.

use super::context::{Run, lock};
use super::steps::StepFailure;
use crate::model::Level;
use crate::report::Failure;
use crate::session::Violation;

/// The end of a failure's message that says the JSON-RPC check, not a step, failed it; the
/// self-test tells the two apart by it.
pub const JUDGED_AFTER_THE_STEPS: &str =
    "arrived by the end of this step; judged once the scenario's own steps were done";

/// The first message that broke JSON-RPC 2.0, and the top-level step it arrived by.
pub(super) type Noticed = Option<(usize, Violation)>;

impl Run<'_> {
    /// The first message that broke JSON-RPC 2.0 on any server the scenario started.
    pub(super) fn first_violation(&self) -> Option<Violation> {
        lock(&self.started).iter().find_map(|s| s.first())
    }

    /// Remembers the first violation, with the step it arrived by, once.
    pub(super) fn notice_violation(&self, index: usize, noticed: &mut Noticed) {
        if noticed.is_none() {
            *noticed = self.first_violation().map(|v| (index, v));
        }
    }

    /// The `must` failure for a message noticed by the end of step `index`.
    pub(super) fn violation_failure(&self, index: usize, v: &Violation) -> Failure {
        let step = self.scenario.steps.get(index);
        let mut f = StepFailure::violation(v);
        f.message = format!("{}\n({JUDGED_AFTER_THE_STEPS})", f.message);
        let mut failure = self.failure_for(step, index, f);
        failure.level = Level::Must;
        failure
    }
}
