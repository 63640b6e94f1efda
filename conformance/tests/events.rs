//! The run's event stream as a consumer sees it: a real run of the fixture server through
//! `runner::run_all`, recorded. Every top-level step that ran arrives as `StepFinished`, in
//! order, with its timing and observation, before its scenario's `ScenarioFinished`.

use mcp_conformance::builtin;
use mcp_conformance::model::{self, LevelPolicy};
use mcp_conformance::report::RunEvent;
use mcp_conformance::runner::{RunOptions, TargetCtx, run_all};
use std::path::PathBuf;
use std::sync::Arc;

/// What the recorder keeps of each event.
#[derive(Debug, PartialEq)]
enum Seen {
    RunStarted(usize),
    ScenarioStarted(usize),
    Step {
        scenario: usize,
        index: usize,
        label: String,
        passed: bool,
        observed: bool,
    },
    ScenarioFinished(usize, String),
    RunFinished,
}

fn fixture_target() -> TargetCtx {
    let (display, text) = builtin::target("fixture").expect("the built-in fixture target");
    let target = model::parse_target(text, &display).expect("it parses");
    TargetCtx {
        target,
        display,
        dir: PathBuf::from("."),
        exe: PathBuf::from(env!("CARGO_BIN_EXE_mcp-conformance")),
        pool: None,
    }
}

fn scenario(name: &str, steps: &str) -> model::Scenario {
    let text = format!("name: {name}\nsuite: protocol\nsteps:\n{steps}");
    model::parse_scenario(&text, name).expect("a valid scenario")
}

#[test]
fn every_step_that_ran_is_an_event_in_order_before_its_scenario_ends() {
    let passing = scenario(
        "events/passing",
        "  - initialize: {}\n  - list_tools:\n    expect: {tools: {$len: {$gt: 0}}}\n  - notify: notifications/ping-nothing\n",
    );
    let failing = scenario(
        "events/failing",
        "  - initialize: {}\n  - call: echo\n    args: {text: hi}\n    expect: {text: nope}\n  - list_tools: {}\n",
    );
    let options = RunOptions {
        jobs: 2,
        fail_fast: false,
        baseline: None,
        levels: LevelPolicy::default(),
        ..RunOptions::default()
    };
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let mut seen = Vec::new();
    let mut durations = Vec::new();
    let report = runtime.block_on(run_all(
        vec![(Arc::new(fixture_target()), vec![passing, failing])],
        &options,
        |event| {
            seen.push(match event {
                RunEvent::RunStarted { scenarios, .. } => Seen::RunStarted(scenarios.len()),
                RunEvent::ScenarioStarted { index, .. } => Seen::ScenarioStarted(index),
                RunEvent::StepFinished { scenario, step } => {
                    durations.push(step.duration);
                    Seen::Step {
                        scenario,
                        index: step.index,
                        label: step.label.clone(),
                        passed: step.passed,
                        observed: step.observation.is_some(),
                    }
                }
                RunEvent::ScenarioFinished { index, result } => {
                    Seen::ScenarioFinished(index, format!("{:?}", result.status))
                }
                RunEvent::RunFinished { .. } => Seen::RunFinished,
            })
        },
    ));
    assert_eq!(report.scenarios.len(), 2);
    assert_eq!(seen.first(), Some(&Seen::RunStarted(2)));
    assert_eq!(seen.last(), Some(&Seen::RunFinished));

    // Scenarios run at once, so their events interleave; each scenario's own are in order.
    let of = |n: usize| -> Vec<&Seen> {
        seen.iter()
            .filter(|e| match e {
                Seen::ScenarioStarted(i) | Seen::ScenarioFinished(i, _) => *i == n,
                Seen::Step { scenario, .. } => *scenario == n,
                _ => false,
            })
            .collect()
    };
    let step = |scenario, index, label: &str, passed, observed| Seen::Step {
        scenario,
        index,
        label: label.to_string(),
        passed,
        observed,
    };
    assert_eq!(
        of(0),
        vec![
            &Seen::ScenarioStarted(0),
            &step(0, 0, "initialize", true, true),
            &step(0, 1, "list_tools", true, true),
            &step(0, 2, "notify notifications/ping-nothing", true, false),
            &Seen::ScenarioFinished(0, "Passed".into()),
        ]
    );
    // The failing step is told (not passed, nothing observed), and nothing after it ran.
    assert_eq!(
        of(1),
        vec![
            &Seen::ScenarioStarted(1),
            &step(1, 0, "initialize", true, true),
            &step(1, 1, "call echo", false, false),
            &Seen::ScenarioFinished(1, "Failed".into()),
        ]
    );
    assert!(durations.iter().all(|d| !d.is_zero()), "{durations:?}");
}
