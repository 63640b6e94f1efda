//! The human report: the closing line CI tools parse (warnings after its three counts),
//! aligned scenario lines, failure blocks with every section, bounded and defused of terminal
//! escapes, and the progress line without a terminal.

use mcp_conformance::model::Level;
use mcp_conformance::report::console::Progress;
use mcp_conformance::report::human::failure_block;
use mcp_conformance::report::json::to_json;
use mcp_conformance::report::{Failure, FailureKind, RunReport, Status};
use serde_json::json;
use std::time::Duration;

use crate::{hostile, human, levels_report, nested_mismatch, sample_report, scenario};

#[test]
fn warnings_follow_the_three_counts_on_the_closing_line() {
    let text = human(&levels_report(), false, false);
    let last = text.lines().last().expect("a closing line");
    assert_eq!(last, "2 passed, 1 failed, 0 skipped, 1 warnings");
    let re = regex::Regex::new(r"^\d+ passed, \d+ failed, \d+ skipped").expect("valid regex");
    assert!(
        re.is_match(last),
        "the first three counts keep their CI shape"
    );
    assert!(
        text.contains("--- WARNING invalid cursor [should]"),
        "{text}"
    );
    assert!(
        text.contains("rule (https://modelcontextprotocol.io/specification/2025-11-25/server/utilities/pagination, Error Handling): \"Invalid cursors SHOULD"),
        "{text}"
    );
    let beyond_section = text
        .find("== Beyond the documents")
        .expect("a beyond section");
    let beyond_block = text
        .find("--- FAILED setsid descendants die [beyond]")
        .expect("its block");
    assert!(
        beyond_block > beyond_section,
        "the beyond failure is shown in its own section"
    );
    let v = to_json(&levels_report());
    assert_eq!(v["summary"]["warnings"], 1);
    assert_eq!(v["scenarios"][0]["warnings"][0]["level"], "should");
    assert_eq!(v["scenarios"][1]["failure"]["level"], "beyond");
    assert_eq!(v["scenarios"][1]["level"], "beyond");
}

fn assert_closing_line(text: &str) {
    let re = regex::Regex::new(r"^\d+ passed, \d+ failed, \d+ skipped$").expect("valid regex");
    assert!(text.ends_with('\n'), "the report ends with a newline");
    let last = text.lines().last().expect("the report is not empty");
    assert!(re.is_match(last), "last line {last:?} has the CI shape");
}

#[test]
fn closing_line_is_last_and_plain_even_in_colour() {
    let report = sample_report();
    let plain = human(&report, false, false);
    assert_closing_line(&plain);
    assert!(plain.ends_with("\n1 passed, 2 failed, 1 skipped\n"));
    assert!(
        !plain.contains('\u{1b}'),
        "no colour codes when colour is off"
    );

    let coloured = human(&report, true, false);
    assert_closing_line(&coloured);
    assert!(coloured.contains("\u{1b}[32mok\u{1b}[0m"));
    assert!(coloured.contains("\u{1b}[1;31mFAILED\u{1b}[0m"));

    let empty = RunReport {
        target: "t".to_owned(),
        target_file: "t.yaml".to_owned(),
        scenarios: vec![],
        duration: Duration::ZERO,
        stale_baseline: vec![],
        unknown_baseline: vec![],
        not_judged: vec![],
    };
    let text = human(&empty, true, true);
    assert_closing_line(&text);
    assert!(text.ends_with("0 passed, 0 failed, 0 skipped\n"));
}

#[test]
fn scenario_lines_align() {
    let report = sample_report();
    let text = human(&report, false, false);
    let lines: Vec<&str> = text.lines().take(4).collect();
    assert_eq!(
        lines,
        [
            "ok      initialize handshake    (12 ms)",
            "FAILED  write file in sandbox   (1.2 s)",
            "skipped resource subscriptions: server does not declare resources.subscribe",
            "FAILED  prompt arguments        (87 ms)  [expected by baseline]",
        ]
    );
}

#[test]
fn failure_block_has_every_section() {
    let report = sample_report();
    let block = failure_block(&report.scenarios[1]);
    let headers = [
        "--- FAILED write file in sandbox\n",
        "  at scenarios/tools/write_file_in_sandbox.yaml:14:5 (step 3: call filesystem.write_file)\n",
        "  result.content[0].text: expected \"written\", got \"permission denied\"\n",
        "  the server reported an error where success was expected\n",
        "  expected:\n",
        "  actual:\n",
        "  diff (-expected +actual):\n",
        "  -     \"isError\": false,\n",
        "  +     \"isError\": true,\n",
        "  last messages:\n",
        "  server stderr (last lines):\n",
    ];
    let mut from = 0;
    for h in headers {
        let at = block[from..]
            .find(h)
            .unwrap_or_else(|| panic!("{h:?} missing or out of order in:\n{block}"));
        from += at + h.len();
    }
    // The human report prints the very same block.
    assert!(human(&report, false, false).contains(&block));
}

