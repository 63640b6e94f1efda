//! `run`: missing targets, exit codes, `--fail-fast` and baselines.

use serde_json::Value;
use std::path::Path;

use crate::{
    FIXTURE_TARGET, Out, assert_closing_line, failing, mcpc, mcpc_in, passing, read_json, write,
};

#[test]
fn a_missing_target_is_one_clear_line_and_exit_2() {
    let dir = tempfile::tempdir().expect("temp dir");
    let scenario = write(dir.path(), "a.yaml", &passing("x/a", &[]));
    let out = mcpc(&["run", "--target", "no/such/target.yaml", &scenario]);
    assert_eq!(out.code, 2, "{out:?}");
    assert!(out.stdout.is_empty(), "{out:?}");
    let missing = "no/such/target.yaml: no such target file, nor a built-in target of that \
                   name (built-in: fixture-legacy, fixture-modern, fixture-official, fixture, liar, \
                   reference-hub, reference-safe-files, reference-safe-terminal, \
                   reference-toolhub)\n";
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
