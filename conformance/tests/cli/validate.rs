//! `validate`: `FILE:LINE:COL: message` errors for broken scenario and target files, every
//! error of every file, and the repository's own files accepted.

use std::path::Path;

use crate::{mcpc, passing, repo, write};

/// Broken files and where `validate` must point: (file, text, line, column, message start).
const BROKEN: &[(&str, &str, u64, u64, &str)] = &[
    (
        "unclosed-quote.yaml",
        "name: x/a\nsuite: protocol\nsteps:\n  - request: \"ping\n",
        4,
        14,
        "unclosed quote",
    ),
    (
        "bad-indent.yaml",
        "name: x/b\nsuite: protocol\nsteps:\n  - request: ping\n   params: {}\n",
        5,
        4,
        "while parsing a block collection, did not find expected '-' indicator",
    ),
    (
        "unknown-step-key.yaml",
        "name: x/c\nsuite: protocol\nsteps:\n  - initialize: {}\n  - call: echo\n    args: { text: a }\n    expct: { text: a }\n",
        7,
        5,
        "unknown field `expct`, expected one of initialize, list_tools, call,",
    ),
    (
        "unknown-top-key.yaml",
        "name: x/d\nsuite: protocol\nstepz: []\nsteps:\n  - initialize: {}\n",
        3,
        1,
        "unknown field `stepz`",
    ),
    (
        "two-kinds.yaml",
        "name: x/e\nsuite: protocol\nsteps:\n  - initialize: {}\n  - call: echo\n    request: ping\n",
        5,
        5,
        "a step has exactly one kind key, found: call, request",
    ),
    (
        "bad-operator.yaml",
        "name: x/f\nsuite: protocol\nsteps:\n  - initialize: {}\n  - call: echo\n    args: { text: a }\n    expect:\n      text: { $regexp: a }\n",
        8,
        7,
        "invalid `expect` pattern: at $.text.$regexp: unknown operator `$regexp` (did you mean `$regex`?)",
    ),
    (
        "bad-regex.yaml",
        "name: x/g\nsuite: protocol\nsteps:\n  - initialize: {}\n  - request: ping\n    expect: { result: { $regex: \"(\" } }\n",
        6,
        13,
        "invalid `expect` pattern: at $.result.$regex",
    ),
    (
        "unknown-server.yaml",
        "name: x/h\nsuite: protocol\nsteps:\n  - initialize: {}\n  - request: ping\n    on: nowhere\n",
        5,
        5,
        "`on: nowhere` names no server (servers: main)",
    ),
    (
        "unknown-server-declared.yaml",
        "name: x/i\nsuite: protocol\nservers:\n  a: {}\n  b: {}\nsteps:\n  - request: ping\n    on: c\n",
        7,
        5,
        "`on: c` names no server (servers: a, b)",
    ),
    (
        "wrong-type.yaml",
        "name: x/j\nsuite: protocol\nsteps:\n  - call: [echo]\n",
        4,
        11,
        "expected string scalar",
    ),
    (
        "bad-duration.yaml",
        "name: x/k\nsuite: protocol\nsteps:\n  - stop: {}\n    within: 5 parsecs\n",
        5,
        13,
        "invalid duration \"5 parsecs\"",
    ),
    (
        "no-kind.yaml",
        "name: x/l\nsuite: protocol\nsteps:\n  - initialize: {}\n  - label: nothing to do\n",
        5,
        5,
        "a step needs one kind key",
    ),
];

#[test]
fn validate_points_at_file_line_column_and_exits_2() {
    let dir = tempfile::tempdir().expect("temp dir");
    for (name, text, line, column, message) in BROKEN {
        let path = write(dir.path(), name, text);
        let out = mcpc(&["validate", &path]);
        assert_eq!(out.code, 2, "{name}: {out:?}");
        assert!(out.stdout.is_empty(), "{name}: nothing on stdout: {out:?}");
        let lines: Vec<&str> = out.stderr.lines().collect();
        if *name != "bad-regex.yaml" {
            // (The regex error is several lines long: see bug_validate_errors_are_one_line.)
            assert_eq!(lines.len(), 2, "{name}: one error and a count: {out:?}");
        }
        let prefix = format!("{path}:{line}:{column}: {message}");
        assert!(
            lines[0].starts_with(&prefix),
            "{name}:\n  got      {}\n  expected {prefix}",
            lines[0]
        );
        assert_eq!(
            lines.last().copied(),
            Some("1 error(s) in 1 files"),
            "{name}"
        );
    }
}

#[test]
fn bug_validate_errors_are_one_line() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (name, text, ..) = BROKEN
        .iter()
        .find(|(n, ..)| *n == "bad-regex.yaml")
        .expect("the bad-regex case");
    let path = write(dir.path(), name, text);
    let out = mcpc(&["validate", &path]);
    assert_eq!(out.code, 2);
    assert_eq!(
        out.stderr.lines().count(),
        2,
        "one line per error, then the count:\n{}",
        out.stderr
    );
}

