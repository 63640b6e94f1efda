//! The report formats, built from hand-made `RunReport`s fed as the run's events: snapshots of
//! each format (human, JSON, JUnit, Markdown), the shape of the closing line CI tools parse,
//! bounded failure blocks, atomic writes, JUnit XML that stays well-formed and Markdown that
//! stays text whatever strings a scenario or a server produces.

use mcp_conformance::model::{Level, Source};
use mcp_conformance::report::console::{Console, Progress};
use mcp_conformance::report::files::ReportFiles;
use mcp_conformance::report::human::{HumanReporter, failure_block};
use mcp_conformance::report::json::{to_json, write_json};
use mcp_conformance::report::junit::{to_junit_xml, write_junit};
use mcp_conformance::report::markdown::{MAX_DETAILS, to_markdown};
use mcp_conformance::report::{Failure, FailureKind, Position, RunReport, ScenarioResult, Status};
use mcp_conformance::report::{Reporter, RunEvent};
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

#[test]
fn human_report_snapshot() {
    insta::assert_snapshot!("human", human(&sample_report(), false, false));
}

#[test]
fn json_report_snapshot() {
    insta::assert_json_snapshot!("json", to_json(&sample_report()));
}

#[test]
fn junit_report_snapshot() {
    insta::assert_snapshot!("junit", to_junit_xml(&sample_report()));
}

#[test]
fn markdown_report_snapshot() {
    insta::assert_snapshot!("markdown", to_markdown(&sample_report()));
}

#[test]
fn levels_snapshots() {
    let report = levels_report();
    insta::assert_snapshot!("levels_human", human(&report, false, false));
    insta::assert_json_snapshot!("levels_json", to_json(&report));
    insta::assert_snapshot!("levels_junit", to_junit_xml(&report));
    insta::assert_snapshot!("levels_markdown", to_markdown(&report));
}

#[test]
fn the_files_are_written_from_the_last_event_only() {
    let dir = tempfile::tempdir().expect("tempdir");
    let report = sample_report();
    let (json, junit, markdown) = (
        dir.path().join("r.json"),
        dir.path().join("r.xml"),
        dir.path().join("r.md"),
    );
    let mut files = ReportFiles::new(
        Some(json.clone()),
        Some(junit.clone()),
        Some(markdown.clone()),
    );
    let names = vec![report.scenarios[0].name.clone()];
    files
        .on_event(RunEvent::RunStarted {
            target: &report.target,
            target_file: &report.target_file,
            scenarios: &names,
        })
        .expect("nothing to write yet");
    assert!(!json.exists() && !junit.exists() && !markdown.exists());
    replay(&report, &mut files);
    assert_eq!(
        std::fs::read_to_string(&markdown).expect("written"),
        to_markdown(&report)
    );
    assert_eq!(
        std::fs::read_to_string(&junit).expect("written"),
        to_junit_xml(&report)
    );
    assert!(json.exists());
    assert!(files.failures().is_empty());
    // A file that cannot be written is named, and the others are still written.
    let mut broken = ReportFiles::new(
        Some(dir.path().join("missing/r.json")),
        None,
        Some(dir.path().join("again.md")),
    );
    assert!(
        broken
            .on_event(RunEvent::RunFinished { report: &report })
            .is_err()
    );
    assert_eq!(broken.failures().len(), 1);
    assert!(
        broken.failures()[0].contains("missing/r.json"),
        "{:?}",
        broken.failures()
    );
    assert!(dir.path().join("again.md").exists());
}

#[test]
fn markdown_shows_what_a_server_said_as_text() {
    let mut report = sample_report();
    let evil = "x</summary></details><img src=q onerror=alert(1)> | `` ```` [link](http://e) *b*";
    report.target = evil.to_owned();
    for r in &mut report.scenarios {
        r.name = format!("{} {evil}", r.name);
        if let Some(f) = &mut r.failure {
            f.message = format!("{evil}\n```` fence {}", hostile());
        }
    }
    let md = to_markdown(&report);
    // Outside the code blocks (where text is literal), nothing a server said is markup; every
    // code block closes with the fence it opened with, longer than any backtick run inside.
    let mut fence: Option<String> = None;
    let mut outside = String::new();
    for line in md.lines() {
        match &fence {
            Some(f) if line == f => fence = None,
            Some(_) => {}
            None if line.starts_with("```") => {
                fence = Some(line.trim_end_matches("text").to_owned());
            }
            None => {
                outside.push_str(line);
                outside.push('\n');
            }
        }
    }
    assert!(fence.is_none(), "a code block is left open: {md}");
    assert!(!outside.contains("<img"), "{outside}");
    assert!(!outside.contains("</summary></details><"), "{outside}");
    assert!(!outside.contains("[link](http"), "{outside}");
    assert_eq!(
        outside.matches("<details>").count(),
        outside.matches("</details>").count()
    );
    assert!(!md.contains('\u{1b}'), "no raw escape reaches the page");
}

