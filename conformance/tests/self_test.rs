//! The suite's self-test: every scenario must be able to fail.
//!
//! Each scenario in `scenarios/` (all suites, now and later) is run against the liar target,
//! a server that answers everything with a plausible success. Every one must FAIL there, and
//! on its own assertions (not because it could not be set up). The fixture target must pass
//! the whole protocol suite.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Runs the suite with a JSON report and returns (exit code, report).
fn run_suite(target: &str, paths: &[&str]) -> (i32, Value) {
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
        // Liar scenarios mostly wait out deadlines, not the CPU: run more at once.
        .args(["--jobs", "6"])
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

#[test]
fn every_scenario_fails_against_the_liar() {
    let (code, report) = run_suite("fixtures/targets/liar.yaml", &["scenarios"]);
    let scenarios = report["scenarios"].as_array().expect("scenarios array");
    assert!(!scenarios.is_empty(), "no scenarios found");
    let mut wrong = Vec::new();
    for s in scenarios {
        let name = s["name"].as_str().unwrap_or("?");
        let status = s["status"].as_str().unwrap_or("?");
        let kind = s["failure"]["kind"].as_str().unwrap_or("-");
        if status != "failed" {
            wrong.push(format!("{name}: {status} (must fail against the liar)"));
        } else if kind != "assertion" {
            let message = s["failure"]["message"].as_str().unwrap_or("");
            wrong.push(format!(
                "{name}: failed with a set-up error, not an assertion: {message}"
            ));
        }
    }
    assert!(
        wrong.is_empty(),
        "scenarios the liar does not refute:\n{}",
        wrong.join("\n")
    );
    assert_eq!(code, 1, "a run with failures exits 1");
}

#[test]
fn fixture_passes_the_protocol_suite() {
    let (code, report) = run_suite("fixtures/targets/fixture.yaml", &["scenarios/protocol"]);
    let failed: Vec<String> = report["scenarios"]
        .as_array()
        .expect("scenarios array")
        .iter()
        .filter(|s| s["status"] != "passed")
        .map(|s| format!("{}: {}", s["name"], s["failure"]["message"]))
        .collect();
    assert!(failed.is_empty(), "fixture failed:\n{}", failed.join("\n"));
    assert_eq!(report["summary"]["failed"], 0);
    assert_eq!(code, 0);
}
