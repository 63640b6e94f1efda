//! `mcp-conformance targets`: the built-in targets as scripts read them (the reference servers'
//! one list).

use assert_cmd::Command;
use serde_json::{Value, json};

fn mcp(args: &[&str]) -> std::process::Output {
    Command::cargo_bin("mcp-conformance")
        .expect("the built binary")
        .args(args)
        .output()
        .expect("run mcp-conformance")
}

fn targets(args: &[&str]) -> std::process::Output {
    mcp(&[&["targets"], args].concat())
}

/// `targets --json` parsed, and the entry called `name` of it.
fn listed(args: &[&str], name: &str) -> Value {
    let out = targets(&[&["--json"], args].concat());
    assert_eq!(out.status.code(), Some(0));
    let all: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    all.as_array()
        .expect("an array")
        .iter()
        .find(|t| t["name"] == name)
        .unwrap_or_else(|| panic!("{name} listed"))
        .clone()
}

#[test]
fn the_reference_servers_are_the_reference_target_files() {
    let out = targets(&["--reference"]);
    assert_eq!(out.status.code(), Some(0));
    let names: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_string)
        .collect();
    let mut files: Vec<String> = std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/targets"))
        .expect("conformance/targets")
        .filter_map(|e| e.ok())
        .filter_map(|e| e.file_name().to_str().map(str::to_string))
        .filter(|f| f.starts_with("reference-") && f.ends_with(".yaml"))
        .map(|f| f.trim_end_matches(".yaml").to_string())
        .collect();
    files.sort();
    assert_eq!(names, files);

    let all = String::from_utf8_lossy(&targets(&[]).stdout).to_string();
    assert!(all.lines().any(|l| l == "liar"), "{all}");
}

#[test]
fn json_says_what_each_target_claims_and_how_it_starts() {
    let hub = listed(&["--reference"], "reference-hub");
    assert_eq!(hub["reference"], true);
    assert_eq!(hub["suites"], json!(["protocol", "hub"]));
    assert_eq!(hub["generations"], json!(["legacy", "modern"]));
    assert_eq!(hub["command"], "mcp-hub");
    assert_eq!(hub["args"], json!(["${workspace}/hub.toml"]));
    assert_eq!(hub["admin"], Value::Null);
    let toolhub = listed(&["--reference"], "reference-toolhub");
    assert_eq!(toolhub["admin"], "mcp-toolhub-admin");

    // Without --reference: every built-in target, the others marked as such.
    let liar = listed(&[], "liar");
    assert_eq!(liar["reference"], false);
    assert_eq!(liar["generations"], json!(["*"]));
}

#[test]
fn every_listed_name_is_a_target_run_accepts() {
    let out = targets(&["--reference"]);
    for name in String::from_utf8_lossy(&out.stdout).lines() {
        let list = mcp(&["list", "--target", name, "--name", "protocol/ping"]);
        let stderr = String::from_utf8_lossy(&list.stderr);
        assert_eq!(list.status.code(), Some(0), "{name}: {stderr}");
    }
}
