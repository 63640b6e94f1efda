//! A target's default seeds (`workspace:`, `state:` in the target file): applied to every
//! scenario under the scenario's own seed, and validated when the target is loaded.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn run(target: &Path, paths: &[&str], json: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mcp-conformance"))
        .current_dir(repo())
        .arg("run")
        .arg("--target")
        .arg(target)
        .args(paths)
        .arg("--json")
        .arg(json)
        .arg("--no-color")
        .output()
        .expect("run mcp-conformance")
}

#[test]
fn scenarios_get_the_target_seed_under_their_own() {
    let dir = tempfile::tempdir().expect("temp dir");
    let json = dir.path().join("report.json");
    let out = run(
        Path::new("conformance/tests/engine/targets/seeded.yaml"),
        &["conformance/tests/engine/seeded"],
        &json,
    );
    let text = std::fs::read_to_string(&json)
        .unwrap_or_else(|e| panic!("no report ({e}): {}", String::from_utf8_lossy(&out.stderr)));
    let report: Value = serde_json::from_str(&text).expect("JSON report");
    let scenarios = report["scenarios"].as_array().cloned().unwrap_or_default();
    let names: Vec<&str> = scenarios
        .iter()
        .filter_map(|s| s["name"].as_str())
        .collect();
    assert_eq!(
        names,
        [
            "engine/seeded/default",
            "engine/seeded/knob-args",
            "engine/seeded/override"
        ],
        "{text}"
    );
    for s in &scenarios {
        assert_eq!(s["status"], "passed", "{s}");
    }
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn a_bad_target_seed_is_a_usage_error_naming_the_path_and_its_line() {
    let dir = tempfile::tempdir().expect("temp dir");
    let target = dir.path().join("bad.yaml");
    std::fs::write(
        &target,
        "name: bad\nsuites: [protocol]\nserver: { command: \"true\" }\n\
         workspace: { files: { \"../escape.txt\": x } }\n",
    )
    .expect("write target");
    let out = run(
        &target,
        &["scenarios/protocol/ping.yaml"],
        &dir.path().join("r.json"),
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("bad.yaml:4:") && stderr.contains("\"../escape.txt\": contains a `..`"),
        "{stderr}"
    );
}

#[test]
fn a_bad_state_seed_is_a_usage_error_naming_the_folder() {
    let dir = tempfile::tempdir().expect("temp dir");
    let target = dir.path().join("bad-state.yaml");
    std::fs::write(
        &target,
        "name: bad\nsuites: [protocol]\nserver: { command: \"true\" }\n\
         state: { files: { \"../policy.toml\": x } }\n",
    )
    .expect("write target");
    let out = run(
        &target,
        &["scenarios/protocol/ping.yaml"],
        &dir.path().join("r.json"),
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("bad-state.yaml") && stderr.contains("state") && stderr.contains(".."),
        "{stderr}"
    );
}
