//! What a sweep learns before it makes any case: which lifecycle generations the server
//! speaks and its tools. It is a run of the engine like any other (one `initialize` and one
//! `list_tools` per generation, the tools read from the `StepFinished` event), so a server
//! that cannot be started, exits, or never answers is found with the engine's own deadlines
//! and messages.

use std::sync::Arc;

use serde_json::Value;

use crate::generation::Generation;
use crate::model::{LevelPolicy, parse_scenario};
use crate::report::{RunEvent, Status};
use crate::runner::{RunOptions, TargetCtx, plan, run_all};

/// The generations that opened a session and listed tools, and the tools each listed.
#[derive(Debug, Default)]
pub struct Discovery {
    /// Every generation that worked, with its `tools/list` (all pages), legacy first.
    pub spoken: Vec<(Generation, Vec<Value>)>,
    /// For each generation tried that did not work, why.
    pub refused: Vec<(Generation, String)>,
    /// The protocol version the server's opening answer named (its `protocolVersion`),
    /// for each generation whose answer had one.
    pub versions: Vec<(Generation, String)>,
    /// The capabilities each generation's opening answer declared.
    pub capabilities: Vec<(Generation, Value)>,
    /// The prompts listed (first page) in the first generation that declared the prompts
    /// capability; none when no generation did.
    pub prompts: Vec<Value>,
    /// The resource templates listed (first page) in the first generation that declared
    /// the resources capability; none when no generation did.
    pub templates: Vec<Value>,
}

const DISCOVER: &str =
    "name: sweep/discover\nsuite: protocol\nsteps:\n  - initialize: {}\n  - list_tools: {}\n";

/// Opens a session in each of `generations` and lists the tools.
pub async fn discover(tctx: Arc<TargetCtx>, generations: &[Generation]) -> Discovery {
    let Ok(scenario) = parse_scenario(DISCOVER, "<sweep>/discover.yaml") else {
        return Discovery::default();
    };
    let scenarios = plan(vec![scenario], generations);
    let options = RunOptions {
        jobs: 2,
        fail_fast: false,
        baseline: None,
        levels: LevelPolicy::default(),
        ..RunOptions::default()
    };
    let mut tools: Vec<Option<Vec<Value>>> = vec![None; generations.len()];
    let mut versions: Vec<Option<String>> = vec![None; generations.len()];
    let mut capabilities: Vec<Option<Value>> = vec![None; generations.len()];
    let report = run_all(vec![(tctx.clone(), scenarios)], &options, |event| {
        let RunEvent::StepFinished { scenario, step } = event else {
            return;
        };
        let observed = step.observation.as_ref();
        if step.index == 0
            && let Some(version) = observed
                .and_then(|o| o.get("result").unwrap_or(o).get("protocolVersion"))
                .and_then(Value::as_str)
            && let Some(slot) = versions.get_mut(scenario)
        {
            *slot = Some(version.to_string());
        }
        if step.index == 0
            && let Some(caps) = observed.and_then(|o| o.pointer("/result/capabilities"))
            && let Some(slot) = capabilities.get_mut(scenario)
        {
            *slot = Some(caps.clone());
        }
        if step.index == 1
            && let Some(list) = observed.and_then(|o| o.get("tools"))
            && let Some(slot) = tools.get_mut(scenario)
        {
            *slot = list.as_array().cloned();
        }
    })
    .await;
    let mut out = Discovery::default();
    for (generation, version) in generations.iter().zip(versions) {
        if let Some(version) = version {
            out.versions.push((*generation, version));
        }
    }
    for (generation, caps) in generations.iter().zip(capabilities) {
        if let Some(caps) = caps {
            out.capabilities.push((*generation, caps));
        }
    }
    for (i, generation) in generations.iter().enumerate() {
        let result = report.scenarios.get(i);
        match (
            result.map(|r| r.status),
            tools.get_mut(i).and_then(Option::take),
        ) {
            // Listed tools: the generation is spoken. The scenario can still have failed
            // after that, on a message that broke JSON-RPC 2.0 with no step waiting for it;
            // the sweep's own cases meet it and report it.
            (Some(Status::Passed | Status::Failed), Some(list)) => {
                out.spoken.push((*generation, list));
            }
            _ => {
                let why = result
                    .and_then(|r| r.failure.as_ref())
                    .map(|f| {
                        // One line: a message's own lines (a rule quoted) joined.
                        let message = f.message.lines().collect::<Vec<_>>().join(" ");
                        match &f.step_label {
                            Some(step) => format!("{step}: {message}"),
                            None => message,
                        }
                    })
                    .unwrap_or_else(|| "no tool list".to_string());
                out.refused.push((*generation, why));
            }
        }
    }
    let declaring = |capability: &str| {
        out.capabilities
            .iter()
            .find(|(g, caps)| {
                caps.get(capability).is_some_and(Value::is_object)
                    && out.spoken.iter().any(|(s, _)| s == g)
            })
            .map(|(g, _)| *g)
    };
    let (prompts, templates) = (declaring("prompts"), declaring("resources"));
    if let Some(generation) = prompts {
        out.prompts = first_page(&tctx, generation, "prompts/list", "prompts", &options).await;
    }
    if let Some(generation) = templates {
        out.templates = first_page(
            &tctx,
            generation,
            "resources/templates/list",
            "resourceTemplates",
            &options,
        )
        .await;
    }
    out
}

/// The first page of a list a server answers (`method`, the array under `key`), in one
/// generation; none if it does not answer with one.
async fn first_page(
    tctx: &Arc<TargetCtx>,
    generation: Generation,
    method: &str,
    key: &str,
    options: &RunOptions,
) -> Vec<Value> {
    let text = format!(
        "name: sweep/discover-list\nsuite: protocol\nsteps:\n  - initialize: {{}}\n  - request: {method}\n    params: {{}}\n"
    );
    let Ok(scenario) = parse_scenario(&text, "<sweep>/discover-list.yaml") else {
        return Vec::new();
    };
    let pointer = format!("/result/{key}");
    let mut items = Vec::new();
    run_all(
        vec![(tctx.clone(), plan(vec![scenario], &[generation]))],
        options,
        |event| {
            if let RunEvent::StepFinished { step, .. } = event
                && step.index == 1
                && let Some(list) = step
                    .observation
                    .as_ref()
                    .and_then(|o| o.pointer(&pointer))
                    .and_then(Value::as_array)
            {
                items = list.clone();
            }
        },
    )
    .await;
    items
}
