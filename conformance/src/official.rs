//! The official conformance suite's required server scenarios, per revision, and which of
//! ours carry each out over stdio.
//!
//! `modelcontextprotocol/conformance` (0.2.0-alpha.11) freezes, in
//! `requirements/2025-11-25.yaml` and `requirements/2026-07-28.yaml`, the scenarios a server
//! must pass per revision; it drives them over Streamable HTTP only. Our scenarios name the
//! ids they mirror (`mirrors:`); this module holds the two lists (the ids only, copied from
//! those files) and why an id has no counterpart where it has none, so `list --mirrors`
//! can print the whole table and a test can insist that nothing is silently missing.

use crate::generation::Generation;
use crate::model::Scenario;

/// A revision whose required server scenarios are frozen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Revision {
    /// The revision's date, as its file is named.
    pub version: &'static str,
    /// The generation our scenarios judge it in.
    pub generation: Generation,
    /// The `server:` ids of its requirements file, in the file's order.
    pub server: &'static [&'static str],
}

/// The two frozen revisions.
pub const REVISIONS: [Revision; 2] = [
    Revision {
        version: "2025-11-25",
        generation: Generation::Legacy,
        server: &[
            "server-initialize",
            "logging-set-level",
            "ping",
            "completion-complete",
            "tools-list",
            "tools-call-simple-text",
            "tools-call-image",
            "tools-call-audio",
            "tools-call-embedded-resource",
            "tools-call-mixed-content",
            "tools-call-with-logging",
            "tools-call-error",
            "tools-call-with-progress",
            "tools-call-sampling",
            "tools-call-elicitation",
            "elicitation-sep1034-defaults",
            "server-sse-multiple-streams",
            "elicitation-sep1330-enums",
            "resources-list",
            "resources-read-text",
            "resources-read-binary",
            "resources-templates-read",
            "resources-subscribe",
            "resources-unsubscribe",
            "prompts-list",
            "prompts-get-simple",
            "prompts-get-with-args",
            "prompts-get-embedded-resource",
            "prompts-get-with-image",
            "dns-rebinding-protection",
        ],
    },
    Revision {
        version: "2026-07-28",
        generation: Generation::Modern,
        server: &[
            "server-stateless",
            "completion-complete",
            "tools-list",
            "tools-call-simple-text",
            "tools-call-image",
            "tools-call-audio",
            "tools-call-embedded-resource",
            "tools-call-mixed-content",
            "tools-call-error",
            "tools-call-with-progress",
            "server-sse-multiple-streams",
            "resources-list",
            "resources-read-text",
            "resources-read-binary",
            "resources-templates-read",
            "sep-2164-resource-not-found",
            "prompts-list",
            "prompts-get-simple",
            "prompts-get-with-args",
            "prompts-get-embedded-resource",
            "prompts-get-with-image",
            "dns-rebinding-protection",
            "caching",
            "input-required-result-basic-elicitation",
            "input-required-result-basic-sampling",
            "input-required-result-basic-list-roots",
            "input-required-result-request-state",
            "input-required-result-multiple-input-requests",
            "input-required-result-multi-round",
            "input-required-result-missing-input-response",
            "input-required-result-non-tool-request",
            "input-required-result-result-type",
            "input-required-result-unsupported-methods",
            "input-required-result-tampered-state",
            "input-required-result-capability-check",
            "input-required-result-ignore-extra-params",
            "input-required-result-validate-input",
        ],
    },
];

/// The official suite's optional server scenarios of the tasks extension
/// (`src/scenarios/server/tasks/`, SEP-2663, 2026-07-28), scored apart from the required
/// lists.
pub const TASKS_EXTENSION: Revision = Revision {
    version: "io.modelcontextprotocol/tasks",
    generation: Generation::Modern,
    server: &[
        "tasks-capability-negotiation",
        "tasks-lifecycle",
        "tasks-wire-fields",
        "tasks-required-task-error",
        "tasks-status-notifications",
        "tasks-dispatch-and-envelope",
        "tasks-mrtr-composition",
        "tasks-request-state-removal",
        "tasks-mrtr-input",
        "tasks-request-headers",
    ],
};

