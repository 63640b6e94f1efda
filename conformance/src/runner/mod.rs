//! Running scenarios against a target: selection, parallel scheduling with a sandbox each,
//! and the baseline of expected failures.

pub mod context;
mod contract;
pub mod jsonrpc;
mod judge;
mod observe;
mod open;
pub mod order;
pub mod plan;
pub mod scenario;
pub mod share;
mod steps;

pub use context::TargetCtx;
pub use plan::plan;
pub use scenario::{
    blank_result, create_sandbox, run_scenario, run_scenario_observed, skip_reason, skipped_result,
};

use crate::model::{Level, LevelPolicy, Scenario};
use crate::report::{
    Failure, FailureKind, RunEvent, RunReport, ScenarioResult, Status, StepRecord,
};
use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Instant;
use tokio::sync::{Semaphore, mpsc};

/// How to run a set of scenarios.
#[derive(Debug, Clone, Default)]
pub struct RunOptions {
    /// Scenarios at once.
    pub jobs: usize,
    /// Stop starting scenarios after the first unexpected failure.
    pub fail_fast: bool,
    /// Scenario names expected to fail.
    pub baseline: Option<BTreeSet<String>>,
    /// What the run makes of `should` checks (`strict`), and of `beyond` checks when
    /// [`RunOptions::beyond`] leaves them to the target.
    pub levels: LevelPolicy,
    /// Whether `beyond` checks are judged: as each target declares (`beyond: true`), or
    /// for every target (`--beyond`) or none (`--no-beyond`).
    pub beyond: BeyondChoice,
    /// Lines about scenarios this run left out as a group (suites a target does not claim,
    /// levels not judged), carried into the report ([`RunReport::not_judged`]).
    pub not_judged: Vec<String>,
}

/// Who decides whether checks of level `beyond` are judged.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum BeyondChoice {
    /// [`RunOptions::levels`] decides, whatever the target says (internal runs: discovery,
    /// sweep replays).
    #[default]
    AsLevels,
    /// Each target's `beyond:` declaration decides (a run's default).
    AsTargetDeclares,
    /// Judged for every target (`--beyond`).
    Always,
    /// Judged for no target (`--no-beyond`).
    Never,
}

impl RunOptions {
    /// The level policy `tctx` is judged under.
    pub fn levels_for(&self, tctx: &TargetCtx) -> LevelPolicy {
        let beyond = match self.beyond {
            BeyondChoice::AsLevels => self.levels.beyond,
            BeyondChoice::AsTargetDeclares => tctx.target.beyond,
            BeyondChoice::Always => true,
            BeyondChoice::Never => false,
        };
        LevelPolicy {
            strict: self.levels.strict,
            beyond,
        }
    }
}