#[test]
fn validate_reports_every_error_of_every_file() {
    let dir = tempfile::tempdir().expect("temp dir");
    let many = write(
        dir.path(),
        "many.yaml",
        "name: x/many\nsuite: protocol\nsteps:\n  - call: echo\n    within: 1s\n  - notify: x\n    \
         expect: { a: 1 }\n  - kill: { signal: STOP }\n  - parallel:\n      - request: ping\n",
    );
    let target = write(
        dir.path(),
        "target.yaml",
        "name: t\nsuites: [protocol]\nserver:\n  command: x\n  bogus: 1\n",
    );
    // Files are checked in sorted order: the second file with a name is the duplicate.
    write(dir.path(), "dup.yaml", &passing("x/good", &[]));
    let good = write(dir.path(), "good.yaml", &passing("x/good", &[]));
    let out = mcpc(&["validate", dir.path().to_str().expect("utf-8 path")]);
    assert_eq!(out.code, 2, "{out:?}");
    assert!(out.stdout.is_empty());
    let expected = [
        format!("{good}: duplicate scenario name x/good"),
        format!(
            "{many}:4:5: `within` does not apply to `call` (it applies to: poll, expect_message, \
             no_message, no_response, exec, file, processes, stderr, stdout, stop, wait_exit)"
        ),
        format!("{many}:6:5: `notify` has nothing to `expect` or `save` here"),
        format!("{many}:8:5: unknown signal \"STOP\" (TERM, KILL, INT, HUP)"),
        format!("{many}:9:5: `parallel` needs at least two steps"),
    ];
    let lines: Vec<&str> = out.stderr.lines().collect();
    for e in &expected {
        assert!(
            lines.contains(&e.as_str()),
            "missing {e:?} in:\n{}",
            out.stderr
        );
    }
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with(&format!("{target}:5:3: unknown field `bogus`"))),
        "target files are validated as targets:\n{}",
        out.stderr
    );
    assert_eq!(lines.last().copied(), Some("6 error(s) in 4 files"));
}

fn yaml_count(dir: &Path) -> usize {
    let mut n = 0;
    for entry in std::fs::read_dir(dir)
        .expect("read dir")
        .filter_map(Result::ok)
    {
        let path = entry.path();
        if path.is_dir() {
            n += yaml_count(&path);
        } else if matches!(
            path.extension().and_then(|e| e.to_str()),
            Some("yaml" | "yml")
        ) {
            n += 1;
        }
    }
    n
}

#[test]
fn validate_accepts_the_repository_scenarios_and_targets() {
    let re = regex::Regex::new(r"^(\d+) files valid\n$").expect("regex");
    let root = repo();
    let expected = yaml_count(&root.join("scenarios")) + yaml_count(&root.join("fixtures/targets"));
    for args in [
        vec!["validate"],
        vec!["validate", "scenarios", "fixtures/targets"],
    ] {
        let out = mcpc(&args);
        assert_eq!(out.code, 0, "{args:?}: {out:?}");
        assert!(out.stderr.is_empty(), "{out:?}");
        let count = re
            .captures(&out.stdout)
            .and_then(|c| c[1].parse::<usize>().ok())
            .unwrap_or_else(|| panic!("unexpected output {:?}", out.stdout));
        assert_eq!(count, expected, "{args:?}");
    }
    let engine = "conformance/tests/engine";
    let out = mcpc(&["validate", engine]);
    assert_eq!(
        out.code, 0,
        "the engine tests' own files are valid: {out:?}"
    );
    assert_eq!(
        out.stdout,
        format!("{} files valid\n", yaml_count(&root.join(engine)))
    );
}

/// A target file is validated as a target even when the key that marks it is misspelt or
/// it is written as JSON: the errors name target fields, not scenario fields.
#[test]
fn validate_recognises_broken_and_json_target_files() {
    let dir = tempfile::tempdir().expect("temp dir");
    let misspelt = write(
        dir.path(),
        "misspelt.yaml",
        "name: t\nsuites: [protocol]\nservr:\n  command: x\n",
    );
    let json = write(
        dir.path(),
        "target.json",
        "{\"name\": \"t\", \"suites\": [\"protocol\"], \"server\": {\"command\": \"x\"}}\n",
    );
    let out = mcpc(&["validate", &misspelt]);
    assert_eq!(out.code, 2, "{out:?}");
    assert!(out.stderr.contains("unknown field `servr`"), "{out:?}");
    assert!(
        out.stderr
            .contains("expected one of name, description, suites"),
        "{out:?}"
    );
    let out = mcpc(&["validate", &json]);
    assert_eq!(
        (out.code, out.stdout.as_str()),
        (0, "1 files valid\n"),
        "{out:?}"
    );
}
