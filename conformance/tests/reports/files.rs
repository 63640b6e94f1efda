//! Report files: written from the run's last event only, whole (replacing old ones, no
//! temporary file left behind), and a file that cannot be written named without stopping the
//! others.

use mcp_conformance::report::files::ReportFiles;
use mcp_conformance::report::json::{to_json, write_json};
use mcp_conformance::report::junit::{to_junit_xml, write_junit};
use mcp_conformance::report::markdown::to_markdown;
use mcp_conformance::report::{Reporter, RunEvent};

use crate::{replay, sample_report};

#[test]
fn the_files_are_written_from_the_last_event_only() {
    let dir = tempfile::tempdir().expect("tempdir");
    let report = sample_report();
    let (json, junit, markdown) = (
        dir.path().join("r.json"),
        dir.path().join("r.xml"),
        dir.path().join("r.md"),
    );
    let mut files = ReportFiles::new(
        Some(json.clone()),
        Some(junit.clone()),
        Some(markdown.clone()),
    );
    let names = vec![report.scenarios[0].name.clone()];
    files
        .on_event(RunEvent::RunStarted {
            target: &report.target,
            target_file: &report.target_file,
            scenarios: &names,
        })
        .expect("nothing to write yet");
    assert!(!json.exists() && !junit.exists() && !markdown.exists());
    replay(&report, &mut files);
    assert_eq!(
        std::fs::read_to_string(&markdown).expect("written"),
        to_markdown(&report)
    );
    assert_eq!(
        std::fs::read_to_string(&junit).expect("written"),
        to_junit_xml(&report)
    );
    assert!(json.exists());
    assert!(files.failures().is_empty());
    // A file that cannot be written is named, and the others are still written.
    let mut broken = ReportFiles::new(
        Some(dir.path().join("missing/r.json")),
        None,
        Some(dir.path().join("again.md")),
    );
    assert!(
        broken
            .on_event(RunEvent::RunFinished { report: &report })
            .is_err()
    );
    assert_eq!(broken.failures().len(), 1);
    assert!(
        broken.failures()[0].contains("missing/r.json"),
        "{:?}",
        broken.failures()
    );
    assert!(dir.path().join("again.md").exists());
}

#[test]
fn report_files_are_written_whole_and_replace_old_ones() {
    let dir = tempfile::tempdir().expect("temp dir");
    let report = sample_report();
    let json_path = dir.path().join("report.json");
    let xml_path = dir.path().join("junit.xml");
    std::fs::write(&json_path, "old").expect("seed");
    std::fs::write(&xml_path, "old").expect("seed");

    write_json(&report, &json_path).expect("write json");
    write_junit(&report, &xml_path).expect("write junit");

    let back: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json_path).expect("read")).expect("json");
    assert_eq!(back, to_json(&report));
    assert_eq!(
        std::fs::read_to_string(&xml_path).expect("read"),
        to_junit_xml(&report)
    );
    // No temporary files left behind.
    let mut names: Vec<String> = std::fs::read_dir(dir.path())
        .expect("list")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["junit.xml", "report.json"]);

    // A missing directory is an error, not a panic, and leaves nothing behind.
    let missing = dir.path().join("nope").join("report.json");
    assert!(write_json(&report, &missing).is_err());
    assert!(write_junit(&report, &missing).is_err());
    // A directory in the way is an error too, and the temp file is cleaned up.
    std::fs::create_dir(dir.path().join("taken")).expect("mkdir");
    assert!(write_json(&report, &dir.path().join("taken")).is_err());
    assert_eq!(std::fs::read_dir(dir.path()).expect("list").count(), 3);
}