#[test]
fn markdown_is_bounded() {
    let mut report = sample_report();
    let failed = report
        .scenarios
        .iter()
        .find(|r| r.status == Status::Failed)
        .expect("the sample has a failure")
        .clone();
    for i in 0..200 {
        let mut r = failed.clone();
        r.name = format!("failing {i}");
        report.scenarios.push(r);
    }
    let md = to_markdown(&report);
    assert!(md.matches("<details><summary>failing").count() <= MAX_DETAILS);
    assert!(md.contains("more not shown here"), "{md}");
    assert!(md.len() < 1024 * 1024);
}

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

// ---------------------------------------------------------------------------------------------
// Human report

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

// ---------------------------------------------------------------------------------------------
// JSON report

#[test]
fn json_fields_are_the_public_interface() {
    let v = to_json(&sample_report());
    let keys: Vec<&str> = v
        .as_object()
        .expect("object")
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        [
            "target",
            "target_file",
            "summary",
            "duration_ms",
            "scenarios",
            "baseline"
        ]
    );
    assert_eq!(
        v["summary"],
        json!({"passed": 1, "failed": 2, "skipped": 1, "warnings": 0})
    );
    assert_eq!(v["duration_ms"], 2_345);
    assert_eq!(
        v["baseline"],
        json!({"stale": ["cancel long call"], "unknown": ["renamed scenario"]})
    );
    let s = &v["scenarios"];
    let keys: Vec<&str> = s[0]
        .as_object()
        .expect("object")
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        [
            "name",
            "file",
            "suite",
            "tags",
            "status",
            "duration_ms",
            "skip_reason",
            "failure",
            "baseline_expected_failure",
            "level",
            "warnings",
            "source"
        ]
    );
    assert_eq!(s[0]["status"], "passed");
    assert_eq!(s[0]["skip_reason"], serde_json::Value::Null);
    assert_eq!(s[0]["failure"], serde_json::Value::Null);
    assert_eq!(s[1]["status"], "failed");
    assert_eq!(s[1]["failure"]["kind"], "assertion");
    assert_eq!(s[1]["failure"]["step"], 2);
    assert_eq!(
        s[1]["failure"]["position"],
        json!({"line": 14, "column": 5})
    );
    assert_eq!(s[2]["status"], "skipped");
    assert_eq!(
        s[2]["skip_reason"],
        "server does not declare resources.subscribe"
    );
    assert_eq!(s[3]["baseline_expected_failure"], true);
    assert_eq!(s[3]["failure"]["position"], serde_json::Value::Null);
    assert_eq!(s[3]["failure"]["kind"], "error");
}

#[test]
fn report_files_are_written_whole_and_replace_old_ones() {
    let dir = tempfile::tempdir().expect("temp dir");
    let report = sample_report();
    let json_path = dir.path().join("report.json");
    let xml_path = dir.path().join("junit.xml");
    std::fs::write(&json_path, "old").expect("seed");
    std::fs::write(&xml_path, "old").expect("seed");

    write_json(&report, &json_path).expect("write json");
    write_junit(&report, &xml_path).expect("write junit");

    let back: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json_path).expect("read")).expect("json");
    assert_eq!(back, to_json(&report));
    assert_eq!(
        std::fs::read_to_string(&xml_path).expect("read"),
        to_junit_xml(&report)
    );
    // No temporary files left behind.
    let mut names: Vec<String> = std::fs::read_dir(dir.path())
        .expect("list")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["junit.xml", "report.json"]);

    // A missing directory is an error, not a panic, and leaves nothing behind.
    let missing = dir.path().join("nope").join("report.json");
    assert!(write_json(&report, &missing).is_err());
    assert!(write_junit(&report, &missing).is_err());
    // A directory in the way is an error too, and the temp file is cleaned up.
    std::fs::create_dir(dir.path().join("taken")).expect("mkdir");
    assert!(write_json(&report, &dir.path().join("taken")).is_err());
    assert_eq!(std::fs::read_dir(dir.path()).expect("list").count(), 3);
}

// ---------------------------------------------------------------------------------------------
// JUnit report

