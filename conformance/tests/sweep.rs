//! `mcp-conformance sweep` driven as a user would: against the suite's fixture server (clean),
//! against a fixture serving one broken tool for each kind of check (every one found, written
//! out with `--emit-repro`, and failing again when `run` replays it), against answers that
//! break JSON-RPC 2.0 (named for what they are), and against servers that cannot be swept
//! (one line, exit 2, within the deadline).

use assert_cmd::Command;
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_mcp-conformance");

fn sweep(args: &[&str]) -> std::process::Output {
    Command::new(BIN)
        .arg("sweep")
        .args(args)
        .output()
        .expect("run the sweep")
}

/// Sweeps the fixture server started with `fixture_args`, writing the JSON report and the
/// repro cases into `dir`; returns the output and both paths.
fn sweep_fixture_with_repro(
    dir: &Path,
    fixture_args: &[&str],
) -> (std::process::Output, PathBuf, PathBuf) {
    let json = dir.join("sweep.json");
    let repro = dir.join("repro");
    let mut args = vec![
        "--emit-repro",
        repro.to_str().expect("utf-8 path"),
        "--json",
        json.to_str().expect("utf-8 path"),
        "--",
        BIN,
        "fixture-server",
    ];
    args.extend_from_slice(fixture_args);
    let out = sweep(&args);
    (out, json, repro)
}

fn report(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).expect("the JSON report")).expect("JSON")
}

/// The scenarios that failed, and those that warned, by name.
fn verdicts(report: &Value) -> (BTreeSet<String>, BTreeSet<String>) {
    let mut failed = BTreeSet::new();
    let mut warned = BTreeSet::new();
    for s in report["scenarios"].as_array().expect("scenarios") {
        let name = s["name"].as_str().unwrap_or_default().to_string();
        if s["status"] == "failed" {
            failed.insert(name.clone());
        }
        if s["warnings"].as_array().is_some_and(|w| !w.is_empty()) {
            warned.insert(name);
        }
    }
    (failed, warned)
}

