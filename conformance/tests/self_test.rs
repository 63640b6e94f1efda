//! The suite's self-test: every scenario must be able to fail.
//!
//! Each scenario in `scenarios/` (all suites, now and later) is run against the liar target,
//! a server that answers everything with a plausible success. Every one must FAIL there, and
//! on its own assertions (not because it could not be set up). The fixture target must pass
//! the whole protocol suite.

use mcp_conformance::runner::jsonrpc::JUDGED_AFTER_THE_STEPS;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Runs the suite with a JSON report and returns (exit code, report).
fn run_suite(target: &str, paths: &[&str]) -> (i32, Value) {
    run_suite_with(target, paths, &[])
}

/// [`run_suite`] with extra options.
fn run_suite_with(target: &str, paths: &[&str], options: &[&str]) -> (i32, Value) {
    let dir = tempfile::tempdir().expect("temp dir");
    let json = dir.path().join("report.json");
    let out = Command::new(env!("CARGO_BIN_EXE_mcp-conformance"))
        .current_dir(repo())
        .arg("run")
        .arg("--target")
        .arg(target)
        .args(paths)
        .arg("--json")
        .arg(&json)
        .arg("--no-color")
        // Liar scenarios mostly wait out deadlines, not the CPU: run many at once (32: the
        // self-test in 35 s here rather than 63 s with 12, the same verdicts).
        .args(["--jobs", "32"])
        .args(options)
        .output()
        .expect("run mcp-conformance");
    let text = std::fs::read_to_string(&json).unwrap_or_else(|e| {
        panic!(
            "no JSON report ({e}); stdout:\n{}\nstderr:\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    let report: Value = serde_json::from_str(&text).expect("valid JSON report");
    (out.status.code().unwrap_or(-1), report)
}

/// True for a copy of a scenario skipped only because it belongs to the other generation's
/// pass (a scenario tagged `legacy` or `modern`).
fn skipped_for_the_other_pass(s: &Value) -> bool {
    s["status"] == "skipped"
        && s["skip_reason"]
            .as_str()
            .is_some_and(|r| r.contains("-generation scenario (tag `"))
}

/// The scenario's name without the generation a `both` run appends.
fn base_name(name: &str) -> &str {
    name.strip_suffix(" [legacy]")
        .or_else(|| name.strip_suffix(" [modern]"))
        .unwrap_or(name)
}

#[test]
fn every_scenario_fails_against_the_liar() {
    // The liar declares every generation, so each scenario runs once per generation it
    // applies to; every copy that runs must fail, and every scenario must run somewhere.
    // `--strict`: a check of level `should` must be able to fail too, and only fails the
    // scenario when warnings weigh as failures.
    let (code, report) =
        run_suite_with("fixtures/targets/liar.yaml", &["scenarios"], &["--strict"]);
    let scenarios = report["scenarios"].as_array().expect("scenarios array");
    assert!(!scenarios.is_empty(), "no scenarios found");
    let mut wrong = Vec::new();
    let mut ran = std::collections::BTreeSet::new();
    let mut seen = std::collections::BTreeSet::new();
    for s in scenarios {
        let name = s["name"].as_str().unwrap_or("?");
        let status = s["status"].as_str().unwrap_or("?");
        let kind = s["failure"]["kind"].as_str().unwrap_or("-");
        seen.insert(base_name(name).to_string());
        if skipped_for_the_other_pass(s) {
            continue;
        }
        ran.insert(base_name(name).to_string());
        if status != "failed" {
            wrong.push(format!("{name}: {status} (must fail against the liar)"));
        } else if kind != "assertion" {
            let message = s["failure"]["message"].as_str().unwrap_or("");
            wrong.push(format!(
                "{name}: failed with a set-up error, not an assertion: {message}"
            ));
        } else if s["failure"]["message"]
            .as_str()
            .is_some_and(|m| m.contains(JUDGED_AFTER_THE_STEPS))
        {
            // The liar breaks JSON-RPC 2.0 (a result with id null for every notification),
            // which fails any scenario whose own steps all held: that is not the scenario's
            // own doing.
            wrong.push(format!(
                "{name}: every step held; only the JSON-RPC check failed it"
            ));
        }
    }
    for name in seen.difference(&ran) {
        wrong.push(format!("{name}: never ran against the liar"));
    }
    assert!(
        wrong.is_empty(),
        "scenarios the liar does not refute:\n{}",
        wrong.join("\n")
    );
    assert_eq!(code, 1, "a run with failures exits 1");
}

/// Runs the protocol suite against a fixture target and demands that everything that
/// applies passes (copies for the other pass or for other kinds of server are skipped).
fn fixture_passes(target: &str) -> Value {
    let (code, report) = run_suite(target, &["scenarios/protocol"]);
    let failed: Vec<String> = report["scenarios"]
        .as_array()
        .expect("scenarios array")
        .iter()
        .filter(|s| s["status"] == "failed")
        .map(|s| format!("{}: {}", s["name"], s["failure"]["message"]))
        .collect();
    assert!(failed.is_empty(), "{target} failed:\n{}", failed.join("\n"));
    assert_eq!(report["summary"]["failed"], 0);
    assert_eq!(code, 0);
    report
}

/// The names of the scenarios that passed in a report.
fn passed(report: &Value) -> Vec<String> {
    report["scenarios"]
        .as_array()
        .expect("scenarios array")
        .iter()
        .filter(|s| s["status"] == "passed")
        .filter_map(|s| s["name"].as_str().map(String::from))
        .collect()
}

#[test]
fn fixture_passes_the_protocol_suite() {
    // The dual-era fixture: both passes, and the dual-era scenario.
    let report = fixture_passes("fixtures/targets/fixture.yaml");
    let passed = passed(&report);
    assert!(passed.contains(&"protocol/dual-era-both-openings [legacy]".to_string()));
    assert!(passed.contains(&"protocol/modern-discover-shape [modern]".to_string()));
}

#[test]
fn legacy_only_and_modern_only_fixtures_pass_what_applies() {
    let legacy = passed(&fixture_passes("fixtures/targets/fixture-legacy.yaml"));
    assert!(legacy.contains(&"protocol/legacy-only-discover-error".to_string()));
    assert!(legacy.contains(&"protocol/ping".to_string()));
    let modern = passed(&fixture_passes("fixtures/targets/fixture-modern.yaml"));
    assert!(modern.contains(&"protocol/modern-stateless".to_string()));
    assert!(!modern.iter().any(|n| n.starts_with("protocol/ping")));
}
