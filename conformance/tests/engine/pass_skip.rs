//! Scenarios that pass (`engine/protocol/`, `engine/pass/`, `engine/tools/`), and scenarios
//! skipped with a reason (`engine/skip/`, engine scenarios on the plain fixture target, and
//! preconditions: `engine/precondition/`).

use serde_json::Value;
use std::collections::BTreeMap;
use std::process::Command;

use crate::{
    ENGINE, ENGINE_TARGET, FIXTURE_TARGET, TOOLS_TARGET, marked_position, run, run_as,
    scenario_name, yaml_files,
};

#[test]
fn protocol_level_scenarios_pass_against_the_repository_fixture_target() {
    let files = yaml_files("protocol");
    let o = run(FIXTURE_TARGET, &[&format!("{ENGINE}/protocol")], &[]);
    assert_eq!(o.code, 0, "{}", o.dump());
    assert!(o.not("passed").is_empty(), "{:#?}", o.not("passed"));
    let mut names = o.names();
    names.sort();
    let mut expected: Vec<String> = files.iter().map(|f| scenario_name(f)).collect();
    expected.sort();
    assert_eq!(names, expected, "every scenario file ran");
    assert_eq!(o.report["summary"]["passed"], files.len());
    assert_eq!(o.report["target"], "fixture-legacy");
}

#[test]
fn engine_scenarios_pass_against_the_engine_target() {
    let files = yaml_files("pass");
    let o = run(ENGINE_TARGET, &[&format!("{ENGINE}/pass")], &["-j", "2"]);
    assert_eq!(o.code, 0, "{}", o.dump());
    assert!(o.not("passed").is_empty(), "{:#?}", o.not("passed"));
    assert_eq!(o.scenarios().len(), files.len());
    for s in o.scenarios() {
        assert!(s["failure"].is_null() && s["skip_reason"].is_null(), "{s}");
        assert_eq!(s["suite"], "engine");
        assert!(
            s["tags"]
                .as_array()
                .is_some_and(|t| t.contains(&Value::from("engine"))),
            "{s}"
        );
        let file = s["file"].as_str().unwrap_or("");
        assert!(files.iter().any(|f| f == file), "file {file} as given");
    }
}

/// Started with signals ignored (`nohup`, a CI runner's shell), the suite still starts what it
/// runs with every signal at its default: a server's `SIGHUP` behaviour is the server's, not
/// the invoking shell's.
#[test]
fn programs_start_with_default_signal_dispositions_under_an_ignoring_parent() {
    let mut ignoring = Command::new("sh");
    ignoring.args([
        "-c",
        "trap '' HUP INT QUIT TERM USR1 USR2; exec \"$0\" \"$@\"",
        env!("CARGO_BIN_EXE_mcp-conformance"),
    ]);
    let o = run_as(
        ignoring,
        ENGINE_TARGET,
        &[&format!("{ENGINE}/pass/signals.yaml")],
        &[],
    );
    assert_eq!(o.code, 0, "{}", o.dump());
    assert_eq!(o.report["summary"]["passed"], 1, "{}", o.dump());
}

#[test]
fn tools_file_target_pass_skip_and_fail() {
    let o = run(TOOLS_TARGET, &[&format!("{ENGINE}/tools")], &[]);
    assert_eq!(o.code, 1, "{}", o.dump());
    assert_eq!(o.report["target"], "engine-tools");
    let ok = o.scenario("engine/tools/custom-tools");
    assert_eq!(ok["status"], "passed", "{}", o.dump());

    let skipped = o.scenario("engine/tools/requires-admin");
    assert_eq!(skipped["status"], "skipped");
    assert_eq!(
        skipped["skip_reason"],
        "target engine-tools lacks knob(s): admin"
    );
    assert!(skipped["failure"].is_null());

    // An `admin` step implies the need for an operator command: skipped, not an error.
    let admin = o.scenario("engine/tools/admin-missing");
    assert_eq!(admin["status"], "skipped");
    assert_eq!(
        admin["skip_reason"],
        "target engine-tools has no operator command (the scenario has admin steps)"
    );

    let broken = &o.scenario("engine/tools/bad-tools-file")["failure"];
    assert_eq!(broken["kind"], "assertion");
    assert!(
        broken["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("the server closed its stdout")),
        "{broken}"
    );
    assert!(
        broken["stderr_tail"]
            .as_array()
            .is_some_and(|t| t.iter().any(|l| l
                .as_str()
                .is_some_and(|l| l.contains("`tools` must be a list")))),
        "the server's stderr explains the exit: {broken}"
    );
    let (line, column) = marked_position(&format!("{ENGINE}/tools/bad-tools-file.yaml"));
    assert_eq!(broken["position"]["line"], line);
    assert_eq!(broken["position"]["column"], column);
}

#[test]
fn scenarios_needing_missing_knobs_are_skipped_with_a_reason_and_unclaimed_suites_summed_up() {
    let o = run(ENGINE_TARGET, &[&format!("{ENGINE}/skip")], &[]);
    assert_eq!(o.code, 0, "skips do not fail a run: {}", o.dump());
    let reasons: BTreeMap<String, String> = o
        .scenarios()
        .iter()
        .map(|s| {
            assert_eq!(s["status"], "skipped", "{s}");
            assert_eq!(s["duration_ms"], 0);
            (
                s["name"].as_str().unwrap_or("?").to_owned(),
                s["skip_reason"].as_str().unwrap_or("").to_owned(),
            )
        })
        .collect();
    let expected: BTreeMap<String, String> = [
        (
            "engine/skip/requires-missing-knob",
            "target engine lacks knob(s): engine_missing_knob",
        ),
        (
            "engine/skip/server-knob-missing",
            "target engine lacks knob(s): engine_other_missing",
        ),
    ]
    .into_iter()
    .map(|(a, b)| (a.to_owned(), b.to_owned()))
    .collect();
    assert_eq!(reasons, expected);
    assert_eq!(o.report["summary"]["skipped"], 2);
    let last = o.stdout.lines().last().unwrap_or("");
    assert_eq!(last, "0 passed, 0 failed, 2 skipped");
    // A scenario of a suite the target does not claim is one line of its own, not a skip.
    let line = "1 scenario of suites target engine does not claim: engine-unclaimed (1)";
    assert!(
        o.report["not_judged"][0]
            .as_str()
            .is_some_and(|l| l.starts_with(line)),
        "{}",
        o.dump()
    );
    assert!(
        o.stdout.contains(&format!("not judged: {line}")),
        "{}",
        o.dump()
    );
    for name in expected.keys() {
        assert!(
            o.stdout.contains(&format!("skipped {name}: ")),
            "the human report names the skip:\n{}",
            o.stdout
        );
    }
}

#[test]
fn engine_scenarios_on_the_plain_fixture_target_leave_nothing_to_judge() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_mcp-conformance"))
        .current_dir(crate::repo())
        .args([
            "run",
            "--target",
            FIXTURE_TARGET,
            &format!("{ENGINE}/pass/admin.yaml"),
        ])
        .output()
        .expect("run mcp-conformance");
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(out.stdout.is_empty(), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("nothing to judge: 1 scenario of suites target fixture-legacy does not claim: engine (1)"),
        "{stderr}"
    );
}

