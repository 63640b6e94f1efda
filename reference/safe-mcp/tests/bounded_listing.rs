//! Bounded work on agent input: `list_files` and `plan_organize` read at most
//! `fsops::MAX_LISTED_ENTRIES` + 1 names of a folder; a larger folder is refused with
//! OPERATION_FAILED (naming the limit) instead of being listed, statted and answered whole.

#![allow(clippy::unwrap_used)]

use std::fs;

use mcp_safety_core::policy::{Overrides, Policy, Server};
use safe_mcp::files::Organizer;
use safe_mcp::files::fsops::MAX_LISTED_ENTRIES;
use serde_json::Value;

fn organizer(dir: &std::path::Path) -> Organizer {
    let text = "audit_log = \"state/audit.jsonl\"\n\n[files]\nworkspace_root = \"ws\"\njournal = \"state/journal.json\"\n\n[files.categories]\nDocuments = [\".txt\"]\n";
    let file = dir.join("policy.toml");
    fs::write(&file, text).unwrap();
    let policy = Policy::from_toml(text, &file, &Overrides::default(), Server::Files).unwrap();
    Organizer::new(policy, text).unwrap()
}

fn fill(dir: &std::path::Path, n: usize) {
    for i in 0..n {
        fs::File::create(dir.join(format!("f{i:05}.txt"))).unwrap();
    }
}

#[test]
fn a_folder_over_the_limit_is_refused_and_one_at_the_limit_is_listed() {
    let tmp = tempfile::tempdir().unwrap();
    fs::create_dir_all(tmp.path().join("ws/big")).unwrap();
    fs::create_dir_all(tmp.path().join("ws/edge")).unwrap();
    fs::create_dir(tmp.path().join("state")).unwrap();
    fill(&tmp.path().join("ws/big"), MAX_LISTED_ENTRIES + 1);
    fill(&tmp.path().join("ws/edge"), MAX_LISTED_ENTRIES);
    let o = organizer(tmp.path());

    let r: Value = serde_json::to_value(o.list_files(Some("big"))).unwrap();
    assert_eq!(r["ok"], false, "{}", r["reason"]);
    assert_eq!(r["code"], "OPERATION_FAILED");
    assert!(
        r["reason"]
            .as_str()
            .unwrap()
            .contains(&MAX_LISTED_ENTRIES.to_string()),
        "{}",
        r["reason"]
    );

    let r: Value = serde_json::to_value(o.list_files(Some("edge"))).unwrap();
    assert_eq!(r["ok"], true, "{}", r["reason"]);
    assert_eq!(
        r["detail"]["entries"].as_array().map(Vec::len),
        Some(MAX_LISTED_ENTRIES),
        "every entry of a folder at the limit is listed"
    );
}

#[test]
fn plan_organize_refuses_a_workspace_over_the_limit() {
    let tmp = tempfile::tempdir().unwrap();
    fs::create_dir_all(tmp.path().join("ws")).unwrap();
    fs::create_dir(tmp.path().join("state")).unwrap();
    fill(&tmp.path().join("ws"), MAX_LISTED_ENTRIES + 1);
    let r: Value = serde_json::to_value(organizer(tmp.path()).plan_organize()).unwrap();
    assert_eq!(r["ok"], false, "{r}");
    assert_eq!(r["code"], "OPERATION_FAILED");
}