#[test]
fn failure_block_without_details_or_position() {
    let mut r = scenario("bare", "misc", Status::Failed, 1);
    assert_eq!(
        failure_block(&r),
        "--- FAILED bare\n  (no failure details were recorded)\n"
    );
    r.failure = Some(Failure {
        level: Level::Must,
        kind: FailureKind::Assertion,
        step: Some(0),
        position: None,
        step_label: None,
        message: "boom".to_owned(),
        expected: Some(json!(1)),
        actual: None,
        transcript: vec![],
        stderr_tail: vec![],
    });
    let block = failure_block(&r);
    assert!(
        block.contains("  at scenarios/misc/bare.yaml (step 1)\n"),
        "{block}"
    );
    assert!(block.contains("  expected:\n    1\n"));
    assert!(!block.contains("actual:"));
    assert!(!block.contains("diff"));
    assert!(block.contains("  last messages: (none)\n"));
    assert!(block.contains("  server stderr (last lines): (none)\n"));
}

#[test]
fn huge_failures_stay_bounded() {
    let mut r = scenario("flood", "misc", Status::Failed, 1);
    let big: Vec<serde_json::Value> = (0..5_000).map(|i| json!({"i": i})).collect();
    let mut f = nested_mismatch();
    f.message = format!("{}\n", "m".repeat(10_000)).repeat(500);
    f.expected = Some(json!({"items": [], "blob": "x".repeat(100_000)}));
    f.actual = Some(json!({"items": big, "blob": "y".repeat(100_000)}));
    f.transcript = (0..1_000).map(|i| format!("<- line {i}")).collect();
    f.stderr_tail = (0..1_000)
        .map(|i| format!("stderr {i} {}", "z".repeat(5_000)))
        .collect();
    r.failure = Some(f);

    let block = failure_block(&r);
    let lines: Vec<&str> = block.lines().collect();
    assert!(lines.len() < 800, "{} lines", lines.len());
    let longest = lines.iter().map(|l| l.chars().count()).max().unwrap_or(0);
    assert!(longest < 450, "a line of {longest} chars");
    assert!(block.contains("more chars]"));
    assert!(block.contains("more lines not shown)"));
    assert!(block.contains("    … (980 earlier lines not shown)\n    <- line 980\n"));
    assert!(block.contains("    <- line 999\n"));
    assert!(!block.contains("<- line 979\n"));

    // Verbose shows more, and is still bounded.
    let report = RunReport {
        target: "t".to_owned(),
        target_file: "t.yaml".to_owned(),
        scenarios: vec![r],
        duration: Duration::ZERO,
        stale_baseline: vec![],
        unknown_baseline: vec![],
        not_judged: vec![],
    };
    let verbose = human(&report, false, true);
    assert!(verbose.contains("    <- line 800\n"));
    assert!(verbose.lines().count() < 8_000);
    assert_closing_line(&verbose);
}

#[test]
fn terminal_escapes_from_a_server_are_defused() {
    let mut r = scenario("x", "misc", Status::Failed, 1);
    let mut f = nested_mismatch();
    f.message = format!("first {}\nsecond", hostile());
    r.name = hostile();
    f.stderr_tail = vec!["\u{1b}[2J\u{1b}[31mred\rover".to_owned()];
    r.failure = Some(f);
    let block = failure_block(&r);
    assert!(!block.contains('\u{1b}'));
    assert!(!block.contains('\r'));
    assert!(!block.contains('\u{0}'));
    assert!(block.contains("\\u{1b}[2J\\u{1b}[31mred\\u{d}over"));
    assert!(block.starts_with(
        "--- FAILED a<b&c\"d'e]]>f\\u{0}g\\u{1b}[31mh\\u{a}i\\u{d}\\u{a}j\tk\\u{ffff}l\n"
    ));
}

#[test]
fn progress_without_a_terminal_is_silent_and_safe() {
    let mut p = Progress::new(2, false);
    assert!(!p.is_active());
    p.started("a");
    p.finished("a");
    p.finished("never started");
    p.redraw();
    p.clear();
}