#[test]
fn a_precondition_that_does_not_hold_skips_the_scenario_with_its_reason() {
    // `--beyond`: one of them is a scenario of level beyond, skipped all the same.
    let o = run(
        ENGINE_TARGET,
        &[&format!("{ENGINE}/precondition")],
        &["--beyond"],
    );
    assert_eq!(
        o.code,
        1,
        "only the broken precondition fails: {}",
        o.dump()
    );
    assert_eq!(o.scenario("engine/precondition/met")["status"], "passed");
    for (name, need) in [
        (
            "engine/precondition/unmet-file",
            "precondition not met: the state layout of one implementation (private/layout.db)",
        ),
        (
            "engine/precondition/unmet-exec",
            "precondition not met: a host where the check script succeeds",
        ),
    ] {
        let s = o.scenario(name);
        assert_eq!(s["status"], "skipped", "{s}");
        assert!(s["failure"].is_null(), "{s}");
        assert_eq!(s["warnings"], serde_json::json!([]), "not judged: {s}");
        let reason = s["skip_reason"].as_str().unwrap_or("");
        assert!(reason.starts_with(need), "{reason}");
        assert!(
            o.stdout.contains(&format!("skipped {name}: {need}")),
            "the human report names the skip:\n{}",
            o.stdout
        );
    }
    let broken = o.scenario("engine/precondition/broken");
    assert_eq!(broken["status"], "failed", "{broken}");
    assert_eq!(broken["failure"]["kind"], "error", "{broken}");
    let (line, column) = marked_position(&format!("{ENGINE}/precondition/broken.yaml"));
    assert_eq!(broken["failure"]["position"]["line"], line);
    assert_eq!(broken["failure"]["position"]["column"], column);
}

#[test]
fn a_precondition_needs_an_expect_a_reason_and_a_top_level_file_exec_or_call_step() {
    let dir = tempfile::tempdir().expect("temp dir");
    for (name, steps, wanted) in [
        (
            "no-expect",
            "  - file: a\n    skip_unless: a file\n",
            "`skip_unless` needs an `expect`",
        ),
        (
            "no-reason",
            "  - file: a\n    expect: { exists: true }\n    skip_unless: ' '\n",
            "`skip_unless` says what the scenario needs",
        ),
        (
            "nested",
            "  - parallel:\n      - file: a\n        expect: { exists: true }\n        skip_unless: a file\n",
            "`skip_unless` applies to top-level steps",
        ),
        (
            "request",
            "  - request: ping\n    expect: { result: {} }\n    skip_unless: a ping\n",
            "`skip_unless` does not apply to `request`",
        ),
    ] {
        let file = dir.path().join(format!("{name}.yaml"));
        std::fs::write(&file, format!("name: x/{name}\nsuite: x\nsteps:\n{steps}")).expect("write");
        let out = Command::new(env!("CARGO_BIN_EXE_mcp-conformance"))
            .arg("validate")
            .arg(&file)
            .output()
            .expect("run validate");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{name}: {stderr}");
        assert!(stderr.contains(wanted), "{name}: {stderr}");
    }
}
