//! The report formats, built from hand-made `RunReport`s fed as the run's events: snapshots of
//! each format (human, JSON, JUnit, Markdown), the shape of the closing line CI tools parse,
//! bounded failure blocks, atomic writes, JUnit XML that stays well-formed and Markdown that
//! stays text whatever strings a scenario or a server produces.
//!
//! The tests are grouped by subject in the modules declared below; this file holds the
//! hand-made reports they share and the snapshot tests (kept here so that their snapshot
//! names do not change).

#[path = "../common/mod.rs"]
mod common;

mod files;
mod human;
mod json;
mod junit;
mod markdown;

use mcp_conformance::model::{Level, Source};
use mcp_conformance::report::Reporter;
use mcp_conformance::report::console::Console;
use mcp_conformance::report::human::HumanReporter;
use mcp_conformance::report::json::to_json;
use mcp_conformance::report::junit::to_junit_xml;
use mcp_conformance::report::markdown::to_markdown;
use mcp_conformance::report::{Failure, FailureKind, Position, RunReport, ScenarioResult, Status};
use serde_json::json;
use std::time::Duration;

// ---------------------------------------------------------------------------------------------
// Fixtures

fn scenario(name: &str, suite: &str, status: Status, ms: u64) -> ScenarioResult {
    ScenarioResult {
        level: Level::Must,
        warnings: Vec::new(),
        sources: Vec::new(),
        name: name.to_owned(),
        file: format!("scenarios/{suite}/{}.yaml", name.replace(' ', "_")),
        suite: suite.to_owned(),
        tags: vec![suite.to_owned()],
        status,
        duration: Duration::from_millis(ms),
        skip_reason: None,
        failure: None,
        baseline_expected_failure: false,
    }
}

fn nested_mismatch() -> Failure {
    Failure {
        level: Level::Must,
        kind: FailureKind::Assertion,
        step: Some(2),
        position: Some(Position {
            line: 14,
            column: 5,
        }),
        step_label: Some("call filesystem.write_file".to_owned()),
        message: "result.content[0].text: expected \"written\", got \"permission denied\"\n\
                  the server reported an error where success was expected"
            .to_owned(),
        expected: Some(json!({
            "result": {
                "isError": false,
                "content": [{"type": "text", "text": "written"}]
            }
        })),
        actual: Some(json!({
            "result": {
                "isError": true,
                "content": [{"type": "text", "text": "permission denied"}]
            }
        })),
        transcript: vec![
            r#"-> {"jsonrpc":"2.0","id":1,"method":"initialize"}"#.to_owned(),
            r#"<- {"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18"}}"#.to_owned(),
            r#"-> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"write_file"}}"#
                .to_owned(),
            r#"<- {"jsonrpc":"2.0","id":2,"result":{"isError":true}}"#.to_owned(),
        ],
        stderr_tail: vec![
            "INFO starting".to_owned(),
            "WARN write denied: /sandbox/out.txt".to_owned(),
        ],
    }
}

/// A run with every kind of outcome: a pass, an assertion failure with a nested JSON
/// mismatch, a skip, a failure the baseline expects, a stale and an unknown baseline entry.
fn sample_report() -> RunReport {
    let passed = scenario("initialize handshake", "lifecycle", Status::Passed, 12);

    let mut failed = scenario("write file in sandbox", "tools", Status::Failed, 1_234);
    failed.tags.push("filesystem".to_owned());
    failed.failure = Some(nested_mismatch());

    let mut skipped = scenario("resource subscriptions", "resources", Status::Skipped, 0);
    skipped.skip_reason = Some("server does not declare resources.subscribe".to_owned());

    let mut baselined = scenario("prompt arguments", "tools", Status::Failed, 87);
    baselined.baseline_expected_failure = true;
    baselined.failure = Some(Failure {
        level: Level::Must,
        kind: FailureKind::Error,
        step: None,
        position: None,
        step_label: None,
        message: "server exited before answering (status 101)".to_owned(),
        expected: None,
        actual: None,
        transcript: vec![],
        stderr_tail: vec!["thread 'main' panicked at src/prompts.rs:40:9".to_owned()],
    });

    RunReport {
        target: "reference-core".to_owned(),
        target_file: "targets/core.yaml".to_owned(),
        scenarios: vec![passed, failed, skipped, baselined],
        duration: Duration::from_millis(2_345),
        stale_baseline: vec!["cancel long call".to_owned()],
        unknown_baseline: vec!["renamed scenario".to_owned()],
        not_judged: vec![
            "12 scenarios of suites target reference-core does not claim: hub (12)".to_owned(),
        ],
    }
}

