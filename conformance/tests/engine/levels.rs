//! Levels (`engine/levels/`): must, should, beyond; `--strict`, `--no-beyond`, and levels
//! `validate` refuses.

use std::process::Command;

use crate::{ENGINE, ENGINE_TARGET, marked_position, run, scenario_name};

#[test]
fn a_should_check_warns_and_strict_makes_it_fail() {
    let files = [
        format!("{ENGINE}/levels/should-step.yaml"),
        format!("{ENGINE}/levels/should-scenario.yaml"),
    ];
    let paths: Vec<&str> = files.iter().map(String::as_str).collect();
    let lenient = run(ENGINE_TARGET, &paths, &[]);
    assert_eq!(
        lenient.code,
        0,
        "warnings alone pass the run\n{}",
        lenient.dump()
    );
    assert_eq!(
        lenient.report["summary"]["warnings"],
        3,
        "{}",
        lenient.dump()
    );
    assert!(
        lenient.stdout.lines().last() == Some("2 passed, 0 failed, 0 skipped, 3 warnings"),
        "{}",
        lenient.dump()
    );
    // The should scenario goes on after its first warning, and stops at the second: that
    // step's capture is what the last step needs.
    for (file, count) in files.iter().zip([1, 2]) {
        let s = lenient.scenario(&scenario_name(file));
        assert_eq!(s["status"], "passed");
        let warnings = s["warnings"].as_array().expect("a warnings list");
        assert_eq!(warnings.len(), count, "{count} warning(s): {s}");
        assert!(warnings.iter().all(|w| w["level"] == "should"), "{s}");
        if count == 2 {
            assert_eq!(warnings[1]["step_label"], "the second warning", "{s}");
        }
        let (line, column) = marked_position(file);
        assert_eq!(
            warnings[0]["position"],
            serde_json::json!({"line": line, "column": column})
        );
    }
    // The step-level should goes on: the step after it ran (and was judged).
    assert!(
        lenient.stdout.contains("warning engine/levels/should-step"),
        "{}",
        lenient.dump()
    );

    let strict = run(ENGINE_TARGET, &paths, &["--strict"]);
    assert_eq!(
        strict.code,
        1,
        "--strict fails on warnings\n{}",
        strict.dump()
    );
    for file in &files {
        let s = strict.scenario(&scenario_name(file));
        assert_eq!(s["status"], "failed");
        assert_eq!(s["failure"]["level"], "should");
        assert_eq!(s["warnings"], serde_json::json!([]));
    }
    assert_eq!(strict.report["summary"]["warnings"], 0);
}

#[test]
fn a_beyond_check_is_judged_only_when_asked() {
    let files = [
        format!("{ENGINE}/levels/beyond-scenario.yaml"),
        format!("{ENGINE}/levels/beyond-step.yaml"),
    ];
    let paths: Vec<&str> = files.iter().map(String::as_str).collect();
    // Not asked: the whole-beyond scenario is one "not judged" line, the beyond step of the
    // other is left out and its must steps pass.
    let quiet = run(ENGINE_TARGET, &paths, &[]);
    assert_eq!(quiet.code, 0, "{}", quiet.dump());
    assert!(
        quiet.report["not_judged"][0]
            .as_str()
            .is_some_and(|l| l.starts_with("1 scenario of level beyond")),
        "{}",
        quiet.dump()
    );
    assert_eq!(
        quiet.scenario("engine/levels/beyond-step")["status"],
        "passed"
    );

    let default = run(ENGINE_TARGET, &paths, &["--beyond"]);
    assert_eq!(default.code, 1, "{}", default.dump());
    for file in &files {
        let s = default.scenario(&scenario_name(file));
        assert_eq!(s["status"], "failed");
        assert_eq!(s["failure"]["level"], "beyond");
    }
    assert!(
        default.stdout.contains("== Beyond the documents"),
        "{}",
        default.dump()
    );

    let without = run(ENGINE_TARGET, &paths, &["--no-beyond"]);
    assert_eq!(without.code, 0, "{}", without.dump());
    assert_eq!(
        without.scenario("engine/levels/beyond-step")["status"],
        "passed"
    );
}

#[test]
fn a_level_inside_a_block_and_an_unknown_level_are_refused() {
    let dir = tempfile::tempdir().expect("temp dir");
    let nested = dir.path().join("nested.yaml");
    std::fs::write(
        &nested,
        "name: x/nested\nsuite: x\nsteps:\n  - parallel:\n      - list_tools: {}\n        level: should\n      - list_tools: {}\n",
    )
    .expect("write");
    let unknown = dir.path().join("unknown.yaml");
    std::fs::write(
        &unknown,
        "name: x/unknown\nsuite: x\nlevel: may\nsteps:\n  - list_tools: {}\n",
    )
    .expect("write");
    let unsourced = dir.path().join("unsourced.yaml");
    std::fs::write(
        &unsourced,
        "name: toolhub/unsourced\nsuite: toolhub\nsteps:\n  - list_tools: {}\n",
    )
    .expect("write");
    let misquoted = dir.path().join("misquoted.yaml");
    std::fs::write(
        &misquoted,
        "name: toolhub/misquoted\nsuite: toolhub\nsource: { document: toolhub, quote: ToolHub never loses a file ever }\nsteps:\n  - list_tools: {}\n",
    )
    .expect("write");
    for (file, wanted) in [
        (&nested, "`level` applies to top-level steps"),
        (&unknown, "may"),
        (&unsourced, "says where its rule comes from"),
        (
            &misquoted,
            "the source quote is not in the document `toolhub`",
        ),
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_mcp-conformance"))
            .arg("validate")
            .arg(file)
            .output()
            .expect("run validate");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{}: {stderr}", file.display());
        assert!(stderr.contains(wanted), "{}: {stderr}", file.display());
        assert!(out.stdout.is_empty(), "errors go to stderr only");
    }
}
