//! Generation passes: which copies of each scenario a run makes, and which of them a target
//! skips.
//!
//! A run drives one or both lifecycle generations (`--protocol`). Each scenario becomes one
//! copy per generation; with more than one generation the copy's name carries it
//! (`protocol/ping [modern]`), so reports and baselines tell them apart. A copy is skipped,
//! with a reason, when its scenario is tagged for the other generation (`legacy` /
//! `modern`), when the target does not speak the generation, when the scenario needs a
//! target speaking exactly other generations (`generations:`), or when it is tagged
//! `one-generation` (what it judges is no generation's: the store behind the tools, say) and
//! an earlier pass of the same run already judges it on this target.

use crate::generation::Generation;
use crate::model::{Scenario, Target};

/// The copies of `scenarios` to run for `generations`, scenario by scenario.
pub fn plan(scenarios: Vec<Scenario>, generations: &[Generation]) -> Vec<Scenario> {
    let named = generations.len() > 1;
    scenarios
        .into_iter()
        .flat_map(|scenario| {
            generations.iter().enumerate().map(move |(i, g)| {
                let mut copy = scenario.clone();
                copy.pass = Some(*g);
                copy.earlier_passes = generations[..i].to_vec();
                if named {
                    copy.name = format!("{} [{g}]", scenario.name);
                }
                copy
            })
        })
        .collect()
}

/// The tag of a scenario judged in one pass only: the first of the run's passes its target
/// speaks (what it judges does not depend on the generation, and judging it twice costs much).
pub const ONE_GENERATION: &str = "one-generation";

/// The generation a scenario is tagged for, if it is tagged for exactly one.
pub fn tagged_generation(scenario: &Scenario) -> Option<Generation> {
    let legacy = scenario.tags.iter().any(|t| t == "legacy");
    let modern = scenario.tags.iter().any(|t| t == "modern");
    match (legacy, modern) {
        (true, false) => Some(Generation::Legacy),
        (false, true) => Some(Generation::Modern),
        _ => None,
    }
}

/// Why this copy of a scenario does not run against `target`, as far as generations go.
pub fn generation_skip(target: &Target, scenario: &Scenario) -> Option<String> {
    let pass = scenario.pass.unwrap_or(Generation::Legacy);
    if let Some(tagged) = tagged_generation(scenario)
        && tagged != pass
    {
        return Some(format!(
            "a {tagged}-generation scenario (tag `{tagged}`); this is the {pass} pass \
             (run with --protocol {tagged} or both)"
        ));
    }
    if scenario.tags.iter().any(|t| t == ONE_GENERATION)
        && let Some(earlier) = scenario.earlier_passes.iter().find(|g| target.speaks(**g))
    {
        return Some(format!(
            "a one-generation scenario (tag `{ONE_GENERATION}`): judged once, in the {earlier} \
             pass"
        ));
    }
    if !target.speaks(pass) {
        return Some(format!(
            "target {} does not speak the {pass} generation (its generations: {})",
            target.name,
            names(&target.spoken())
        ));
    }
    if let Some(wanted) = &scenario.generations
        && !target.speaks_exactly(wanted)
    {
        return Some(format!(
            "the scenario is for targets speaking exactly {}; target {} speaks {}",
            names(wanted),
            target.name,
            names(&target.spoken())
        ));
    }
    None
}

fn names(generations: &[Generation]) -> String {
    let list: Vec<&str> = generations.iter().map(|g| g.as_str()).collect();
    format!("[{}]", list.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{parse_scenario, parse_yaml};

    fn scenario(extra: &str) -> Scenario {
        let text = format!("name: s\nsuite: protocol\n{extra}\nsteps:\n  - list_tools: {{}}\n");
        parse_scenario(&text, "s.yaml").expect("a valid scenario")
    }

    fn target(generations: &str) -> Target {
        let text = format!(
            "name: t\nsuites: [protocol]\ngenerations: {generations}\nserver: {{command: x}}\n"
        );
        parse_yaml(&text, "t.yaml").expect("parses")
    }

    #[test]
    fn one_generation_keeps_names_two_append_them() {
        let one = plan(vec![scenario("")], &[Generation::Modern]);
        assert_eq!(one.len(), 1);
        assert_eq!(one[0].name, "s");
        assert_eq!(one[0].pass, Some(Generation::Modern));
        let both = plan(vec![scenario("")], &Generation::ALL);
        let names: Vec<&str> = both.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["s [legacy]", "s [modern]"]);
    }

    #[test]
    fn a_one_generation_scenario_runs_in_the_first_pass_its_target_speaks() {
        let copies = plan(vec![scenario("tags: [one-generation]")], &Generation::ALL);
        let dual = target("[legacy, modern]");
        let modern = target("[modern]");
        assert_eq!(generation_skip(&dual, &copies[0]), None);
        assert!(
            generation_skip(&dual, &copies[1])
                .is_some_and(|r| r.contains("judged once, in the legacy pass"))
        );
        assert!(generation_skip(&modern, &copies[0]).is_some());
        assert_eq!(generation_skip(&modern, &copies[1]), None);
        let only_modern = plan(
            vec![scenario("tags: [one-generation]")],
            &[Generation::Modern],
        );
        assert_eq!(generation_skip(&dual, &only_modern[0]), None);
    }

    #[test]
    fn tags_pick_the_pass_and_targets_pick_the_generations() {
        let dual = target("[legacy, modern]");
        let copies = plan(vec![scenario("tags: [modern]")], &Generation::ALL);
        let legacy_copy = generation_skip(&dual, &copies[0]).expect("skipped");
        assert!(
            legacy_copy.contains("modern-generation scenario"),
            "{legacy_copy}"
        );
        assert_eq!(generation_skip(&dual, &copies[1]), None);

        let legacy_only = target("[legacy]");
        let plain = plan(vec![scenario("")], &Generation::ALL);
        assert_eq!(generation_skip(&legacy_only, &plain[0]), None);
        let why = generation_skip(&legacy_only, &plain[1]).expect("skipped");
        assert!(
            why.contains("does not speak the modern generation"),
            "{why}"
        );
    }

    #[test]
    fn exact_generation_requirements() {
        let wants_legacy_only = plan(
            vec![scenario("generations: [legacy]")],
            &[Generation::Legacy],
        );
        assert_eq!(
            generation_skip(&target("[legacy]"), &wants_legacy_only[0]),
            None
        );
        let why =
            generation_skip(&target("[legacy, modern]"), &wants_legacy_only[0]).expect("skip");
        assert!(why.contains("exactly [legacy]"), "{why}");
        assert_eq!(
            generation_skip(&target("[\"*\"]"), &wants_legacy_only[0]),
            None
        );
    }
}
