//! The `mcp-conformance` command line as a user meets it: help and version, `validate` with
//! `FILE:LINE:COL: message` errors, `run` exit codes, baselines, shards, filters, `list`,
//! `schema`, and the report files. Scenarios are written into temporary folders and run
//! against the repository's fixture target.

use serde_json::Value;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The legacy-only fixture: these tests are about the command line, not the generations
/// (one copy of each scenario, under its own name).
const FIXTURE_TARGET: &str = "fixtures/targets/fixture-legacy.yaml";

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the crate lives in the workspace")
        .to_path_buf()
}

/// What one invocation printed.
#[derive(Debug)]
struct Out {
    code: i32,
    stdout: String,
    stderr: String,
}

/// Runs the binary from `cwd` with a private TMPDIR (checked for leftover sandboxes).
fn mcpc_in(cwd: &Path, args: &[&str]) -> Out {
    let tmp = tempfile::tempdir().expect("private TMPDIR");
    let output = Command::new(env!("CARGO_BIN_EXE_mcp-conformance"))
        .current_dir(cwd)
        .env("TMPDIR", tmp.path())
        .env_remove("MCP_CONFORMANCE_LOG")
        .env_remove("NO_COLOR")
        .args(args)
        .output()
        .expect("run mcp-conformance");
    let left = std::fs::read_dir(tmp.path())
        .expect("read TMPDIR")
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().starts_with("mcpc-"))
        .count();
    assert_eq!(left, 0, "sandbox folders left behind by {args:?}");
    Out {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// Runs the binary from the repository root.
fn mcpc(args: &[&str]) -> Out {
    mcpc_in(&repo(), args)
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).expect("create folder");
    }
    std::fs::write(&path, text).expect("write file");
    path.display().to_string()
}

/// A scenario for the fixture target that passes (a ping), with tags.
fn passing(name: &str, tags: &[&str]) -> String {
    format!(
        "name: {name}\nsuite: protocol\ntags: [{}]\nsteps:\n  - initialize: {{}}\n  - request: ping\n    \
         expect: {{ result: {{}} }}\n",
        tags.join(", ")
    )
}

/// A scenario for the fixture target that fails on its own assertion.
fn failing(name: &str) -> String {
    format!(
        "name: {name}\nsuite: protocol\ntags: [broken]\nsteps:\n  - initialize: {{}}\n  - request: ping\n    \
         expect: {{ result: {{ pong: true }} }}\n"
    )
}

fn assert_closing_line(stdout: &str) {
    let re = regex::Regex::new(r"^\d+ passed, \d+ failed, \d+ skipped$").expect("regex");
    let last = stdout.lines().last().unwrap_or("");
    assert!(re.is_match(last), "last stdout line {last:?}:\n{stdout}");
    assert!(stdout.ends_with('\n'));
}

