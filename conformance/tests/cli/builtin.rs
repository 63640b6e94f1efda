//! Built-in suites and targets: the binary alone, from a folder with no checkout, and
//! `init-target`.

use crate::{mcpc_in, names, read_json};

#[test]
fn builtin_suites_run_from_an_empty_folder() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = mcpc_in(dir.path(), &["list"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stdout.starts_with("built-in suites: hub ("), "{out:?}");
    assert!(
        out.stdout.contains("<built-in>/protocol/ping.yaml"),
        "{out:?}"
    );

    // The built-in fixture target with the built-in protocol suite, both generations.
    let json = dir.path().join("r.json");
    let out = mcpc_in(
        dir.path(),
        &[
            "run",
            "--target",
            "fixture",
            "--json",
            "r.json",
            "--no-color",
        ],
    );
    assert_eq!(out.code, 0, "{out:?}");
    let report = read_json(&json);
    assert_eq!(report["target_file"], "<built-in>/targets/fixture.yaml");
    let passed = report["summary"]["passed"].as_u64().unwrap_or(0);
    assert!(passed >= 20, "{report}");
    assert!(names(&report).contains(&"protocol/modern-stateless [modern]".to_string()));
}

#[test]
fn init_target_writes_a_valid_commented_file_and_never_overwrites() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = mcpc_in(dir.path(), &["init-target", "-o", "t.yaml"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stdout.is_empty(), "{out:?}");
    let text = std::fs::read_to_string(dir.path().join("t.yaml")).expect("written");
    assert!(text.starts_with("# A target file for mcp-conformance"));
    let out = mcpc_in(dir.path(), &["validate", "t.yaml"]);
    assert_eq!(out.code, 0, "{out:?}");

    let again = mcpc_in(dir.path(), &["init-target", "-o", "t.yaml"]);
    assert_eq!(again.code, 2, "{again:?}");
    assert_eq!(
        again.stderr,
        "mcp-conformance: t.yaml exists (use --force to replace it)\n"
    );

    let copy = mcpc_in(dir.path(), &["init-target", "--from", "reference-hub"]);
    assert_eq!(copy.code, 0, "{copy:?}");
    assert!(copy.stdout.contains("name: reference-hub"), "{copy:?}");
    let unknown = mcpc_in(dir.path(), &["init-target", "--from", "nope"]);
    assert_eq!(unknown.code, 2);
    assert!(unknown.stdout.is_empty());
    assert_eq!(unknown.stderr.lines().count(), 1, "{unknown:?}");
}
