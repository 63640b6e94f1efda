//! `mcp-conformance targets`: the built-in targets as scripts read them (the reference servers'
//! one list).

use assert_cmd::Command;
use serde_json::Value;

fn targets(args: &[&str]) -> std::process::Output {
    Command::cargo_bin("mcp-conformance")
        .expect("the built binary")
        .arg("targets")
        .args(args)
        .output()
        .expect("run targets")
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
    let out = targets(&["--reference", "--json"]);
    assert_eq!(out.status.code(), Some(0));
    let listed: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let hub = listed
        .as_array()
        .expect("an array")
        .iter()
        .find(|t| t["name"] == "reference-hub")
        .expect("reference-hub");
    assert_eq!(hub["suites"], serde_json::json!(["protocol", "hub"]));
    assert_eq!(hub["generations"], serde_json::json!(["legacy", "modern"]));
    assert_eq!(hub["command"], "mcp-hub");
}