/// Why an id has no stdio counterpart of ours, when that is by design or planned.
pub fn no_counterpart_because(id: &str) -> Option<&'static str> {
    match id {
        "server-sse-multiple-streams" | "dns-rebinding-protection" => {
            Some("HTTP only: Streamable HTTP streams and Host/Origin headers have no stdio form")
        }
        "tasks-request-headers" => {
            Some("HTTP only: the Mcp-Name routing header of tasks/* exists only on Streamable HTTP")
        }
        _ => None,
    }
}

/// True when `scenario` runs in `generation`'s pass (a scenario tagged with the other
/// generation's name runs only there).
fn runs_in(scenario: &Scenario, generation: Generation) -> bool {
    !Generation::ALL
        .iter()
        .any(|g| *g != generation && scenario.tags.iter().any(|t| t == g.as_str()))
}

/// One row of the coverage table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Coverage {
    /// The revision.
    pub version: &'static str,
    /// The official scenario id.
    pub id: &'static str,
    /// Our scenarios mirroring it in that revision's generation.
    pub ours: Vec<String>,
    /// Why there is none, when by design or planned.
    pub because: Option<&'static str>,
}

/// The coverage table of `scenarios`, revision by revision, in the requirements' order.
pub fn coverage(scenarios: &[Scenario]) -> Vec<Coverage> {
    coverage_of(&REVISIONS, scenarios)
}

/// The coverage of the optional tasks-extension scenarios.
pub fn optional_coverage(scenarios: &[Scenario]) -> Vec<Coverage> {
    coverage_of(&[TASKS_EXTENSION], scenarios)
}

fn coverage_of(revisions: &[Revision], scenarios: &[Scenario]) -> Vec<Coverage> {
    let mut rows = Vec::new();
    for revision in revisions {
        for id in revision.server {
            let ours = scenarios
                .iter()
                .filter(|s| s.mirrors.iter().any(|m| m == id) && runs_in(s, revision.generation))
                .map(|s| s.name.clone())
                .collect();
            rows.push(Coverage {
                version: revision.version,
                id,
                ours,
                because: no_counterpart_because(id),
            });
        }
    }
    rows
}

/// True when `id` is in either frozen list or among the optional tasks-extension ids.
pub fn is_known(id: &str) -> bool {
    REVISIONS
        .iter()
        .chain(std::iter::once(&TASKS_EXTENSION))
        .any(|r| r.server.contains(&id))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn built_in() -> Vec<Scenario> {
        crate::builtin::scenarios()
            .map(|(display, text)| {
                crate::model::parse_scenario(text, &display).expect("built-in scenarios parse")
            })
            .collect()
    }

    /// The ids still waiting for a scenario of ours: this list may only shrink. An id that
    /// gains a counterpart must leave it; an id that loses one fails here. Empty since the
    /// `official` suite mirrors every fixture-driven id.
    const NOT_YET: &[&str] = &[];

    #[test]
    fn every_required_id_has_a_scenario_or_a_reason_or_is_listed_as_not_yet() {
        let rows = coverage(&built_in());
        let mut missing: Vec<&str> = rows
            .iter()
            .filter(|r| r.ours.is_empty() && r.because.is_none())
            .map(|r| r.id)
            .collect();
        missing.sort_unstable();
        missing.dedup();
        let mut expected = NOT_YET.to_vec();
        expected.sort_unstable();
        assert_eq!(missing, expected);
    }

    #[test]
    fn every_mirrors_entry_names_a_required_id() {
        for s in built_in() {
            for id in &s.mirrors {
                assert!(is_known(id), "{}: mirrors unknown id {id}", s.name);
            }
        }
    }
}
