//! Running scenarios against a target: selection, parallel scheduling with a sandbox each,
//! and the baseline of expected failures.

mod act;
pub mod context;
mod contract;
mod observe;
pub mod scenario;
mod steps;

pub use context::TargetCtx;
pub use scenario::{StepTiming, run_scenario, run_scenario_timed, skip_reason};

use crate::model::Scenario;
use crate::report::{RunReport, ScenarioResult, Status};
use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Instant;
use tokio::sync::{Semaphore, mpsc};

/// How to run a set of scenarios.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// Scenarios at once.
    pub jobs: usize,
    /// Stop starting scenarios after the first unexpected failure.
    pub fail_fast: bool,
    /// Scenario names expected to fail.
    pub baseline: Option<BTreeSet<String>>,
}

/// Runs every scenario, calling `on_start`/`on_finish` as each starts and ends (for the
/// human report and the progress line), and returns the whole report in input order.
pub async fn run_all(
    tctx: Arc<TargetCtx>,
    scenarios: Vec<Scenario>,
    options: &RunOptions,
    mut on_start: impl FnMut(&str),
    mut on_finish: impl FnMut(&ScenarioResult),
) -> RunReport {
    let started = Instant::now();
    let semaphore = Arc::new(Semaphore::new(options.jobs.max(1)));
    let (tx, mut rx) = mpsc::unbounded_channel::<Event>();
    let baseline = options.baseline.clone().unwrap_or_default();
    let total = scenarios.len();
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    for (index, scenario) in scenarios.into_iter().enumerate() {
        let tctx = tctx.clone();
        let tx = tx.clone();
        let semaphore = semaphore.clone();
        let stop = stop.clone();
        tokio::spawn(async move {
            let Ok(_permit) = semaphore.acquire_owned().await else {
                return;
            };
            let mut result = if stop.load(std::sync::atomic::Ordering::SeqCst) {
                skipped(
                    &scenario,
                    "not run: an earlier scenario failed (--fail-fast)",
                )
            } else {
                let _ = tx.send(Event::Started(scenario.name.clone()));
                run_scenario(&tctx, &scenario).await
            };
            result.baseline_expected_failure = false;
            let _ = tx.send(Event::Finished(index, Box::new(result)));
        });
    }
    drop(tx);
    let mut results: Vec<Option<ScenarioResult>> = (0..total).map(|_| None).collect();
    while let Some(event) = rx.recv().await {
        match event {
            Event::Started(name) => on_start(&name),
            Event::Finished(index, result) => {
                let mut result = *result;
                result.baseline_expected_failure =
                    result.status == Status::Failed && baseline.contains(&result.name);
                if options.fail_fast
                    && result.status == Status::Failed
                    && !result.baseline_expected_failure
                {
                    stop.store(true, std::sync::atomic::Ordering::SeqCst);
                }
                on_finish(&result);
                results[index] = Some(result);
            }
        }
    }
    let scenarios: Vec<ScenarioResult> = results.into_iter().flatten().collect();
    let names: BTreeSet<&str> = scenarios.iter().map(|r| r.name.as_str()).collect();
    let stale_baseline = scenarios
        .iter()
        .filter(|r| r.status == Status::Passed && baseline.contains(&r.name))
        .map(|r| r.name.clone())
        .collect();
    let unknown_baseline = baseline
        .iter()
        .filter(|b| !names.contains(b.as_str()))
        .cloned()
        .collect();
    RunReport {
        target: tctx.target.name.clone(),
        target_file: tctx.display.clone(),
        scenarios,
        duration: started.elapsed(),
        stale_baseline,
        unknown_baseline,
    }
}

enum Event {
    Started(String),
    Finished(usize, Box<ScenarioResult>),
}

fn skipped(scenario: &Scenario, reason: &str) -> ScenarioResult {
    ScenarioResult {
        name: scenario.name.clone(),
        file: scenario.file.clone(),
        suite: scenario.suite.clone(),
        tags: scenario.tags.clone(),
        status: Status::Skipped,
        duration: std::time::Duration::ZERO,
        skip_reason: Some(reason.to_string()),
        failure: None,
        baseline_expected_failure: false,
    }
}
