//! Failure paths (`engine/fail/`): each failure's kind, message and position, hung servers,
//! results independent of the job count, and sandboxes removed whatever the outcome.

use serde_json::Value;
use std::process::Command;
use std::time::Duration;

use crate::{
    ENGINE, ENGINE_TARGET, Outcome, marked_position, num, repo, run, sandboxes, scenario_name,
    yaml_files,
};

/// What each scenario of `engine/fail/` must report: kind, a message fragment, and whether
/// the failure points at a step (marked in the file) or at the whole scenario.
const FAILURES: &[(&str, &str, &str, bool)] = &[
    (
        "mismatch",
        "assertion",
        "the observation did not match at $.structured.text",
        true,
    ),
    (
        "parallel-inner",
        "assertion",
        "the observation did not match at $.result.pong",
        true,
    ),
    ("hung", "assertion", "no answer within 500ms", true),
    (
        "scenario-timeout",
        "assertion",
        "the scenario did not finish within its deadline of 1s",
        true,
    ),
    (
        "step-timeout-default",
        "assertion",
        "no answer within 400ms",
        true,
    ),
    (
        "poll-never",
        "assertion",
        "still not matched after 300ms: `until` did not match at $.structured.state",
        true,
    ),
    (
        "file-never",
        "assertion",
        "the observation did not match at $.exists",
        true,
    ),
    (
        "no-message-seen",
        "assertion",
        "a message arrived that must not have",
        true,
    ),
    (
        "no-message-within",
        "assertion",
        "a message arrived that must not have",
        true,
    ),
    (
        "expect-message-timeout",
        "assertion",
        "no message matching the pattern arrived within 200ms",
        true,
    ),
    ("not-started", "error", "server spare is not running", true),
    (
        "start-running",
        "error",
        "server main is already running",
        true,
    ),
    (
        "await-unknown",
        "error",
        "await nothing-sent: no request was sent with nowait: nothing-sent",
        true,
    ),
    (
        "unknown-variable",
        "error",
        "unknown variable ${no_such_variable}",
        true,
    ),
    (
        "exec-missing",
        "error",
        "exec: cannot find program \"engine-no-such-program-anywhere\"",
        true,
    ),
    (
        "save-missing",
        "assertion",
        "save v: the observation has nothing at `structured.no.such.path`",
        true,
    ),
    (
        "server-exits",
        "assertion",
        "the server closed its stdout",
        true,
    ),
    (
        "initialize-error",
        "assertion",
        "initialize was answered with an error",
        true,
    ),
    (
        "stop-ignored",
        "assertion",
        "the observation did not match at $.exited",
        true,
    ),
    (
        "sandbox-error",
        "error",
        "cannot prepare the sandbox: cannot expand variables in \"workspace/bad.txt\"",
        false,
    ),
];

