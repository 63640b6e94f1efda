//! Run results and the report formats: a human stream, JSON, JUnit XML and a Markdown
//! summary.
//!
//! The runner emits [`RunEvent`]s; every report consumes them ([`Reporter`]). The files are
//! pure functions of the finished [`RunReport`] the last event carries, so the formats agree
//! with each other and can be snapshot-tested without starting a server.

mod block;
pub mod console;
mod events;
pub mod files;
pub mod human;
pub mod json;
pub mod junit;
pub mod markdown;
pub mod merge;

pub use events::{Reporter, RunEvent, StepRecord, replay};

use serde::{Deserialize, Serialize};
use std::time::Duration;

/// How one scenario ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Passed,
    Failed,
    Skipped,
}

/// Why a scenario failed: an expectation that did not hold, or something that stopped the
/// scenario from being judged at all (a server that would not start, a missing variable).
/// The self-test demands [`FailureKind::Assertion`] from the liar, so each scenario must be
/// refuted by its own assertions, not by a broken set-up.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FailureKind {
    /// An `expect`, `until` or deadline that the server did not meet.
    Assertion,
    /// The scenario could not run as written (sandbox, spawn, interpolation, I/O).
    Error,
}

pub use mcp_conformance_lang::model::Position;

/// Everything a reader needs to understand one failure without re-running it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Failure {
    pub kind: FailureKind,
    /// How binding the check that failed is: a `should` failure is a warning, a `beyond`
    /// failure is a guarantee stronger than the document.
    pub level: crate::model::Level,
    /// Zero-based index of the failing step in the scenario's `steps` (nested steps of a
    /// `parallel` block are reported by their own position).
    pub step: Option<usize>,
    /// Where the failing step starts in the scenario file.
    pub position: Option<Position>,
    /// A short label of the step, e.g. `call filesystem.write_file`.
    pub step_label: Option<String>,
    /// One or more lines explaining what went wrong.
    pub message: String,
    /// The expectation (a JSON pattern) where one applies.
    pub expected: Option<serde_json::Value>,
    /// What came back, where something did.
    pub actual: Option<serde_json::Value>,
    /// The last messages exchanged with the server, oldest first, one per line
    /// (`-> {...}` sent, `<- {...}` received).
    pub transcript: Vec<String>,
    /// The last lines the server wrote on stderr.
    pub stderr_tail: Vec<String>,
}

/// The outcome of one scenario.
#[derive(Debug, Clone)]
pub struct ScenarioResult {
    pub name: String,
    /// The scenario file as it was named on the command line (relative where possible).
    pub file: String,
    pub suite: String,
    pub tags: Vec<String>,
    pub status: Status,
    pub duration: Duration,
    pub skip_reason: Option<String>,
    pub failure: Option<Failure>,
    /// True when a baseline lists this scenario as an expected failure.
    pub baseline_expected_failure: bool,
    /// The scenario's own level (its steps may weigh differently).
    pub level: crate::model::Level,
    /// Checks of level `should` that did not hold; they leave the status as it is.
    pub warnings: Vec<Failure>,
    /// Where the scenario's rule is written, quoted (shown beside each failure).
    pub sources: Vec<crate::model::Source>,
}

/// Totals as printed on the closing line and in JSON.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Summary {
    pub passed: usize,
    pub failed: usize,
    pub skipped: usize,
    /// Checks of level `should` that did not hold, over all scenarios.
    pub warnings: usize,
}

/// A whole run against one target.
#[derive(Debug, Clone)]
pub struct RunReport {
    /// The target's name as declared in its file.
    pub target: String,
    /// The target file's path as named on the command line.
    pub target_file: String,
    pub scenarios: Vec<ScenarioResult>,
    pub duration: Duration,
    /// Baseline entries that passed in this run (each fails the run).
    pub stale_baseline: Vec<String>,
    /// Baseline entries that name no scenario of this run (reported, not failing).
    pub unknown_baseline: Vec<String>,
    /// One line per group of scenarios the run left out without listing them: those of
    /// suites a target does not claim, those of level `beyond` when not judged.
    pub not_judged: Vec<String>,
}

impl RunReport {
    /// Counts by status, in scenario order.
    pub fn summary(&self) -> Summary {
        let mut s = Summary::default();
        for r in &self.scenarios {
            s.warnings += r.warnings.len();
            match r.status {
                Status::Passed => s.passed += 1,
                Status::Failed => s.failed += 1,
                Status::Skipped => s.skipped += 1,
            }
        }
        s
    }

    /// The scenarios with a `should` check that did not hold, in order.
    pub fn warned(&self) -> Vec<&ScenarioResult> {
        self.scenarios
            .iter()
            .filter(|r| !r.warnings.is_empty())
            .collect()
    }

    /// True when the run should exit 0: every failure is expected by the baseline and no
    /// baseline entry went stale.
    pub fn is_success(&self) -> bool {
        self.stale_baseline.is_empty()
            && self
                .scenarios
                .iter()
                .all(|r| r.status != Status::Failed || r.baseline_expected_failure)
    }
}