#[test]
fn the_fixture_server_sweeps_clean_in_both_generations_even_when_strict() {
    let dir = tempfile::tempdir().expect("tempdir");
    let json = dir.path().join("sweep.json");
    let out = sweep(&[
        "--strict",
        "--json",
        json.to_str().expect("utf-8 path"),
        "--",
        BIN,
        "fixture-server",
        "--generation",
        "dual",
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let names: Vec<String> = report(&json)["scenarios"]
        .as_array()
        .expect("scenarios")
        .iter()
        .filter_map(|s| s["name"].as_str().map(str::to_string))
        .collect();
    for expected in [
        "sweep/surface/input-schemas [legacy]",
        "sweep/surface/tool-names [modern]",
        "sweep/tool/echo/valid [legacy]",
        "sweep/tool/echo/invalid [modern]",
    ] {
        assert!(
            names.iter().any(|n| n == expected),
            "{expected} in {names:?}"
        );
    }
    // The fixture's crash tool is not annotated read-only: left out, and said so.
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("not called: crash"), "{err}");
}

#[test]
fn each_broken_tool_is_found_written_out_and_fails_again_when_replayed() {
    let tools = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/sweep/broken-tools.yaml");
    let dir = tempfile::tempdir().expect("tempdir");
    let (out, json, repro) = sweep_fixture_with_repro(dir.path(), &["--tools", tools]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let (failed, warned) = verdicts(&report(&json));
    let expected_failed: BTreeSet<String> = [
        "sweep/surface/input-schemas",
        "sweep/surface/output-schemas",
        "sweep/surface/annotations",
        "sweep/tool/bad-result/valid",
        "sweep/tool/bad-structured/valid",
        "sweep/tool/dies/valid",
    ]
    .into_iter()
    .map(String::from)
    .collect();
    let expected_warned: BTreeSet<String> = [
        "sweep/surface/tool-names",
        "sweep/surface/tool-names-unique",
        "sweep/tool/accepts-anything/invalid",
        "sweep/tool/bad-result/invalid",
        "sweep/tool/bad-structured/invalid",
        "sweep/tool/dies/invalid",
    ]
    .into_iter()
    .map(String::from)
    .collect();
    assert_eq!(failed, expected_failed);
    assert_eq!(warned, expected_warned);

    // A duplicate name is reported under the one sentence it breaks, naming the name.
    let sweep_report = report(&json);
    let unique = sweep_report["scenarios"]
        .as_array()
        .and_then(|all| {
            all.iter()
                .find(|s| s["name"] == "sweep/surface/tool-names-unique")
        })
        .expect("the uniqueness scenario");
    let quotes: Vec<&str> = unique["source"]
        .as_array()
        .expect("sources")
        .iter()
        .filter_map(|s| s["quote"].as_str())
        .collect();
    assert_eq!(quotes, ["Tool names SHOULD be unique within a server."]);
    let label = unique["warnings"][0]["step_label"]
        .as_str()
        .unwrap_or_default();
    assert!(
        label.contains("listed more than once: \"twice\""),
        "{label}"
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("twice: listed more than once"), "{err}");

    // A failing valid call is shrunk to the simplest arguments that still fail: this tool
    // fails whatever it is given, so to none at all.
    let shrunk = std::fs::read_to_string(
        repro
            .join("scenarios")
            .join("sweep_tool_bad-result_valid_step-1_legacy.yaml"),
    )
    .expect("the bad-result case");
    let shrunk: Value = serde_saphyr::from_str(&shrunk).expect("YAML");
    assert_eq!(
        shrunk["steps"][1]["args"],
        serde_json::json!({}),
        "{shrunk}"
    );

    // Replayed from another folder, each written case fails (or warns) the same way.
    let replay_json = dir.path().join("replay.json");
    let replay = Command::new(BIN)
        .current_dir(dir.path())
        .args(["run", "--no-color", "--target"])
        .arg(repro.join("target.yaml"))
        .arg(repro.join("scenarios"))
        .arg("--json")
        .arg(&replay_json)
        .output()
        .expect("replay");
    assert_eq!(
        replay.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&replay.stdout)
    );
    let (again_failed, again_warned) = verdicts(&report(&replay_json));
    let base = |names: &BTreeSet<String>| -> BTreeSet<String> {
        names
            .iter()
            .map(|n| {
                n.split("/step-")
                    .next()
                    .and_then(|n| n.split("/legacy").next())
                    .unwrap_or(n)
                    .to_string()
            })
            .collect()
    };
    assert_eq!(base(&again_failed), expected_failed);
    assert_eq!(base(&again_warned), expected_warned);
}

#[test]
fn a_tool_failing_only_on_one_schema_edge_is_found_at_every_seed() {
    // Each tool crashes or hangs on one edge of its inputSchema only (an empty string, exactly
    // `maximum`, the nearest integer inside `exclusiveMaximum`, the last `enum` member): the
    // seeded draws reach such a value at some seeds only, the edge cases at all of them.
    let tools = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/sweep/edge-tools.yaml");
    let expected: [(&str, &str); 4] = [
        ("empty-crash", "edge: text empty string"),
        ("max-hang", "edge: count maximum 1000"),
        (
            "below-exclusive-crash",
            "edge: size exclusiveMaximum 100: 99",
        ),
        ("enum-crash", "edge: mode enum member \"h\""),
    ];
    let runs: Vec<_> = (1..=8u64)
        .map(|seed| {
            std::thread::spawn(move || {
                let dir = tempfile::tempdir().expect("tempdir");
                let json = dir.path().join("sweep.json");
                let seed_text = seed.to_string();
                let repro = dir.path().join("repro");
                let mut args = vec![];
                if seed == 1 {
                    args.extend(["--emit-repro", repro.to_str().expect("utf-8 path")]);
                }
                args.extend([
                    "--seed",
                    &seed_text,
                    "--protocol",
                    "legacy",
                    "--step-timeout",
                    "2s",
                    "--jobs",
                    "8",
                    "--json",
                    json.to_str().expect("utf-8 path"),
                    "--",
                    BIN,
                    "fixture-server",
                    "--tools",
                    tools,
                ]);
                let out = sweep(&args);
                let written: Vec<(String, String)> = std::fs::read_dir(repro.join("scenarios"))
                    .into_iter()
                    .flatten()
                    .filter_map(|e| e.ok())
                    .filter_map(|e| {
                        let name = e.file_name().to_string_lossy().into_owned();
                        Some((name, std::fs::read_to_string(e.path()).ok()?))
                    })
                    .collect();
                (seed, out, report(&json), written)
            })
        })
        .collect();
    for run in runs {
        let (seed, out, report, written) = run.join().expect("a sweep thread");
        assert_eq!(out.status.code(), Some(1), "seed {seed}");
        let (failed, _) = verdicts(&report);
        let expected_failed: BTreeSet<String> = expected
            .iter()
            .map(|(tool, _)| format!("sweep/tool/{tool}/valid"))
            .collect();
        assert_eq!(failed, expected_failed, "seed {seed}");
        for (tool, edge) in expected {
            let name = format!("sweep/tool/{tool}/valid");
            let scenario = report["scenarios"]
                .as_array()
                .and_then(|all| all.iter().find(|s| s["name"] == name.as_str()))
                .expect("the tool's scenario");
            let label = scenario["failure"]["step_label"]
                .as_str()
                .unwrap_or_default();
            assert_eq!(
                label,
                format!("call {tool} ({edge})"),
                "seed {seed}: {}",
                scenario["failure"]
            );
            // The case written out names its edge too (`--emit-repro`, seed 1).
            if seed == 1 {
                let prefix = format!("sweep_tool_{tool}_valid_step-");
                let case = written
                    .iter()
                    .find(|(file, _)| file.starts_with(&prefix))
                    .and_then(|(_, text)| serde_saphyr::from_str::<Value>(text).ok())
                    .unwrap_or_else(|| panic!("{prefix}* in {written:?}"));
                let label = case["steps"][1]["label"].as_str().unwrap_or_default();
                assert!(
                    label.starts_with(&format!("call {tool} ({edge})")),
                    "{case}"
                );
            }
        }
    }
}

#[test]
fn a_server_that_dies_on_a_fuzz_line_is_found_and_the_line_kept() {
    // `--crash-after 1`: the first tools/call the fixture receives (a fuzz line is one) makes
    // it exit without answering.
    let dir = tempfile::tempdir().expect("tempdir");
    let (out, json, repro) = sweep_fixture_with_repro(dir.path(), &["--crash-after", "1"]);
    assert_eq!(out.status.code(), Some(1));
    let (failed, _) = verdicts(&report(&json));
    assert!(failed.contains("sweep/protocol/fuzz"), "{failed:?}");
    // Kept: the session, the line that stopped the server (and the check of its answer, when
    // it is a request), and the request it left unanswered.
    let kept: Vec<std::path::PathBuf> = std::fs::read_dir(repro.join("scenarios"))
        .expect("the repro folder")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.to_string_lossy().contains("sweep_protocol_fuzz_step-"))
        .collect();
    assert_eq!(kept.len(), 1, "{kept:?}");
    let case: Value = serde_saphyr::from_str(&std::fs::read_to_string(&kept[0]).expect("the case"))
        .expect("YAML");
    let steps = case["steps"].as_array().expect("steps");
    // [initialize, the line, (the check of its answer, for a request with an unusual id,)
    // the liveness request].
    match steps.len() {
        3 => {}
        4 => assert!(steps[2].get("expect_message").is_some(), "{case}"),
        n => panic!("{n} steps: {case}"),
    }
    assert!(
        steps[1].get("send").is_some() || steps[1].get("send_bytes").is_some(),
        "{case}"
    );
    assert!(steps[steps.len() - 1].get("list_tools").is_some(), "{case}");
    let replay = Command::new(BIN)
        .args(["run", "--no-color", "--target"])
        .arg(repro.join("target.yaml"))
        .arg(&kept[0])
        .output()
        .expect("replay");
    assert_eq!(
        replay.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&replay.stdout)
    );
}