#[test]
fn every_failure_points_at_its_step_with_kind_and_message() {
    let files = yaml_files("fail");
    let o = run(ENGINE_TARGET, &[&format!("{ENGINE}/fail")], &["-j", "4"]);
    assert_eq!(o.code, 1, "{}", o.dump());
    assert_eq!(o.report["summary"]["failed"], files.len());
    assert_eq!(o.report["summary"]["passed"], 0);
    for file in &files {
        let short = file
            .rsplit('/')
            .next()
            .and_then(|n| n.strip_suffix(".yaml"))
            .unwrap_or("");
        let &(_, kind, message, at_step) = FAILURES
            .iter()
            .find(|(n, ..)| *n == short)
            .unwrap_or_else(|| panic!("{file}: add it to FAILURES"));
        let name = format!("engine/fail/{short}");
        assert_eq!(scenario_name(file), name);
        let s = o.scenario(&name);
        assert_eq!(s["status"], "failed", "{name}");
        assert_eq!(s["file"], file.as_str());
        let f = &s["failure"];
        assert_eq!(f["kind"], kind, "{name}: {f}");
        let text = f["message"].as_str().unwrap_or("");
        assert!(text.contains(message), "{name}: {text:?} lacks {message:?}");
        assert!(f["transcript"].is_array() && f["stderr_tail"].is_array());
        if at_step {
            let (line, column) = marked_position(file);
            assert_eq!(
                f["position"],
                serde_json::json!({"line": line, "column": column}),
                "{name}: failure.position of {f}"
            );
            assert!(f["step"].is_u64(), "{name}: {f}");
            assert!(f["step_label"].is_string(), "{name}: {f}");
            assert!(
                o.stdout
                    .contains(&format!("at {file}:{line}:{column} (step ")),
                "{name}: the human report shows FILE:LINE:COL\n{}",
                o.stdout
            );
        } else {
            assert!(f["position"].is_null(), "{name}: {f}");
            assert!(f["step"].is_null() && f["step_label"].is_null(), "{name}");
        }
    }

    // Details of a plain mismatch: the step index, label, the parts that differ, the
    // exchange that led there.
    let m = &o.scenario("engine/fail/mismatch")["failure"];
    assert_eq!(m["step"], 2);
    assert_eq!(m["step_label"], "call echo");
    assert_eq!(m["expected"], "expected-text");
    assert_eq!(m["actual"], "actual-text");
    let transcript: Vec<&str> = m["transcript"]
        .as_array()
        .map(|t| t.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    assert!(
        transcript
            .first()
            .is_some_and(|l| l.starts_with("-> ") && l.contains("\"method\":\"initialize\"")),
        "{transcript:#?}"
    );
    assert!(
        transcript
            .last()
            .is_some_and(|l| l.starts_with("<- ") && l.contains("actual-text")),
        "the failing exchange is the last one: {transcript:#?}"
    );
    assert!(
        !transcript.iter().any(|l| l.contains("ping")),
        "steps after the failure did not run"
    );

    // A step inside `parallel`: its own position, the index of the enclosing step.
    let p = &o.scenario("engine/fail/parallel-inner")["failure"];
    assert_eq!(p["step"], 1);
    assert_eq!(p["step_label"], "request ping");

    // Error kinds carry the scenario's variables or the server's state.
    let init = &o.scenario("engine/fail/initialize-error")["failure"];
    assert_eq!(init["actual"]["error"]["code"], -32603);
    let unknown = o.scenario("engine/fail/unknown-variable")["failure"]["message"]
        .as_str()
        .unwrap_or("");
    assert!(unknown.contains("workspace"), "known variables: {unknown}");

    // Deadlines: each failure came from its own deadline, not from the target's (10s step,
    // 30s scenario).
    let ms = |name: &str| num(&o.scenario(name)["duration_ms"]);
    assert!((500..9_000).contains(&ms("engine/fail/hung")));
    assert!((400..9_000).contains(&ms("engine/fail/step-timeout-default")));
    assert!((1_000..9_000).contains(&ms("engine/fail/scenario-timeout")));
    // (`within` stops up to one `every` (20ms) early: see bug_within_observes_at_its_deadline.)
    assert!(ms("engine/fail/poll-never") >= 280);
    assert!(ms("engine/fail/file-never") >= 280);
    assert!(ms("engine/fail/expect-message-timeout") >= 200);
    assert!(ms("engine/fail/stop-ignored") >= 300);

    let last = o.stdout.lines().last().unwrap_or("");
    assert_eq!(last, format!("0 passed, {} failed, 0 skipped", files.len()));
}

#[test]
fn a_hung_server_fails_its_scenario_alone() {
    let pass = format!("{ENGINE}/pass");
    let hung = format!("{ENGINE}/fail/hung.yaml");
    let late = format!("{ENGINE}/fail/scenario-timeout.yaml");
    let o = run(ENGINE_TARGET, &[&hung, &late, &pass], &["-j", "3"]);
    assert_eq!(o.code, 1, "{}", o.dump());
    let failed: Vec<String> = o
        .scenarios()
        .iter()
        .filter(|s| s["status"] == "failed")
        .map(|s| s["name"].as_str().unwrap_or("?").to_owned())
        .collect();
    assert_eq!(
        failed,
        ["engine/fail/hung", "engine/fail/scenario-timeout"],
        "only the hung scenarios fail:\n{:#?}",
        o.not("passed")
    );
    assert_eq!(
        o.report["summary"]["passed"],
        yaml_files("pass").len(),
        "every other scenario of the run passes"
    );
    let hung = o.scenario("engine/fail/hung");
    assert!(num(&hung["duration_ms"]) < 9_000, "{hung}");
    assert!(
        o.wall < Duration::from_secs(60),
        "the run is bounded by the deadlines, not the 10-minute call: {:?}",
        o.wall
    );
}

#[test]
fn job_count_does_not_change_results() {
    let paths = [
        format!("{ENGINE}/pass"),
        format!("{ENGINE}/fail"),
        format!("{ENGINE}/skip"),
    ];
    let paths: Vec<&str> = paths.iter().map(String::as_str).collect();
    let digest = |o: &Outcome| -> Vec<Value> {
        o.scenarios()
            .iter()
            .map(|s| {
                serde_json::json!([
                    s["name"],
                    s["status"],
                    s["skip_reason"],
                    s["failure"]["kind"],
                    s["failure"]["step"],
                    s["failure"]["position"],
                    s["failure"]["step_label"],
                ])
            })
            .collect()
    };
    let one = run(ENGINE_TARGET, &paths, &["-j", "1"]);
    let four = run(ENGINE_TARGET, &paths, &["-j", "4"]);
    assert_eq!(one.code, 1);
    assert_eq!(four.code, 1);
    assert_eq!(one.report["summary"], four.report["summary"]);
    assert_eq!(digest(&one), digest(&four));
    // The report lists scenarios sorted by name, whatever the order they finished in.
    assert_eq!(
        one.names().first().map(String::as_str),
        Some("engine/admin")
    );
}

#[test]
fn sandboxes_are_removed_after_passing_failing_and_timed_out_scenarios() {
    let tmp = tempfile::tempdir().expect("private TMPDIR");
    let before = sandboxes(tmp.path());
    let output = Command::new(env!("CARGO_BIN_EXE_mcp-conformance"))
        .current_dir(repo())
        .env("TMPDIR", tmp.path())
        .args(["run", "--target", ENGINE_TARGET, "--no-color", "-j", "4"])
        .arg(format!("{ENGINE}/pass/files.yaml"))
        .arg(format!("{ENGINE}/pass/git.yaml"))
        .arg(format!("{ENGINE}/fail/scenario-timeout.yaml"))
        .arg(format!("{ENGINE}/fail/sandbox-error.yaml"))
        .arg(format!("{ENGINE}/fail/stop-ignored.yaml"))
        .output()
        .expect("run mcp-conformance");
    assert_eq!(output.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.ends_with("2 passed, 3 failed, 0 skipped\n"),
        "{stdout}"
    );
    assert_eq!(before, 0);
    assert_eq!(
        sandboxes(tmp.path()),
        0,
        "no mcpc-* folder survives the run"
    );
    let leftovers: Vec<_> = std::fs::read_dir(tmp.path())
        .expect("read TMPDIR")
        .filter_map(Result::ok)
        .map(|e| e.file_name())
        .collect();
    assert!(
        leftovers.is_empty(),
        "nothing at all is left: {leftovers:?}"
    );
}
