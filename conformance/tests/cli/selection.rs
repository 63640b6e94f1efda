//! Selection: shards, tag and name filters, and what `list` shows.

use std::collections::BTreeSet;
use std::path::Path;

use crate::{FIXTURE_TARGET, listed, mcpc, names, passing, read_json, write};

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
        let mut judged = listed(&mcpc(&["list", "--shard", shard, &folder]));
        judged.retain(|n| n != "sel/other-suite");
        assert_eq!(names, judged);
        for name in names {
            assert!(ran.insert(name), "ran twice");
        }
    }
    let claimed: Vec<String> = all.into_iter().filter(|n| n != "sel/other-suite").collect();
    assert_eq!(ran.into_iter().collect::<Vec<_>>(), claimed);
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
    let nothing = |args: &[&str]| {
        let mut all = vec!["list"];
        all.extend_from_slice(args);
        all.push(&folder);
        let out = mcpc(&all);
        assert_eq!(out.code, 2, "{out:?}");
        assert!(out.stdout.is_empty(), "{out:?}");
        assert_eq!(out.stderr.lines().count(), 1, "{out:?}");
        assert!(out.stderr.contains(args[1]), "names the selection: {out:?}");
    };
    nothing(&["--tag", "zzz"]);
    assert_eq!(select(&["--name", "sel/item-?"]).len(), 7);
    assert_eq!(select(&["--name", "*other*"]), ["sel/other-suite"]);
    assert_eq!(select(&["--name", "sel/item-1"]), ["sel/item-1"]);
    // Only * and ? are special: nothing matches.
    nothing(&["--name", "*-[0-9]"]);
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
    assert_eq!(names(&report), ["sel/item-4"], "run filters like list");
    assert_eq!(report["summary"]["passed"], 1);
    assert_eq!(report["summary"]["skipped"], 0);
    // The scenario of a suite the target does not claim is one line, not a skipped entry.
    let not_judged = report["not_judged"].as_array().expect("not_judged");
    assert_eq!(not_judged.len(), 1, "{report}");
    assert!(
        not_judged[0].as_str().is_some_and(|l| l.starts_with(
            "1 scenario of suites target fixture-legacy does not claim: elsewhere (1)"
        )),
        "{report}"
    );
    assert!(
        out.stdout.contains("\nnot judged: 1 scenario of suites"),
        "{out:?}"
    );
    assert!(out.stdout.ends_with("\n1 passed, 0 failed, 0 skipped\n"));
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

/// A typo in a selection must not turn CI green: `run` that selects nothing, or a target
/// that claims none of what was selected, is one stderr line and exit 2.
#[test]
fn a_run_that_judges_nothing_exits_2() {
    let dir = tempfile::tempdir().expect("temp dir");
    let folder = selection_fixture(dir.path());
    for args in [
        vec!["run", "--target", FIXTURE_TARGET, "--name", "initialize*"],
        vec!["run", "--target", FIXTURE_TARGET, "--tag", "zzz", &folder],
        vec![
            "run",
            "--target",
            FIXTURE_TARGET,
            "--name",
            "sel/other*",
            &folder,
        ],
    ] {
        let out = mcpc(&args);
        assert_eq!(out.code, 2, "{args:?}: {out:?}");
        assert!(out.stdout.is_empty(), "{args:?}: {out:?}");
        assert_eq!(out.stderr.lines().count(), 1, "{args:?}: {out:?}");
    }
    let out = mcpc(&[
        "run",
        "--target",
        FIXTURE_TARGET,
        "--name",
        "sel/other*",
        &folder,
    ]);
    assert!(
        out.stderr.contains("does not claim: elsewhere (1)"),
        "{out:?}"
    );
}

/// Level `beyond` is judged only when asked: `--beyond`, or `beyond: true` in the target.
#[test]
fn beyond_is_judged_only_when_asked() {
    let dir = tempfile::tempdir().expect("temp dir");
    let scenarios = dir.path().join("s");
    write(
        &scenarios,
        "beyond.yaml",
        "name: x/beyond\nsuite: protocol\nlevel: beyond\nsteps:\n  - initialize: {}\n  - request: ping\n    \
         expect: { result: { pong: true } }\n",
    );
    write(&scenarios, "must.yaml", &crate::passing("x/must", &[]));
    let folder = scenarios.display().to_string();
    let fixture = std::fs::read_to_string(crate::repo().join(FIXTURE_TARGET)).expect("target");
    let declared = write(
        dir.path(),
        "declared.yaml",
        &format!("{fixture}\nbeyond: true\n"),
    );
    let json = dir.path().join("r.json");
    let json_arg = json.to_str().expect("utf-8");
    let by_default = mcpc(&[
        "run",
        "--target",
        FIXTURE_TARGET,
        "--json",
        json_arg,
        &folder,
    ]);
    assert_eq!(by_default.code, 0, "{by_default:?}");
    assert_eq!(names(&read_json(&json)), ["x/must"]);
    assert!(
        by_default
            .stdout
            .contains("not judged: 1 scenario of level beyond"),
        "{by_default:?}"
    );
    let asked = mcpc(&["run", "--target", FIXTURE_TARGET, "--beyond", &folder]);
    assert_eq!(asked.code, 1, "--beyond judges it: {asked:?}");
    let in_file = mcpc(&["run", "--target", &declared, &folder]);
    assert_eq!(in_file.code, 1, "a target declaring beyond: {in_file:?}");
    let left_out = mcpc(&["run", "--target", &declared, "--no-beyond", &folder]);
    assert_eq!(
        left_out.code, 0,
        "--no-beyond overrides the target: {left_out:?}"
    );
}