/// A run with levels: a pass with a `should` warning (and its quoted source), a failed
/// `beyond` scenario, and a `must` pass.
fn levels_report() -> RunReport {
    let mut warned = scenario("invalid cursor", "protocol", Status::Passed, 20);
    warned.sources = vec![Source {
        document:
            "https://modelcontextprotocol.io/specification/2025-11-25/server/utilities/pagination"
                .to_owned(),
        section: Some("Error Handling".to_owned()),
        quote: "Invalid cursors SHOULD result in an error with code -32602 (Invalid params)."
            .to_owned(),
        assumes: None,
    }];
    warned.warnings = vec![Failure {
        level: Level::Should,
        step: Some(1),
        step_label: Some("request tools/list".to_owned()),
        message: "response did not match at error: the key is missing".to_owned(),
        transcript: vec![],
        stderr_tail: vec![],
        ..nested_mismatch()
    }];
    let mut beyond = scenario("setsid descendants die", "toolhub", Status::Failed, 1_500);
    beyond.level = Level::Beyond;
    beyond.failure = Some(Failure {
        level: Level::Beyond,
        step: Some(4),
        step_label: Some("processes ${tmp}/pids".to_owned()),
        message: "2 of 7 recorded processes are still alive".to_owned(),
        expected: Some(json!({"alive": 0})),
        actual: Some(json!({"alive": 2})),
        transcript: vec![],
        stderr_tail: vec![],
        ..nested_mismatch()
    });
    let passed = scenario("unknown method", "protocol", Status::Passed, 5);
    RunReport {
        target: "somebody-elses-server".to_owned(),
        target_file: "targets/theirs.yaml".to_owned(),
        scenarios: vec![warned, beyond, passed],
        duration: Duration::from_millis(1_600),
        stale_baseline: vec![],
        unknown_baseline: vec![],
        not_judged: vec![],
    }
}

/// Feeds `report` to `reporter` as the runner's events, in the order a run emits them.
fn replay(report: &RunReport, reporter: &mut impl Reporter) {
    mcp_conformance::report::replay(report, |event| {
        reporter.on_event(event).expect("write to a Vec");
    });
}

/// The whole human report, as the runner would stream it (the console fed the run's events).
fn human(report: &RunReport, color: bool, verbose: bool) -> String {
    let mut console = Console::new(HumanReporter::new(Vec::new(), color, verbose), false);
    replay(report, &mut console);
    String::from_utf8(console.into_human().into_inner()).expect("the human report is UTF-8")
}

fn hostile() -> String {
    "a<b&c\"d'e]]>f\u{0}g\u{1b}[31mh\ni\r\nj\tk\u{ffff}l".to_owned()
}

// ---------------------------------------------------------------------------------------------
// Snapshots

/// Runs snapshot assertions against `tests/snapshots/`, where the snapshots stayed when this
/// file moved into `tests/reports/`. They keep their names, `reports__NAME.snap`: the prefix is
/// the module path of the assertion, and these tests stay in the crate root for that.
fn in_snapshots(assertions: impl FnOnce()) {
    insta::with_settings!({ snapshot_path => "../snapshots" }, { assertions() });
}

#[test]
fn human_report_snapshot() {
    in_snapshots(|| {
        insta::assert_snapshot!("human", human(&sample_report(), false, false));
    });
}

#[test]
fn json_report_snapshot() {
    in_snapshots(|| {
        insta::assert_json_snapshot!("json", to_json(&sample_report()));
    });
}

#[test]
fn junit_report_snapshot() {
    in_snapshots(|| {
        insta::assert_snapshot!("junit", to_junit_xml(&sample_report()));
    });
}

#[test]
fn markdown_report_snapshot() {
    in_snapshots(|| {
        insta::assert_snapshot!("markdown", to_markdown(&sample_report()));
    });
}

#[test]
fn levels_snapshots() {
    let report = levels_report();
    in_snapshots(|| {
        insta::assert_snapshot!("levels_human", human(&report, false, false));
        insta::assert_json_snapshot!("levels_json", to_json(&report));
        insta::assert_snapshot!("levels_junit", to_junit_xml(&report));
        insta::assert_snapshot!("levels_markdown", to_markdown(&report));
    });
}
