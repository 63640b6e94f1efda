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
