//! The order scenarios start in: the ones that may wait longest first.
//!
//! Most of a run is waiting on servers, and a few scenarios wait by design: a `no_message`
//! window a correct server lets pass in full, an answer a server may never send (waited for
//! to its deadline), a server's own exit, a server of its own to start. Started last, such a
//! scenario is the run's tail while the other jobs sit idle; started first, its wait
//! overlaps everything else (longest first is the classic schedule for jobs of unequal
//! length). Results are reported in the scenarios' own order whatever order they start in.

use std::time::Duration;

use super::share::shareable;
use crate::model::{Scenario, Step, StepKind};

/// What starting a server of its own costs a scenario, as a weight beside its waits: an
/// interpreted server takes about that long to answer its first request.
const OWN_SERVER: Duration = Duration::from_millis(700);

/// The indices of `scenarios` in the order they should start: by [`expected_wait`], longest
/// first, and in their own order among equals (the sort is stable).
pub fn start_order(scenarios: &[&Scenario]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..scenarios.len()).collect();
    let waits: Vec<Duration> = scenarios.iter().map(|s| expected_wait(s)).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(waits[i]));
    order
}

/// How long `scenario` may wait at most on what it cannot hurry: its steps' waits by design
/// ([`step_wait`]) and, when it cannot share a running server, one server start.
pub fn expected_wait(scenario: &Scenario) -> Duration {
    let own = if shareable(scenario) {
        Duration::ZERO
    } else {
        OWN_SERVER
    };
    own + steps_wait(&scenario.steps)
}

fn steps_wait(steps: &[Step]) -> Duration {
    steps.iter().map(step_wait).sum()
}

/// The wait a step declares for what a correct server may take its whole deadline over (a
/// window with nothing in it, an answer a server may never send, an exit), or, for a block,
/// what its steps add up to. Other steps finish when the server answers: no weight.
fn step_wait(step: &Step) -> Duration {
    let declared = step.within.or(step.timeout).unwrap_or(Duration::ZERO);
    match &step.kind {
        StepKind::NoMessage(_)
        | StepKind::NoResponse(_)
        | StepKind::ExpectMessage(_)
        | StepKind::Stop(_)
        | StepKind::WaitExit(_) => declared,
        StepKind::Repeat(block) => {
            let times = u32::try_from(block.times).unwrap_or(u32::MAX);
            steps_wait(&block.steps).saturating_mul(times)
        }
        StepKind::Parallel(block) => block.steps.iter().map(step_wait).max().unwrap_or_default(),
        _ => Duration::ZERO,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::parse_scenario;

    fn scenario(steps: &str) -> Scenario {
        let text = format!("name: s\nsuite: protocol\nsteps:\n{steps}");
        parse_scenario(&text, "s.yaml").expect("a valid scenario")
    }

    #[test]
    fn the_longest_declared_waits_start_first_and_equals_keep_their_order() {
        let quick = scenario("  - initialize: {}\n  - list_tools: {}\n");
        let window =
            scenario("  - initialize: {}\n  - no_message: { method: x }\n    within: 2s\n");
        let unanswered = scenario(
            "  - initialize: {}\n  - send: 'x'\n  - expect_message: { id: null }\n    timeout: 3s\n",
        );
        let quick_too = scenario("  - initialize: {}\n  - list_tools: {}\n");
        let order = start_order(&[&quick, &window, &unanswered, &quick_too]);
        assert_eq!(order, vec![2, 1, 0, 3]);
    }

    #[test]
    fn a_repeated_wait_counts_each_round_and_a_parallel_one_its_longest() {
        let repeated = scenario(
            "  - initialize: {}\n  - repeat:\n      times: 3\n      steps:\n        - no_message: { method: x }\n          within: 1s\n",
        );
        assert_eq!(expected_wait(&repeated), Duration::from_secs(3));
        let parallel = scenario(
            "  - initialize: {}\n  - parallel:\n      - no_message: { method: x }\n        within: 1s\n      - no_message: { method: y }\n        within: 2s\n",
        );
        assert_eq!(expected_wait(&parallel), Duration::from_secs(2));
    }
}
