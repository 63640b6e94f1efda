//! The one stream every report is fed from: what happened in a run, in the order it happened.
//!
//! The runner knows nothing of formats; it emits [`RunEvent`]s. Each report is a
//! [`Reporter`]: the human stream and its progress line follow scenarios as they start and
//! finish; the files (JSON, JUnit, Markdown) are written from the finished run. A new format
//! is one more consumer, and the runner does not change.

use super::{Position, RunReport, ScenarioResult};
use serde::Serialize;
use serde_json::Value;
use std::io;
use std::time::Duration;

/// One thing that happened in a run. Borrowed: a consumer that keeps something clones it.
#[derive(Debug, Clone, Copy)]
pub enum RunEvent<'a> {
    /// Before any scenario: the target and every scenario that will be reported, in order.
    RunStarted {
        target: &'a str,
        target_file: &'a str,
        scenarios: &'a [String],
    },
    /// A scenario began (one skipped before it started, under `--fail-fast`, never starts).
    ScenarioStarted { index: usize, name: &'a str },
    /// A top-level step of scenario `scenario` (its place in `RunStarted`'s list) ended.
    /// Steps of one scenario arrive in order, before its `ScenarioFinished`; a step cut off
    /// by the scenario's deadline has none. Reports made from a finished report (merged
    /// shards, [`replay`]) have no steps to tell.
    StepFinished {
        scenario: usize,
        step: &'a StepRecord,
    },
    /// A scenario ended, with its verdict; `index` is its place in `RunStarted`'s list.
    /// Scenarios run in parallel, so they finish in any order.
    ScenarioFinished {
        index: usize,
        result: &'a ScenarioResult,
    },
    /// The run is over: every scenario's result in order, the totals and the baseline.
    RunFinished { report: &'a RunReport },
}

/// One top-level step that ran, as [`RunEvent::StepFinished`] carries it: what a consumer
/// needs to follow a scenario as it goes (a timing, a live view, a recorder) without the
/// runner knowing it.
#[derive(Debug, Clone, Serialize)]
pub struct StepRecord {
    /// Its place among the scenario's top-level steps.
    pub index: usize,
    /// Its label (`call echo`).
    pub label: String,
    /// Where it is written.
    pub position: Position,
    /// How long it took, `expect` and `save` included.
    pub duration: Duration,
    /// Whether it passed; a failed step's details are in the scenario's failure.
    pub passed: bool,
    /// What it observed, when it observes something and passed.
    pub observation: Option<Value>,
    /// The first server's resident set after the step (`VmRSS`, KiB), when it runs.
    pub server_rss_kib: Option<u64>,
    /// The first server's peak resident set so far (`VmHWM`, KiB).
    pub server_peak_rss_kib: Option<u64>,
}

/// A consumer of the event stream: a report format, the progress line, a test's recorder.
pub trait Reporter {
    /// Takes one event. An error (a closed pipe, a file that cannot be written) is the
    /// reporter's own: the run goes on, and the caller decides what it means at the end.
    ///
    /// # Errors
    /// Whatever writing the report failed with.
    fn on_event(&mut self, event: RunEvent<'_>) -> io::Result<()>;
}

/// The events a run that produced `report` emitted, in order (scenarios finishing in input
/// order): what a report made after the fact, e.g. from merged shards, is fed.
pub fn replay(report: &RunReport, mut on_event: impl FnMut(RunEvent<'_>)) {
    let names: Vec<String> = report.scenarios.iter().map(|r| r.name.clone()).collect();
    on_event(RunEvent::RunStarted {
        target: &report.target,
        target_file: &report.target_file,
        scenarios: &names,
    });
    for (index, result) in report.scenarios.iter().enumerate() {
        on_event(RunEvent::ScenarioStarted {
            index,
            name: &result.name,
        });
        on_event(RunEvent::ScenarioFinished { index, result });
    }
    on_event(RunEvent::RunFinished { report });
}
