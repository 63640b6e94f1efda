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