#[test]
fn answers_that_break_jsonrpc_are_named_in_the_tool_checks_and_the_discovery() {
    // Every tools/call answered with both result and error: each call fails as that, at
    // level must, although the result alone passes the tool checks.
    let dir = tempfile::tempdir().expect("tempdir");
    let (out, json, _) =
        sweep_fixture_with_repro(dir.path(), &["--jsonrpc-defect", "result-and-error"]);
    assert_eq!(out.status.code(), Some(1));
    let report = report(&json);
    let echo = report["scenarios"]
        .as_array()
        .expect("scenarios")
        .iter()
        .find(|s| s["name"] == "sweep/tool/echo/valid")
        .expect("the echo cases");
    assert_eq!(echo["status"], "failed");
    assert_eq!(echo["failure"]["level"], "must");
    let message = echo["failure"]["message"].as_str().unwrap_or_default();
    assert_eq!(
        message.lines().next(),
        Some("a response with both result and error"),
        "{message}"
    );

    // Request 1 (initialize) answered with id "1": no session opens, and the one line says
    // why.
    let out = sweep(&[
        "--",
        BIN,
        "fixture-server",
        "--jsonrpc-defect",
        "string-ids",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("initialize: answered request 1 with id \"1\" (a string)"),
        "{err}"
    );
}

#[test]
fn a_server_that_cannot_be_swept_gets_one_line_and_exit_2_within_the_deadline() {
    let cases: Vec<Vec<&str>> = vec![
        vec![],
        vec!["--", "no-such-program-for-a-sweep"],
        vec!["--", "false"],
        vec![
            "--step-timeout",
            "1s",
            "--",
            BIN,
            "fixture-server",
            "--init-delay-ms",
            "60000",
        ],
    ];
    for args in cases {
        let started = Instant::now();
        let out = sweep(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(
            out.stdout.is_empty(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stdout)
        );
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.starts_with("mcp-conformance: sweep: "), "{err}");
        assert!(started.elapsed() < Duration::from_secs(20), "{args:?}");
    }
}

#[test]
fn progress_that_does_not_increase_fails_the_call_that_asked_for_it() {
    let tools = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/sweep/progress-tools.yaml"
    );
    let dir = tempfile::tempdir().expect("tempdir");
    let json = dir.path().join("sweep.json");
    let out = sweep(&[
        "--protocol",
        "legacy",
        "--json",
        json.to_str().expect("utf-8 path"),
        "--",
        BIN,
        "fixture-server",
        "--tools",
        tools,
    ]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let (failed, _) = verdicts(&report(&json));
    assert!(failed.contains("sweep/tool/stuck/valid"), "{failed:?}");
    assert!(!failed.contains("sweep/tool/steady/valid"), "{failed:?}");
}

#[test]
fn a_log_for_a_request_without_a_log_level_fails_in_2026_07_28_only() {
    let tools = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/sweep/progress-tools.yaml"
    );
    let dir = tempfile::tempdir().expect("tempdir");
    let json = dir.path().join("sweep.json");
    let out = sweep(&[
        "--protocol",
        "both",
        "--json",
        json.to_str().expect("utf-8 path"),
        "--",
        BIN,
        "fixture-server",
        "--generation",
        "dual",
        "--tools",
        tools,
    ]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let (failed, _) = verdicts(&report(&json));
    assert!(
        failed.contains("sweep/tool/chatty/unlogged [modern]"),
        "{failed:?}"
    );
    assert!(
        !failed.contains("sweep/tool/steady/unlogged [modern]"),
        "{failed:?}"
    );
    assert!(
        !failed.iter().any(|f| f.contains("chatty/valid")),
        "{failed:?}"
    );
}

#[test]
fn a_log_below_the_level_asked_for_is_a_warning_in_both_generations() {
    let tools = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/sweep/progress-tools.yaml"
    );
    let dir = tempfile::tempdir().expect("tempdir");
    let json = dir.path().join("sweep.json");
    // `--official` declares logging (and honours the level for its own tools); `chatty` logs
    // at level info whatever was asked.
    sweep(&[
        "--protocol",
        "both",
        "--include-mutating",
        "--json",
        json.to_str().expect("utf-8 path"),
        "--",
        BIN,
        "fixture-server",
        "--generation",
        "dual",
        "--official",
        "--tools",
        tools,
    ]);
    let (failed, warned) = verdicts(&report(&json));
    let judged: BTreeSet<String> = failed.union(&warned).cloned().collect();
    for name in [
        "sweep/tool/chatty/log-threshold [legacy]",
        "sweep/tool/chatty/log-level [modern]",
    ] {
        assert!(warned.contains(name), "{name}: {failed:?} {warned:?}");
        assert!(!failed.contains(name), "a SHOULD: {failed:?}");
    }
    for tool in ["steady", "test_tool_with_logging"] {
        assert!(
            !judged.iter().any(|n| n.contains(&format!("{tool}/log-"))),
            "{tool} honours the level: {judged:?}"
        );
    }
    let scenarios = report(&json)["scenarios"].clone();
    let threshold = scenarios
        .as_array()
        .into_iter()
        .flatten()
        .find(|s| s["name"] == "sweep/tool/test_tool_with_logging/log-threshold [legacy]");
    assert!(
        threshold.is_some_and(|s| s["status"] == "passed"),
        "judged, not skipped: {threshold:?}"
    );
}
