//! Running scenarios against a target: selection, parallel scheduling with a sandbox each,
//! and the baseline of expected failures.

mod act;
pub mod context;
mod contract;
mod observe;
mod open;
pub mod plan;
pub mod scenario;
mod steps;

pub use context::TargetCtx;
pub use plan::plan;
pub use scenario::{StepTiming, create_sandbox, run_scenario, run_scenario_timed, skip_reason};

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
    let target_name = tctx.target.name.clone();
    let target_file = tctx.display.clone();
    let semaphore = Arc::new(Semaphore::new(options.jobs.max(1)));
    let (tx, mut rx) = mpsc::unbounded_channel::<Event>();
    let baseline = Arc::new(options.baseline.clone().unwrap_or_default());
    let fail_fast = options.fail_fast;
    let total = scenarios.len();
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    // One dispatcher takes the permits in scenario order, so scenarios start in order and
    // a failure seen under --fail-fast stops everything not yet started.
    let dispatcher = {
        let tx = tx.clone();
        let stop = stop.clone();
        let baseline = baseline.clone();
        tokio::spawn(async move {
            for (index, scenario) in scenarios.into_iter().enumerate() {
                let Ok(permit) = semaphore.clone().acquire_owned().await else {
                    return;
                };
                let tctx = tctx.clone();
                let tx = tx.clone();
                let stop = stop.clone();
                let baseline = baseline.clone();
                tokio::spawn(async move {
                    let _permit = permit;
                    let mut result = if stop.load(std::sync::atomic::Ordering::SeqCst) {
                        skipped(
                            &scenario,
                            "not run: an earlier scenario failed (--fail-fast)",
                        )
                    } else {
                        let _ = tx.send(Event::Started(scenario.name.clone()));
                        run_scenario(&tctx, &scenario).await
                    };
                    result.baseline_expected_failure =
                        result.status == Status::Failed && baseline.contains(&result.name);
                    // Decided before this scenario's permit is released, so the next one
                    // cannot start after an unexpected failure.
                    if fail_fast
                        && result.status == Status::Failed
                        && !result.baseline_expected_failure
                    {
                        stop.store(true, std::sync::atomic::Ordering::SeqCst);
                    }
                    let _ = tx.send(Event::Finished(index, Box::new(result)));
                });
            }
        })
    };
    drop(tx);
    let mut results: Vec<Option<ScenarioResult>> = (0..total).map(|_| None).collect();
    while let Some(event) = rx.recv().await {
        match event {
            Event::Started(name) => on_start(&name),
            Event::Finished(index, result) => {
                let result = *result;
                on_finish(&result);
                results[index] = Some(result);
            }
        }
    }
    let _ = dispatcher.await;
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
        target: target_name,
        target_file,
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
