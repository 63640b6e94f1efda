//! Report files: JUnit, JSON and Markdown describing the same run, and `merge` of shards
//! reporting the unsharded run.

use serde_json::Value;
use std::path::Path;

use crate::common::xml;
use crate::{FIXTURE_TARGET, assert_closing_line, failing, mcpc, names, passing, read_json, write};

#[test]
fn junit_json_and_markdown_reports_describe_the_same_run() {
    let dir = tempfile::tempdir().expect("temp dir");
    let scenarios = dir.path().join("s");
    write(&scenarios, "a.yaml", &passing("x/a & <b>", &["t"]));
    write(&scenarios, "b.yaml", &failing("x/\"fails\""));
    write(
        &scenarios,
        "c.yaml",
        "name: x/skipped\nsuite: protocol\nrequires: [no_such_knob]\nsteps:\n  - request: ping\n",
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
