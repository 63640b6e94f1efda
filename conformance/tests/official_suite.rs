//! The built-in `official` suite (scenarios `official/...`, mirroring the official
//! conformance suite's server scenarios over stdio): the fixture carrying the official names
//! passes it, and the same fixture answering each name wrongly fails every scenario past its
//! first step (the self-test shows the liar fails them all, but already at the first step,
//! the capabilities).

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Runs `scenarios/official` (and `extra` paths) against `target` with `--strict`; returns
/// (exit code, JSON report).
fn run(target: &Path, extra: &[&str]) -> (i32, Value) {
    let dir = tempfile::tempdir().expect("temp dir");
    let json = dir.path().join("report.json");
    let out = Command::new(env!("CARGO_BIN_EXE_mcp-conformance"))
        .current_dir(repo())
        .arg("run")
        .arg("--target")
        .arg(target)
        .arg("scenarios/official")
        .args(extra)
        .arg("--strict")
        .arg("--no-color")
        .arg("--json")
        .arg(&json)
        .output()
        .expect("run mcp-conformance");
    let text = std::fs::read_to_string(&json).unwrap_or_else(|e| {
        panic!(
            "no JSON report ({e}); stderr:\n{}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (
        out.status.code().unwrap_or(-1),
        serde_json::from_str(&text).expect("a JSON report"),
    )
}

fn ran(report: &Value) -> Vec<&Value> {
    report["scenarios"]
        .as_array()
        .expect("scenarios")
        .iter()
        .filter(|s| s["status"] != "skipped")
        .collect()
}

#[test]
fn the_official_fixture_passes_the_official_and_protocol_suites_in_both_generations() {
    let target = repo().join("fixtures/targets/fixture-official.yaml");
    let (code, report) = run(&target, &["scenarios/protocol"]);
    let failed: Vec<String> = ran(&report)
        .iter()
        .filter(|s| s["status"] != "passed")
        .map(|s| format!("{}: {}", s["name"], s["failure"]["message"]))
        .collect();
    assert!(failed.is_empty(), "{}", failed.join("\n"));
    assert_eq!(code, 0);
    let names: Vec<&str> = ran(&report)
        .iter()
        .filter_map(|s| s["name"].as_str())
        .collect();
    for name in [
        "official/tools-call-simple-text [legacy]",
        "official/tools-call-simple-text [modern]",
        "official/logging-set-level [legacy]",
        "official/sep-2164-resource-not-found [modern]",
        "official/caching [modern]",
    ] {
        assert!(names.contains(&name), "{name} did not run: {names:?}");
    }
    let official = names.iter().filter(|n| n.starts_with("official/")).count();
    assert_eq!(official, 69, "{names:?}");
}

#[test]
fn each_official_name_answered_wrongly_fails_its_scenario_past_the_first_step() {
    let dir = tempfile::tempdir().expect("temp dir");
    let target = dir.path().join("broken.yaml");
    std::fs::write(
        &target,
        "name: fixture-official-broken\n\
         suites: [official]\n\
         protocol_versions: [\"2025-11-25\"]\n\
         generations: [legacy, modern]\n\
         server:\n  command: \"${conformance}\"\n  \
         args: [fixture-server, --generation, dual, --official, --official-broken]\n",
    )
    .expect("write the target");
    let (code, report) = run(&target, &[]);
    assert_eq!(code, 1);
    let scenarios = ran(&report);
    assert_eq!(scenarios.len(), 69);
    let mut wrong = Vec::new();
    for s in scenarios {
        let name = s["name"].as_str().unwrap_or("?");
        if s["status"] != "failed" {
            wrong.push(format!("{name}: {} (must fail)", s["status"]));
        } else if s["failure"]["kind"] != "assertion" {
            wrong.push(format!(
                "{name}: not an assertion: {}",
                s["failure"]["message"]
            ));
        } else if s["failure"]["step"].as_u64().unwrap_or(0) == 0 {
            // Step 0 is the opening: the broken fixture declares every capability, so only
            // the scenario's own checks may refute it.
            wrong.push(format!(
                "{name}: failed at its opening: {}",
                s["failure"]["message"]
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
