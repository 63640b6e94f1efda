//! Which scenarios a run judges on which target, and what it leaves out as a group.
//!
//! A run must never pass by judging nothing: a selection that selects no scenario, or
//! scenarios no target claims, is a mistake of the invocation (exit 2), not a green run.
//! What a target does not claim, and level `beyond` where it is not judged, is said in one
//! line per group rather than one "skipped" line per scenario.

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::generation::Generation;
use crate::model::{Level, LevelPolicy, Scenario};
use crate::runner::{self, BeyondChoice, RunOptions, TargetCtx};
use crate::sources::Selection;

/// The scenarios each target is judged on, planned for its generations, and the lines
/// about the groups left out.
pub struct Assignment {
    /// Each target with its planned scenarios.
    pub work: Vec<(Arc<TargetCtx>, Vec<Scenario>)>,
    /// One line per group left out (for [`RunOptions::not_judged`]).
    pub not_judged: Vec<String>,
}

/// The one line saying that `sel` selects nothing, naming the selection.
pub fn nothing_selected(sel: &Selection) -> String {
    let mut parts = Vec::new();
    if sel.paths.is_empty() {
        parts.push("the built-in suites".to_string());
    } else {
        let paths: Vec<String> = sel.paths.iter().map(|p| p.display().to_string()).collect();
        parts.push(paths.join(" "));
    }
    if let Some(name) = &sel.name {
        parts.push(format!("--name '{name}'"));
    }
    for tag in &sel.tags {
        parts.push(format!("--tag {tag}"));
    }
    for tag in &sel.skip_tags {
        parts.push(format!("--skip-tag {tag}"));
    }
    if let Some((k, n)) = sel.shard {
        parts.push(format!("--shard {k}/{n}"));
    }
    format!(
        "the selection selects no scenario: {} (`mcp-conformance list` shows the names and tags)",
        parts.join(", ")
    )
}

/// Pairs each target with the scenarios of the suites it claims, planned for the
/// generations it speaks (or those given), leaving out level `beyond` where `beyond` and
/// the target do not ask for it. Err: nothing is left to judge (one line saying why).
pub fn assign(
    targets: Vec<TargetCtx>,
    scenarios: &[Scenario],
    generations: Option<&[Generation]>,
    beyond: BeyondChoice,
    levels: LevelPolicy,
) -> Result<Assignment, String> {
    let options = RunOptions {
        jobs: 1,
        fail_fast: false,
        baseline: None,
        levels,
        beyond,
        not_judged: Vec::new(),
    };
    let several = targets.len() > 1;
    let mut not_judged = Vec::new();
    let unclaimed: Vec<&Scenario> = scenarios
        .iter()
        .filter(|s| !targets.iter().any(|t| t.target.claims_suite(&s.suite)))
        .collect();
    if !unclaimed.is_empty() {
        let who = match targets.as_slice() {
            [one] => format!("target {} does not claim", one.target.name),
            _ => "no target of this run claims".to_string(),
        };
        not_judged.push(format!(
            "{} of suites {who}: {} (`mcp-conformance list --target ...` names them)",
            scenarios_count(unclaimed.len()),
            by_suite(&unclaimed)
        ));
    }
    let mut work = Vec::new();
    for tctx in targets {
        let generations = match generations {
            Some(chosen) => chosen.to_vec(),
            None => match tctx.target.spoken() {
                spoken if spoken.is_empty() => vec![Generation::Legacy],
                spoken => spoken,
            },
        };
        let claimed: Vec<&Scenario> = scenarios
            .iter()
            .filter(|s| tctx.target.claims_suite(&s.suite))
            .collect();
        let judges_beyond = options.levels_for(&tctx).runs(Level::Beyond);
        let (mine, left): (Vec<&Scenario>, Vec<&Scenario>) = claimed
            .into_iter()
            .partition(|s| judges_beyond || s.level != Level::Beyond);
        if !left.is_empty() {
            let of = if several {
                format!(" of target {}", tctx.target.name)
            } else {
                String::new()
            };
            not_judged.push(format!(
                "{} of level beyond{of} (guarantees stronger than the documents): \
                 --beyond, or `beyond: true` in the target file, judges them",
                scenarios_count(left.len())
            ));
        }
        if mine.is_empty() {
            continue;
        }
        let mine: Vec<Scenario> = mine.into_iter().cloned().collect();
        work.push((Arc::new(tctx), runner::plan(mine, &generations)));
    }
    if work.is_empty() {
        return Err(format!(
            "nothing to judge: {}",
            not_judged
                .first()
                .map_or("no target was given", String::as_str)
        ));
    }
    Ok(Assignment { work, not_judged })
}

/// `1 scenario`, `2 scenarios`.
pub(super) fn scenarios_count(n: usize) -> String {
    if n == 1 {
        "1 scenario".to_string()
    } else {
        format!("{n} scenarios")
    }
}

/// `hub (40), toolhub (200)`.
fn by_suite(scenarios: &[&Scenario]) -> String {
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for s in scenarios {
        *counts.entry(s.suite.as_str()).or_default() += 1;
    }
    counts
        .iter()
        .map(|(suite, n)| format!("{suite} ({n})"))
        .collect::<Vec<_>>()
        .join(", ")
}
