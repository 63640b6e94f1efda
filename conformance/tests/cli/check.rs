//! `check`: one command judges a server on the protocol suite, the sweep and the fuzz, in
//! one run with one report; exit 0 clean, 1 a failure, 2 a problem of the invocation.

use crate::{mcpc, read_json};

fn conformance() -> String {
    env!("CARGO_BIN_EXE_mcp-conformance").to_string()
}

#[test]
fn check_judges_protocol_sweep_and_fuzz_in_one_report() {
    let dir = tempfile::tempdir().expect("temp dir");
    let json = dir.path().join("r.json");
    let exe = conformance();
    let out = mcpc(&[
        "check",
        "--no-color",
        "--json",
        json.to_str().expect("utf-8"),
        "--",
        &exe,
        "fixture-server",
    ]);
    assert_eq!(out.code, 0, "{out:?}");
    let report = read_json(&json);
    let names: Vec<&str> = report["scenarios"]
        .as_array()
        .expect("scenarios")
        .iter()
        .filter_map(|s| s["name"].as_str())
        .collect();
    for wanted in [
        "protocol/initialize-supported-version",
        "protocol/unknown-method",
        "protocol/exit-on-stdin-eof",
    ] {
        assert!(names.contains(&wanted), "{wanted} in {names:?}");
    }
    assert!(
        names.iter().any(|n| n.starts_with("sweep/tool/echo/")),
        "the tools are swept: {names:?}"
    );
    assert!(
        names.iter().any(|n| n.starts_with("sweep/protocol/fuzz")),
        "the protocol is fuzzed: {names:?}"
    );
    // The fixture speaks only the legacy generation: the modern scenarios are one line.
    let not_judged = report["not_judged"].to_string();
    assert!(
        not_judged.contains("written for the modern generation"),
        "{not_judged}"
    );
    assert!(!not_judged.contains("does not claim"), "{not_judged}");
}

#[test]
fn check_fails_a_lying_server() {
    let exe = conformance();
    let out = mcpc(&[
        "check",
        "--no-color",
        "--",
        &exe,
        "fixture-server",
        "--liar",
    ]);
    assert_eq!(out.code, 1, "{out:?}");
    assert!(
        out.stdout
            .contains("FAILED  protocol/initialize-unknown-version"),
        "{out:?}"
    );
}

#[test]
fn check_without_a_server_or_with_one_that_cannot_start_exits_2() {
    for args in [
        vec!["check"],
        vec!["check", "--", "/nonexistent/server"],
        vec!["check", "--target", "fixture", "--", "x"],
    ] {
        let out = mcpc(&args);
        assert_eq!(out.code, 2, "{args:?}: {out:?}");
        assert!(out.stdout.is_empty(), "{args:?}: {out:?}");
        assert_eq!(out.stderr.lines().count(), 1, "{args:?}: {out:?}");
    }
}

/// Each scenario's status, by name, in a JSON report.
fn statuses(report: &serde_json::Value) -> std::collections::BTreeMap<String, String> {
    report["scenarios"]
        .as_array()
        .expect("scenarios")
        .iter()
        .map(|s| (s["name"].to_string(), s["status"].to_string()))
        .collect()
}

/// Runs `check` on the fixture with `extra` server flags, recording what it receives in
/// `record`; returns the report.
fn check_fixture(dir: &std::path::Path, mode: &str, extra: &[&str]) -> serde_json::Value {
    let json = dir.join(format!("{mode}.json"));
    let record = dir.join(format!("{mode}.record"));
    let exe = conformance();
    let mut args = vec![
        "check",
        "--no-color",
        "--json",
        json.to_str().expect("utf-8"),
    ];
    if mode == "isolated" {
        args.push("--isolated");
    }
    args.extend(["--", &exe, "fixture-server", "--record"]);
    args.push(record.to_str().expect("utf-8"));
    args.extend(extra);
    let out = mcpc(&args);
    assert!(out.code <= 1, "{out:?}");
    read_json(&json)
}

/// How many `initialize` requests a record holds: one per legacy session opened.
fn handshakes(dir: &std::path::Path, mode: &str) -> usize {
    std::fs::read_to_string(dir.join(format!("{mode}.record")))
        .expect("the record")
        .lines()
        .filter(|l| l.contains(r#""method":"initialize""#))
        .count()
}

#[test]
fn scenarios_that_only_ask_share_a_server_and_the_verdicts_stay_the_same() {
    let dir = tempfile::tempdir().expect("temp dir");
    let shared = check_fixture(dir.path(), "shared", &[]);
    let isolated = check_fixture(dir.path(), "isolated", &[]);
    assert_eq!(statuses(&shared), statuses(&isolated));
    let (few, many) = (
        handshakes(dir.path(), "shared"),
        handshakes(dir.path(), "isolated"),
    );
    assert!(
        few * 2 < many,
        "shared: {few} sessions opened, isolated: {many}"
    );
}

#[test]
fn each_listed_prompt_and_template_is_read_when_the_server_declares_them() {
    let dir = tempfile::tempdir().expect("temp dir");
    let json = dir.path().join("r.json");
    let exe = conformance();
    // The fixture with the official suite's fixture names declares prompts and lists four.
    let out = mcpc(&[
        "check",
        "--no-color",
        "--json",
        json.to_str().expect("utf-8"),
        "--",
        &exe,
        "fixture-server",
        "--official",
    ]);
    assert_eq!(out.code, 0, "{out:?}");
    let report = read_json(&json);
    let prompts: Vec<(String, String)> = report["scenarios"]
        .as_array()
        .expect("scenarios")
        .iter()
        .filter(|s| {
            s["name"]
                .as_str()
                .is_some_and(|n| n.starts_with("sweep/prompt/"))
        })
        .map(|s| (s["name"].to_string(), s["status"].to_string()))
        .collect();
    assert!(
        prompts
            .iter()
            .any(|(n, _)| n.contains("sweep/prompt/test_prompt_with_arguments/get")),
        "{prompts:?}"
    );
    assert!(
        prompts.iter().all(|(_, s)| s == "\"passed\""),
        "{prompts:?}"
    );
    // Its resource template is read through, with a value for its variable.
    let templates: Vec<String> = report["scenarios"]
        .as_array()
        .expect("scenarios")
        .iter()
        .filter(|s| {
            s["name"]
                .as_str()
                .is_some_and(|n| n.starts_with("sweep/resource-template/"))
        })
        .map(|s| format!("{} {}", s["name"], s["status"]))
        .collect();
    assert!(
        !templates.is_empty() && templates.iter().all(|t| t.ends_with("\"passed\"")),
        "{templates:?}"
    );
    // Without the prompts capability, no prompt is asked for.
    let plain = dir.path().join("plain.json");
    let out = mcpc(&[
        "check",
        "--no-color",
        "--json",
        plain.to_str().expect("utf-8"),
        "--",
        &exe,
        "fixture-server",
    ]);
    assert_eq!(out.code, 0, "{out:?}");
    let plain = read_json(&plain).to_string();
    assert!(!plain.contains("sweep/prompt/") && !plain.contains("sweep/resource-template/"));
}
