//! `run` with several `--target`s: one run, one report, each scenario judged against every
//! target that claims its suite and named after it; `*` picks built-in targets by name.

use assert_cmd::Command;
use serde_json::Value;
use std::path::Path;

fn write(dir: &Path, name: &str, text: &str) {
    std::fs::write(dir.join(name), text).expect("write a scenario");
}

fn scenarios() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temporary folder");
    write(
        dir.path(),
        "tools.yaml",
        "name: mt/tools\nsuite: protocol\nsteps:\n  - initialize: {}\n  - list_tools:\n    expect: {tools: {$len: {$gt: 0}}}\n",
    );
    write(
        dir.path(),
        "custom.yaml",
        "name: mt/custom\nsuite: custom\nsteps:\n  - initialize: {}\n",
    );
    dir
}

fn mcpc() -> Command {
    Command::cargo_bin("mcp-conformance").expect("the built binary")
}

#[test]
fn several_targets_make_one_report_with_each_scenario_named_after_its_target() {
    let dir = scenarios();
    let json = dir.path().join("report.json");
    let out = mcpc()
        .args([
            "run",
            "--no-color",
            "--target",
            "fixture-legacy",
            "-t",
            "fixture-modern",
        ])
        .arg(dir.path())
        .arg("--json")
        .arg(&json)
        .output()
        .expect("run");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(&json).expect("the report")).expect("JSON");
    assert_eq!(report["target"], "fixture-legacy, fixture-modern");
    let names: Vec<(&str, &str)> = report["scenarios"]
        .as_array()
        .expect("scenarios")
        .iter()
        .map(|s| {
            (
                s["name"].as_str().unwrap_or(""),
                s["status"].as_str().unwrap_or(""),
            )
        })
        .collect();
    // The suite no target claims is one "not judged" line; the protocol scenario is judged
    // against both, in the generation each speaks.
    assert_eq!(
        names,
        vec![
            ("fixture-legacy: mt/tools", "passed"),
            ("fixture-modern: mt/tools", "passed"),
        ]
    );
    assert_eq!(
        report["not_judged"],
        serde_json::json!([
            "1 scenario of suites no target of this run claims: custom (1) \
             (`mcp-conformance list --target ...` names them)"
        ])
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("2 passed, 0 failed, 0 skipped"), "{stdout}");
}

#[test]
fn a_pattern_picks_every_built_in_target_it_matches_and_one_matching_none_is_refused() {
    let dir = scenarios();
    let listed = mcpc()
        .args(["list", "--target", "fixture-*"])
        .arg(dir.path())
        .output()
        .expect("list");
    assert_eq!(listed.status.code(), Some(0));
    let text = String::from_utf8_lossy(&listed.stdout);
    assert!(text.contains("target fixture-legacy ("), "{text}");
    assert!(text.contains("target fixture-modern ("), "{text}");
    assert!(!text.contains("target fixture ("), "{text}");

    let none = mcpc()
        .args(["run", "--target", "nothing-*"])
        .arg(dir.path())
        .output()
        .expect("run");
    assert_eq!(none.status.code(), Some(2));
    assert!(none.stdout.is_empty());
    let err = String::from_utf8_lossy(&none.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("nothing-*: matches no built-in target"),
        "{err}"
    );
}