fn read_json(path: &Path) -> Value {
    let text =
        std::fs::read_to_string(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
    serde_json::from_str(&text).expect("valid JSON")
}

fn names(report: &Value) -> Vec<String> {
    report["scenarios"]
        .as_array()
        .expect("scenarios")
        .iter()
        .map(|s| s["name"].as_str().unwrap_or("?").to_owned())
        .collect()
}

/// The scenario names of `list` output (every line but the count).
fn listed(out: &Out) -> Vec<String> {
    assert_eq!(out.code, 0, "{out:?}");
    let lines: Vec<&str> = out.stdout.lines().collect();
    let (count, entries) = lines.split_last().expect("list prints a count");
    assert_eq!(*count, format!("{} scenarios", entries.len()));
    entries
        .iter()
        .map(|l| l.split("  ").next().unwrap_or("").to_owned())
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Help and version

#[test]
fn help_and_version_exit_zero() {
    let help = mcpc(&["--help"]);
    assert_eq!(help.code, 0, "{help:?}");
    assert!(help.stdout.contains("Usage: mcp-conformance"));
    for sub in [
        "run",
        "list",
        "validate",
        "schema",
        "bench",
        "fixture-server",
        "probe",
    ] {
        assert!(help.stdout.contains(sub), "--help mentions {sub}");
        let sub_help = mcpc(&[sub, "--help"]);
        assert_eq!(sub_help.code, 0, "{sub} --help: {sub_help:?}");
        assert!(sub_help.stdout.contains("Usage:"));
    }
    let short = mcpc(&["-h"]);
    assert_eq!(short.code, 0);

    let version = mcpc(&["--version"]);
    assert_eq!(version.code, 0);
    assert_eq!(
        version.stdout,
        format!("mcp-conformance {}\n", env!("CARGO_PKG_VERSION"))
    );
    assert!(version.stderr.is_empty());

    let nothing = mcpc(&[]);
    assert_eq!(nothing.code, 2, "no subcommand is a usage error");
    assert!(nothing.stdout.is_empty());
    assert!(nothing.stderr.contains("Usage:"));
}

// ---------------------------------------------------------------------------------------------
// validate

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

// ---------------------------------------------------------------------------------------------
// run: targets, exit codes, baselines

#[test]
fn a_missing_target_is_one_clear_line_and_exit_2() {
    let dir = tempfile::tempdir().expect("temp dir");
    let scenario = write(dir.path(), "a.yaml", &passing("x/a", &[]));
    let out = mcpc(&["run", "--target", "no/such/target.yaml", &scenario]);
    assert_eq!(out.code, 2, "{out:?}");
    assert!(out.stdout.is_empty(), "{out:?}");
    let missing = "no/such/target.yaml: no such target file, nor a built-in target of that \
                   name (built-in: fixture-legacy, fixture-modern, fixture, liar, reference-hub, \
                   reference-safe-files, reference-safe-terminal, reference-toolhub)\n";
    assert_eq!(out.stderr, missing);

    // From a folder without the default target file, the built-in one of that name is used.
    let out = mcpc_in(dir.path(), &["list", &scenario]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stdout.contains("x/a"), "{out:?}");

    let out = mcpc(&["list", "--target", "no/such/target.yaml", &scenario]);
    assert_eq!(out.code, 2);
    assert_eq!(out.stderr, missing);
}

#[test]
fn exit_status_is_0_when_all_pass_1_when_one_fails_2_when_a_file_is_broken() {
    let dir = tempfile::tempdir().expect("temp dir");
    let good = write(dir.path(), "good/a.yaml", &passing("x/a", &["t"]));
    write(dir.path(), "good/b.yaml", &passing("x/b", &["t"]));
    let bad = write(dir.path(), "bad.yaml", &failing("x/bad"));
    let good_dir = dir.path().join("good").display().to_string();

    let out = mcpc(&["run", "--target", FIXTURE_TARGET, "--no-color", &good_dir]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_closing_line(&out.stdout);
    assert!(out.stdout.ends_with("\n2 passed, 0 failed, 0 skipped\n"));

    let out = mcpc(&[
        "run",
        "--target",
        FIXTURE_TARGET,
        "--no-color",
        &good_dir,
        &bad,
    ]);
    assert_eq!(out.code, 1, "{out:?}");
    assert_closing_line(&out.stdout);
    assert!(out.stdout.ends_with("\n2 passed, 1 failed, 0 skipped\n"));
    assert!(
        out.stdout
            .contains(&format!("at {bad}:6:5 (step 2: request ping)"))
    );

    let broken = write(
        dir.path(),
        "broken.yaml",
        "name: x/broken\nsuite: protocol\nsteps: [\n",
    );
    let out = mcpc(&["run", "--target", FIXTURE_TARGET, &good, &broken]);
    assert_eq!(out.code, 2, "{out:?}");
    assert!(out.stdout.is_empty(), "nothing runs: {out:?}");
    assert!(out.stderr.starts_with(&format!("{broken}:")), "{out:?}");

    let out = mcpc(&["run", "--target", FIXTURE_TARGET, "no/such/folder"]);
    assert_eq!(out.code, 2);
    assert!(
        out.stderr.starts_with("no/such/folder: cannot read"),
        "{out:?}"
    );

    let out = mcpc(&[
        "run",
        "--target",
        FIXTURE_TARGET,
        &good,
        "--json",
        dir.path().to_str().expect("utf-8"),
    ]);
    assert_eq!(out.code, 2, "an unwritable report is an error: {out:?}");
    assert!(out.stderr.contains("cannot write"), "{out:?}");
}

/// Runs `dir` with `-j 1 --fail-fast` and returns the JSON report.
fn fail_fast_run(dir: &Path) -> (Out, Value) {
    let json = dir.join("report.json");
    let folder = dir.join("s").display().to_string();
    let out = mcpc(&[
        "run",
        "--target",
        FIXTURE_TARGET,
        "-j",
        "1",
        "--fail-fast",
        "--no-color",
        "--json",
        json.to_str().expect("utf-8"),
        &folder,
    ]);
    let report = read_json(&json);
    (out, report)
}

fn fail_fast_fixture(dir: &Path, passing_count: usize) {
    let s = dir.join("s");
    write(&s, "a.yaml", &failing("x/a-fails"));
    for i in 0..passing_count {
        write(&s, &format!("p{i}.yaml"), &passing(&format!("x/p{i}"), &[]));
    }
}

#[test]
fn fail_fast_stops_starting_scenarios() {
    let dir = tempfile::tempdir().expect("temp dir");
    fail_fast_fixture(dir.path(), 3);
    let (out, report) = fail_fast_run(dir.path());
    assert_eq!(out.code, 1, "{out:?}");
    assert_closing_line(&out.stdout);
    assert_eq!(report["summary"]["failed"], 1);
    let scenarios = report["scenarios"].as_array().expect("scenarios");
    assert_eq!(scenarios[0]["name"], "x/a-fails");
    assert_eq!(scenarios[0]["status"], "failed");
    // At most one scenario slips through (see bug_fail_fast_with_one_job_runs_nothing_more);
    // the ones not run say why.
    let skipped: Vec<&Value> = scenarios
        .iter()
        .filter(|s| s["status"] == "skipped")
        .collect();
    assert!(skipped.len() >= 2, "{report}");
    for s in skipped {
        assert_eq!(
            s["skip_reason"],
            "not run: an earlier scenario failed (--fail-fast)"
        );
    }
}

#[test]
fn bug_fail_fast_with_one_job_runs_nothing_more() {
    let dir = tempfile::tempdir().expect("temp dir");
    fail_fast_fixture(dir.path(), 5);
    for round in 0..10 {
        let (_, report) = fail_fast_run(dir.path());
        assert_eq!(
            report["summary"],
            serde_json::json!({"passed": 0, "failed": 1, "skipped": 5, "warnings": 0}),
            "round {round}: with one job, nothing starts after the first failure"
        );
    }
}

#[test]
fn baseline_turns_listed_failures_into_expected_ones_and_passes_into_stale_entries() {
    let dir = tempfile::tempdir().expect("temp dir");
    let scenarios = dir.path().join("s");
    write(&scenarios, "fails.yaml", &failing("x/fails"));
    write(&scenarios, "passes.yaml", &passing("x/passes", &[]));
    let folder = scenarios.display().to_string();
    let json = dir.path().join("report.json");
    let json_arg = json.to_str().expect("utf-8").to_owned();

    // The failure is expected: exit 0, marked in every report.
    let baseline = write(
        dir.path(),
        "expected.txt",
        "# known gaps\nx/fails   # tracked elsewhere\n\nx/renamed\n",
    );
    let out = mcpc(&[
        "run",
        "--target",
        FIXTURE_TARGET,
        "--no-color",
        "--baseline",
        &baseline,
        "--json",
        &json_arg,
        &folder,
    ]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stdout.contains("[expected by baseline]"));
    assert!(out.stdout.contains("expected failure (baseline): x/fails"));
    assert!(out.stdout.contains("unknown baseline entry"));
    assert!(out.stdout.ends_with("\n1 passed, 1 failed, 0 skipped\n"));
    let report = read_json(&json);
    let fails = &report["scenarios"][0];
    assert_eq!(fails["name"], "x/fails");
    assert_eq!(fails["status"], "failed");
    assert_eq!(fails["baseline_expected_failure"], true);
    assert_eq!(report["scenarios"][1]["baseline_expected_failure"], false);
    assert_eq!(report["baseline"]["stale"], serde_json::json!([]));
    assert_eq!(
        report["baseline"]["unknown"],
        serde_json::json!(["x/renamed"])
    );

    // A listed scenario that passes is stale: exit 1.
    let stale = write(dir.path(), "stale.txt", "x/fails\nx/passes\n");
    let out = mcpc(&[
        "run",
        "--target",
        FIXTURE_TARGET,
        "--no-color",
        "--baseline",
        &stale,
        "--json",
        &json_arg,
        &folder,
    ]);
    assert_eq!(out.code, 1, "{out:?}");
    assert!(
        out.stdout
            .contains("stale baseline entry (now passes): x/passes")
    );
    assert_closing_line(&out.stdout);
    let report = read_json(&json);
    assert_eq!(report["baseline"]["stale"], serde_json::json!(["x/passes"]));

    // Without the baseline the failure counts.
    let out = mcpc(&["run", "--target", FIXTURE_TARGET, &folder]);
    assert_eq!(out.code, 1);

    let out = mcpc(&[
        "run",
        "--target",
        FIXTURE_TARGET,
        "--baseline",
        "no/such/baseline.txt",
        &folder,
    ]);
    assert_eq!(out.code, 2, "{out:?}");
    assert!(
        out.stderr
            .starts_with("no/such/baseline.txt: cannot read baseline")
    );
}

// ---------------------------------------------------------------------------------------------
// Selection: shards, tags, names, list

fn selection_fixture(dir: &Path) -> String {
    for (i, tags) in [&["a"][..], &["b"], &["a", "b"], &[], &["c"], &["a"], &["b"]]
        .iter()
        .enumerate()
    {
        write(
            dir,
            &format!("s{i}.yaml"),
            &passing(&format!("sel/item-{i}"), tags),
        );
    }
    write(
        dir,
        "other-suite.yaml",
        "name: sel/other-suite\nsuite: elsewhere\ntags: [c]\nsteps:\n  - request: ping\n",
    );
    dir.display().to_string()
}

#[test]
fn shards_partition_the_scenarios() {
    let dir = tempfile::tempdir().expect("temp dir");
    let folder = selection_fixture(dir.path());
    let all = listed(&mcpc(&["list", &folder]));
    assert_eq!(all.len(), 8);
    let mut sorted = all.clone();
    sorted.sort();
    assert_eq!(all, sorted, "list is sorted by name");
    for n in [2usize, 3] {
        let mut union = Vec::new();
        for k in 1..=n {
            let shard = format!("{k}/{n}");
            let part = listed(&mcpc(&["list", "--shard", &shard, &folder]));
            assert!(!part.is_empty(), "shard {shard} is not empty");
            for name in &part {
                assert!(!union.contains(name), "{name} is in two shards");
            }
            union.extend(part);
        }
        union.sort();
        assert_eq!(union, all, "the {n} shards cover every scenario");
    }
    // `run` selects the same shards.
    let json = dir.path().join("r.json");
    let mut ran = BTreeSet::new();
    for shard in ["1/2", "2/2"] {
        let out = mcpc(&[
            "run",
            "--target",
            FIXTURE_TARGET,
            "--shard",
            shard,
            "--json",
            json.to_str().expect("utf-8"),
            &folder,
        ]);
        assert_eq!(out.code, 0, "{out:?}");
        let names = names(&read_json(&json));
        assert_eq!(names, listed(&mcpc(&["list", "--shard", shard, &folder])));
        for name in names {
            assert!(ran.insert(name), "ran twice");
        }
    }
    assert_eq!(ran.into_iter().collect::<Vec<_>>(), all);
    for bad in ["0/2", "3/2", "1", "a/b"] {
        let out = mcpc(&["list", "--shard", bad, &folder]);
        assert_eq!(out.code, 2, "--shard {bad}: {out:?}");
        assert!(out.stdout.is_empty());
    }
}

#[test]
fn tag_and_name_filters_select_scenarios() {
    let dir = tempfile::tempdir().expect("temp dir");
    let folder = selection_fixture(dir.path());
    let select = |args: &[&str]| {
        let mut all = vec!["list"];
        all.extend_from_slice(args);
        all.push(&folder);
        listed(&mcpc(&all))
    };
    assert_eq!(
        select(&["--tag", "a"]),
        ["sel/item-0", "sel/item-2", "sel/item-5"]
    );
    assert_eq!(
        select(&["--tag", "a", "--tag", "c"]),
        [
            "sel/item-0",
            "sel/item-2",
            "sel/item-4",
            "sel/item-5",
            "sel/other-suite"
        ]
    );
    assert_eq!(select(&["--tag", "zzz"]), Vec::<String>::new());
    assert_eq!(select(&["--name", "sel/item-?"]).len(), 7);
    assert_eq!(select(&["--name", "*other*"]), ["sel/other-suite"]);
    assert_eq!(select(&["--name", "sel/item-1"]), ["sel/item-1"]);
    assert_eq!(
        select(&["--name", "*-[0-9]"]),
        Vec::<String>::new(),
        "only * and ? are special"
    );
    assert_eq!(
        select(&["--tag", "b", "--name", "*-6"]),
        ["sel/item-6"],
        "tag and name filters combine"
    );

    let json = dir.path().join("r.json");
    let out = mcpc(&[
        "run",
        "--target",
        FIXTURE_TARGET,
        "--tag",
        "c",
        "--no-color",
        "--json",
        json.to_str().expect("utf-8"),
        &folder,
    ]);
    assert_eq!(out.code, 0, "{out:?}");
    let report = read_json(&json);
    assert_eq!(
        names(&report),
        ["sel/item-4", "sel/other-suite"],
        "run filters like list"
    );
    assert_eq!(report["summary"]["passed"], 1);
    assert_eq!(report["summary"]["skipped"], 1);
    assert!(out.stdout.ends_with("\n1 passed, 0 failed, 1 skipped\n"));
}

#[test]
fn list_shows_name_suite_tags_file_and_skips() {
    let dir = tempfile::tempdir().expect("temp dir");
    let folder = selection_fixture(dir.path());
    let out = mcpc(&["list", "--tag", "c", &folder]);
    assert_eq!(out.code, 0);
    assert_eq!(
        out.stdout,
        format!(
            "sel/item-4  [protocol]  c  {folder}/s4.yaml\nsel/other-suite  [elsewhere]  c  \
             {folder}/other-suite.yaml\n2 scenarios\n"
        )
    );
    let out = mcpc(&[
        "list",
        "--target",
        FIXTURE_TARGET,
        "--name",
        "sel/other*",
        &folder,
    ]);
    assert_eq!(out.code, 0);
    assert_eq!(
        out.stdout,
        format!(
            "sel/other-suite  [elsewhere]  c  {folder}/other-suite.yaml  (skipped: target fixture-legacy \
             does not claim suite elsewhere)\n1 scenarios\n"
        )
    );
    // The repository's own scenarios, by default from the root.
    let out = mcpc(&["list"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stdout.contains("protocol/ping  [protocol]"));
}

// ---------------------------------------------------------------------------------------------
// schema

#[test]
fn schema_prints_json_schema_of_scenarios_and_targets() {
    let scenario = mcpc(&["schema", "scenario"]);
    assert_eq!(scenario.code, 0);
    let s: Value = serde_json::from_str(&scenario.stdout).expect("scenario schema is JSON");
    assert!(
        s["$schema"]
            .as_str()
            .is_some_and(|u| u.contains("json-schema.org"))
    );
    assert_eq!(s["type"], "object");
    for key in [
        "name",
        "suite",
        "steps",
        "servers",
        "workspace",
        "requires",
        "timeout",
    ] {
        assert!(s["properties"][key].is_object(), "scenario property {key}");
    }
    let required: Vec<&str> = s["required"]
        .as_array()
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    for key in ["name", "suite", "steps"] {
        assert!(required.contains(&key), "{key} is required");
    }
    let defs = s["$defs"].as_object().expect("definitions");
    let step = &defs["RawStep"]["properties"];
    for kind in [
        "initialize",
        "list_tools",
        "call",
        "await",
        "poll",
        "request",
        "notify",
        "send",
        "expect_message",
        "no_message",
        "admin",
        "exec",
        "file",
        "processes",
        "stderr",
        "stdout",
        "start",
        "restart",
        "stop",
        "wait_exit",
        "kill",
        "parallel",
        "set",
        "repeat",
        "contract",
        "on",
        "args",
        "expect",
        "save",
        "within",
        "every",
        "timeout",
        "newline",
        "label",
    ] {
        assert!(step[kind].is_object(), "step key {kind} in the schema");
    }
    assert_eq!(
        mcpc(&["schema"]).stdout,
        scenario.stdout,
        "scenario is the default"
    );

    let target = mcpc(&["schema", "target"]);
    assert_eq!(target.code, 0);
    let t: Value = serde_json::from_str(&target.stdout).expect("target schema is JSON");
    for key in [
        "name", "suites", "server", "admin", "knobs", "vars", "timeouts",
    ] {
        assert!(t["properties"][key].is_object(), "target property {key}");
    }
    assert!(
        t["required"]
            .as_array()
            .is_some_and(|r| r.contains(&Value::from("server")))
    );

    let bad = mcpc(&["schema", "nonsense"]);
    assert_eq!(bad.code, 2);
    assert!(bad.stdout.is_empty());
}

// ---------------------------------------------------------------------------------------------
// Report files

#[test]
fn junit_json_and_markdown_reports_describe_the_same_run() {
    let dir = tempfile::tempdir().expect("temp dir");
    let scenarios = dir.path().join("s");
    write(&scenarios, "a.yaml", &passing("x/a & <b>", &["t"]));
    write(&scenarios, "b.yaml", &failing("x/\"fails\""));
    write(
        &scenarios,
        "c.yaml",
        "name: x/skipped\nsuite: elsewhere\nsteps:\n  - request: ping\n",
    );
    write(&scenarios, "d.yaml", &passing("x/d", &[]));
    let folder = scenarios.display().to_string();
    let junit = dir.path().join("out/report.xml");
    std::fs::create_dir_all(dir.path().join("out")).expect("out folder");
    let json = dir.path().join("out/report.json");
    let markdown = dir.path().join("out/summary.md");
    let out = mcpc(&[
        "run",
        "--target",
        FIXTURE_TARGET,
        "--no-color",
        "--junit",
        junit.to_str().expect("utf-8"),
        "--json",
        json.to_str().expect("utf-8"),
        "--markdown",
        markdown.to_str().expect("utf-8"),
        &folder,
    ]);
    assert_eq!(out.code, 1, "{out:?}");
    assert_closing_line(&out.stdout);
    assert!(out.stdout.ends_with("\n2 passed, 1 failed, 1 skipped\n"));

    let report = read_json(&json);
    assert_eq!(report["target"], "fixture-legacy");
    assert_eq!(report["target_file"], FIXTURE_TARGET);
    assert_eq!(
        report["summary"],
        serde_json::json!({"passed": 2, "failed": 1, "skipped": 1, "warnings": 0})
    );
    assert!(report["duration_ms"].is_u64());

    let text = std::fs::read_to_string(&junit).expect("junit written");
    let root =
        xml::parse(&text).unwrap_or_else(|e| panic!("JUnit is not well-formed: {e}\n{text}"));
    assert_eq!(root.name, "testsuites");
    assert_eq!(root.attr("tests"), Some("4"));
    assert_eq!(root.attr("failures"), Some("1"));
    assert_eq!(root.attr("skipped"), Some("1"));
    let cases: Vec<&xml::Element> = root
        .elements()
        .inspect(|suite| assert_eq!(suite.name, "testsuite"))
        .flat_map(|suite| suite.elements())
        .collect();
    assert!(cases.iter().all(|c| c.name == "testcase"));
    let mut case_names: Vec<&str> = cases.iter().filter_map(|c| c.attr("name")).collect();
    case_names.sort();
    let mut expected = names(&report);
    expected.sort();
    assert_eq!(case_names, expected, "one testcase per scenario");
    let with = |child: &str| {
        cases
            .iter()
            .filter(|c| c.elements().any(|e| e.name == child))
            .filter_map(|c| c.attr("name"))
            .collect::<Vec<_>>()
    };
    assert_eq!(with("failure"), ["x/\"fails\""]);
    assert_eq!(with("skipped"), ["x/skipped"]);

    let md = std::fs::read_to_string(&markdown).expect("markdown written");
    assert!(
        md.starts_with("## mcp-conformance FAILED: fixture-legacy\n"),
        "{md}"
    );
    assert!(
        md.contains("\n**2 passed, 1 failed, 1 skipped** in "),
        "{md}"
    );
    assert!(md.contains("| x/\"fails\" | must |"), "{md}");
    assert!(md.contains("<summary>Passed (2)</summary>"), "{md}");
    assert!(md.contains("- x/skipped: "), "{md}");
}

/// `value` without its timings (`duration_ms` anywhere), which no two runs share.
fn without_timings(mut value: Value) -> Value {
    fn strip(v: &mut Value) {
        match v {
            Value::Object(map) => {
                map.remove("duration_ms");
                map.values_mut().for_each(strip);
            }
            Value::Array(items) => items.iter_mut().for_each(strip),
            _ => {}
        }
    }
    strip(&mut value);
    value
}

#[test]
fn merged_shards_report_the_unsharded_run() {
    let dir = tempfile::tempdir().expect("temp dir");
    let scenarios = dir.path().join("s");
    for i in 0..5 {
        write(
            &scenarios,
            &format!("p{i}.yaml"),
            &passing(&format!("x/p{i}"), &[]),
        );
    }
    write(&scenarios, "f.yaml", &failing("x/fails"));
    write(&scenarios, "g.yaml", &failing("x/expected"));
    let baseline = dir.path().join("baseline.txt");
    std::fs::write(&baseline, "x/expected\nx/p3\nx/renamed\n").expect("baseline");
    let folder = scenarios.display().to_string();
    let run = |extra: &[&str], json: &Path| {
        let mut argv = vec![
            "run",
            "--target",
            FIXTURE_TARGET,
            "--no-color",
            "--baseline",
            baseline.to_str().expect("utf-8"),
            "--json",
            json.to_str().expect("utf-8"),
        ];
        argv.extend_from_slice(extra);
        argv.push(&folder);
        mcpc(&argv)
    };
    let whole = dir.path().join("whole.json");
    let unsharded = run(&[], &whole);
    assert_eq!(unsharded.code, 1, "{unsharded:?}");
    let mut shard_files = Vec::new();
    for k in 1..=3 {
        let file = dir.path().join(format!("shard-{k}.json"));
        run(&["--shard", &format!("{k}/3")], &file);
        shard_files.push(file.display().to_string());
    }
    let merged_json = dir.path().join("merged.json");
    let merged_md = dir.path().join("merged.md");
    let mut argv = vec![
        "merge",
        "--no-color",
        "--json",
        merged_json.to_str().expect("utf-8"),
        "--markdown",
        merged_md.to_str().expect("utf-8"),
    ];
    argv.extend(shard_files.iter().map(String::as_str));
    let merged = mcpc(&argv);
    assert_eq!(merged.code, unsharded.code, "{merged:?}");
    assert_eq!(
        without_timings(read_json(&merged_json)),
        without_timings(read_json(&whole)),
        "the merged report is the unsharded run's, scenario for scenario"
    );
    let closing = |text: &str| text.lines().last().map(str::to_owned);
    assert_eq!(closing(&merged.stdout), closing(&unsharded.stdout));
    assert!(merged.stdout.contains("x/fails"), "{merged:?}");
    let md = std::fs::read_to_string(&merged_md).expect("markdown written");
    let totals = closing(&unsharded.stdout).expect("a closing line");
    assert!(md.contains(&format!("**{totals}**")), "{totals}: {md}");
    assert!(
        md.contains("x/p3 passed but is listed as an expected failure"),
        "{md}"
    );
    assert!(md.contains("x/renamed names no scenario"), "{md}");

    // Shards of one run only, each once.
    let again = mcpc(&["merge", &shard_files[0], &shard_files[0]]);
    assert_eq!(again.code, 2, "{again:?}");
    assert!(again.stderr.contains("in another shard too"), "{again:?}");
    let junk = dir.path().join("junk.json");
    std::fs::write(&junk, "{}").expect("junk");
    let not_a_report = mcpc(&["merge", junk.to_str().expect("utf-8")]);
    assert_eq!(not_a_report.code, 2, "{not_a_report:?}");
    assert!(
        not_a_report.stderr.contains("not a JSON report"),
        "{not_a_report:?}"
    );
    assert!(not_a_report.stdout.is_empty());
}

mod common;
use common::xml;

// ---------------------------------------------------------------------------------------------
// Built-in suites and targets: the binary alone, from a folder with no checkout

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