/// Runs every scenario against its target, telling `on_event` what happens as it happens
/// (the reports are its consumers: [`crate::report::Reporter`]), and returns the whole report
/// in input order (the same report the last event, `RunFinished`, carries).
///
/// `targets` pairs each target with the scenarios judged against it. With more than one, the
/// run is still one report: each scenario is named after its target (`reference-hub:
/// protocol/ping`), and the report's target is the list of them.
pub async fn run_all(
    targets: Vec<(Arc<TargetCtx>, Vec<Scenario>)>,
    options: &RunOptions,
    mut on_event: impl FnMut(RunEvent<'_>),
) -> RunReport {
    let started = Instant::now();
    let qualify = targets.len() > 1;
    let target_name = joined(targets.iter().map(|(t, _)| t.target.name.as_str()));
    let target_file = joined(targets.iter().map(|(t, _)| t.display.as_str()));
    let mut entries: Vec<(Arc<TargetCtx>, Scenario)> = Vec::new();
    for (tctx, scenarios) in targets {
        for mut scenario in scenarios {
            if qualify {
                scenario.name = format!("{}: {}", tctx.target.name, scenario.name);
            }
            entries.push((tctx.clone(), scenario));
        }
    }
    let names: Vec<String> = entries.iter().map(|(_, s)| s.name.clone()).collect();
    on_event(RunEvent::RunStarted {
        target: &target_name,
        target_file: &target_file,
        scenarios: &names,
    });
    let semaphore = Arc::new(Semaphore::new(options.jobs.max(1)));
    let (tx, mut rx) = mpsc::unbounded_channel::<Event>();
    let baseline = Arc::new(options.baseline.clone().unwrap_or_default());
    let fail_fast = options.fail_fast;
    let options_for_levels = options.clone();
    let unreported: Vec<Scenario> = entries.iter().map(|(_, s)| s.clone()).collect();
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    // One dispatcher takes the permits in start order, so a failure seen under --fail-fast
    // stops everything not yet started.
    let dispatcher = {
        let tx = tx.clone();
        let stop = stop.clone();
        let baseline = baseline.clone();
        // Started longest wait first (see [`order`]); every event keeps the scenario's own
        // index, so reports list them in their own order.
        let order = order::start_order(&entries.iter().map(|(_, s)| s).collect::<Vec<_>>());
        let mut slots: Vec<Option<(Arc<TargetCtx>, Scenario)>> =
            entries.into_iter().map(Some).collect();
        tokio::spawn(async move {
            for index in order {
                let Some((tctx, scenario)) = slots.get_mut(index).and_then(Option::take) else {
                    continue;
                };
                let Ok(permit) = semaphore.clone().acquire_owned().await else {
                    return;
                };
                let tx = tx.clone();
                let stop = stop.clone();
                let baseline = baseline.clone();
                let levels = options_for_levels.levels_for(&tctx);
                tokio::spawn(async move {
                    let _permit = permit;
                    let mut result = if stop.load(std::sync::atomic::Ordering::SeqCst) {
                        skipped_result(
                            &scenario,
                            "not run: an earlier scenario failed (--fail-fast)".to_string(),
                        )
                    } else {
                        let _ = tx.send(Event::Started(index));
                        let steps = tx.clone();
                        let mut on_step = move |record: StepRecord| {
                            let _ = steps.send(Event::Step(index, Box::new(record)));
                        };
                        let run = run_scenario_observed(&tctx, &scenario, levels, &mut on_step);
                        guard_panic(&scenario, run).await
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
    let mut results: Vec<Result<ScenarioResult, Scenario>> =
        unreported.into_iter().map(Err).collect();
    while let Some(event) = rx.recv().await {
        match event {
            Event::Started(index) => on_event(RunEvent::ScenarioStarted {
                index,
                name: &names[index],
            }),
            Event::Step(scenario, step) => on_event(RunEvent::StepFinished {
                scenario,
                step: &step,
            }),
            Event::Finished(index, result) => {
                let result = *result;
                on_event(RunEvent::ScenarioFinished {
                    index,
                    result: &result,
                });
                results[index] = Ok(result);
            }
        }
    }
    let _ = dispatcher.await;
    // Every scenario is in the report: one whose task ended without a word (it cannot,
    // with `guard_panic`, but a report must never shrink silently) fails as an error.
    let scenarios: Vec<ScenarioResult> = results
        .into_iter()
        .enumerate()
        .map(|(index, r)| {
            r.unwrap_or_else(|scenario| {
                let result = error_result(&scenario, "the scenario ended without a result");
                on_event(RunEvent::ScenarioFinished {
                    index,
                    result: &result,
                });
                result
            })
        })
        .collect();
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
    let report = RunReport {
        target: target_name,
        target_file,
        scenarios,
        duration: started.elapsed(),
        stale_baseline,
        unknown_baseline,
        not_judged: options.not_judged.clone(),
    };
    on_event(RunEvent::RunFinished { report: &report });
    report
}

/// Several names as one (`a, b`), for a run over several targets.
fn joined<'a>(names: impl Iterator<Item = &'a str>) -> String {
    names.collect::<Vec<_>>().join(", ")
}

/// What a scenario's task tells the run, in the order it happens.
enum Event {
    Started(usize),
    Step(usize, Box<StepRecord>),
    Finished(usize, Box<ScenarioResult>),
}

/// Runs a scenario's future, turning a panic inside it into an `error` result that fails
/// the run: a scenario must never drop out of the report.
async fn guard_panic(
    scenario: &Scenario,
    run: impl std::future::Future<Output = ScenarioResult>,
) -> ScenarioResult {
    use futures::FutureExt;
    match std::panic::AssertUnwindSafe(run).catch_unwind().await {
        Ok(result) => result,
        Err(panic) => {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| (*s).to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "a panic without a message".to_string());
            error_result(
                scenario,
                &format!("the suite panicked while running this scenario: {what}"),
            )
        }
    }
}

/// A failed result of kind `error`: the suite could not judge the scenario.
fn error_result(scenario: &Scenario, message: &str) -> ScenarioResult {
    ScenarioResult {
        status: Status::Failed,
        failure: Some(Failure {
            kind: FailureKind::Error,
            level: Level::Must,
            step: None,
            position: None,
            step_label: None,
            message: message.to_string(),
            expected: None,
            actual: None,
            transcript: Vec::new(),
            stderr_tail: Vec::new(),
        }),
        ..blank_result(scenario)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scenario() -> Scenario {
        crate::model::parse_scenario(
            "name: x/panics\nsuite: x\nsteps:\n  - list_tools: {}\n",
            "x.yaml",
        )
        .expect("a valid scenario")
    }

    #[tokio::test]
    async fn a_panicking_scenario_is_reported_as_an_error() {
        let scenario = scenario();
        let result = guard_panic(&scenario, async {
            panic!("boom in step 3");
        })
        .await;
        assert_eq!(result.status, Status::Failed);
        assert_eq!(result.name, "x/panics");
        let failure = result.failure.expect("a failure");
        assert_eq!(failure.kind, FailureKind::Error);
        assert!(
            failure.message.contains("boom in step 3"),
            "{}",
            failure.message
        );
    }

    #[tokio::test]
    async fn a_panic_with_a_formatted_message_keeps_it() {
        let scenario = scenario();
        let n = 7;
        let result = guard_panic(&scenario, async move {
            panic!("index {n} out of range");
        })
        .await;
        let failure = result.failure.expect("a failure");
        assert!(
            failure.message.contains("index 7 out of range"),
            "{}",
            failure.message
        );
    }
}