#[test]
fn junit_is_well_formed_and_counts_add_up() {
    let report = sample_report();
    let root = xml::parse(&to_junit_xml(&report)).expect("well-formed XML");
    assert_eq!(root.name, "testsuites");
    assert_eq!(root.attr("name"), Some("mcp-conformance"));
    // 4 scenarios + 1 stale entry; 1 real failure + 1 stale; 1 skip + 1 baselined failure.
    assert_eq!(root.attr("tests"), Some("5"));
    assert_eq!(root.attr("failures"), Some("2"));
    assert_eq!(root.attr("skipped"), Some("2"));
    assert_eq!(root.attr("errors"), Some("0"));
    assert_eq!(root.attr("time"), Some("2.345"));

    let suites: Vec<&xml::Element> = root.elements().collect();
    let names: Vec<&str> = suites.iter().filter_map(|s| s.attr("name")).collect();
    assert_eq!(names, ["lifecycle", "tools", "resources", "baseline"]);
    for s in &suites {
        let cases: Vec<&xml::Element> = s.elements().collect();
        let count = |child: &str| {
            cases
                .iter()
                .filter(|c| c.elements().any(|e| e.name == child))
                .count()
                .to_string()
        };
        assert_eq!(s.attr("tests"), Some(cases.len().to_string().as_str()));
        assert_eq!(s.attr("failures"), Some(count("failure").as_str()));
        assert_eq!(s.attr("skipped"), Some(count("skipped").as_str()));
        assert!(cases.iter().all(|c| c.name == "testcase"));
    }

    let tools: Vec<&xml::Element> = suites[1].elements().collect();
    let failure = tools[0].elements().next().expect("failure element");
    assert_eq!(failure.name, "failure");
    assert_eq!(failure.attr("type"), Some("assertion"));
    assert_eq!(
        failure.attr("message"),
        Some("result.content[0].text: expected \"written\", got \"permission denied\"")
    );
    assert_eq!(failure.text(), failure_block(&report.scenarios[1]));
    assert_eq!(tools[0].attr("time"), Some("1.234"));

    let baselined: Vec<&xml::Element> = tools[1].elements().collect();
    assert_eq!(baselined[0].name, "skipped");
    assert_eq!(
        baselined[0].attr("message"),
        Some("expected failure (baseline)")
    );
    assert_eq!(baselined[1].name, "system-out");
    assert_eq!(baselined[1].text(), failure_block(&report.scenarios[3]));

    let stale = suites[3].elements().next().expect("stale testcase");
    assert_eq!(stale.attr("name"), Some("baseline/cancel long call"));
    let f = stale.elements().next().expect("failure");
    assert_eq!(f.attr("message"), Some("stale baseline entry"));
}

#[test]
fn hostile_strings_survive_junit_escaping() {
    let h = hostile();
    // What XML can carry comes back exactly; what it cannot becomes visible `\u{..}` text.
    let carried = "a<b&c\"d'e]]>f\\u{0}g\\u{1b}[31mh\ni\r\nj\tk\\u{ffff}l";

    let mut failed = scenario("f", "s", Status::Failed, 1);
    failed.name = h.clone();
    failed.file = h.clone();
    failed.suite = h.clone();
    let mut f = nested_mismatch();
    f.message = format!("{h}\nsecond line");
    f.transcript = vec![h.clone()];
    f.stderr_tail = vec![h.clone(), "]]>".to_owned()];
    f.actual = Some(json!({ "text": h.clone() }));
    failed.failure = Some(f);

    let mut skipped = scenario("s", "s", Status::Skipped, 1);
    skipped.name = format!("{h} 2");
    skipped.skip_reason = Some(h.clone());

    let mut baselined = failed.clone();
    baselined.baseline_expected_failure = true;

    let report = RunReport {
        target: h.clone(),
        target_file: h.clone(),
        scenarios: vec![failed.clone(), skipped, baselined],
        duration: Duration::from_millis(5),
        stale_baseline: vec![h.clone()],
        unknown_baseline: vec![h.clone()],
    };
    let doc = to_junit_xml(&report);
    let root = xml::parse(&doc).unwrap_or_else(|e| panic!("{e}\n{doc}"));

    let suite = root.elements().next().expect("suite");
    assert_eq!(suite.attr("name"), Some(carried));
    let cases: Vec<&xml::Element> = suite.elements().collect();
    for attr in ["classname", "name", "file"] {
        assert_eq!(cases[0].attr(attr), Some(carried), "{attr}");
    }
    let failure = cases[0].elements().next().expect("failure");
    // The message attribute is the first line of the message (up to the first `\n`).
    assert_eq!(
        failure.attr("message"),
        Some("a<b&c\"d'e]]>f\\u{0}g\\u{1b}[31mh")
    );
    assert_eq!(failure.text(), failure_block(&failed));
    // The baselined copy: skipped, with the same block as its output.
    let baselined: Vec<&xml::Element> = cases[1].elements().collect();
    assert_eq!(baselined[0].name, "skipped");
    assert_eq!(baselined[1].text(), failure_block(&report.scenarios[2]));

    let suites: Vec<&xml::Element> = root.elements().collect();
    assert_eq!(suites.len(), 3);
    let skipped_case = suites[1].elements().next().expect("skipped case");
    assert_eq!(
        skipped_case.attr("name"),
        Some(format!("{carried} 2").as_str())
    );
    let skipped = skipped_case.elements().next().expect("skipped");
    assert_eq!(skipped.attr("message"), Some(carried));
    let stale_case = suites[2].elements().next().expect("stale case");
    assert_eq!(
        stale_case.attr("name"),
        Some(format!("baseline/{carried}").as_str())
    );

    // The document itself holds no raw control character but the three XML allows.
    assert!(
        !doc.chars()
            .any(|c| c.is_control() && !matches!(c, '\t' | '\n'))
    );
}

mod common;
use common::xml;
