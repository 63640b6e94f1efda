//! What the state root holds and how an operator backs the approval store up and restores it,
//! through the real binaries: `mcp-toolhub-admin export` writes the store's JSON form (the
//! document's `approvals.json`); put in a fresh state root as `approvals.json`, it is migrated
//! back, statuses and all; an `approvals.json` beside a live store is refused, not merged.

mod common;

use common::Sandbox;
use serde_json::{Value, json};

fn request(s: &mut common::Server, content: &str) -> String {
    let r = s.structured(
        "filesystem.write_file",
        json!({"path": "notes.txt", "content": content}),
    );
    assert_eq!(r["outcome"], "APPROVAL_REQUIRED", "{r}");
    r["request_id"].as_str().expect("request id").to_owned()
}

fn names(dir: &std::path::Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("read state root")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

fn listed(sb: &Sandbox) -> String {
    String::from_utf8(
        sb.admin(&["list"], "")
            .success()
            .get_output()
            .stdout
            .clone(),
    )
    .expect("utf8")
}

#[test]
fn the_state_root_holds_the_documented_files() {
    let sb = Sandbox::new();
    let mut s = sb.server();
    s.initialize();
    request(&mut s, "x");
    drop(s);
    let names = names(&sb.state);
    for expected in [
        "approvals.lock",
        "approvals.sqlite3",
        "audit.jsonl",
        "workspace-binding.json",
    ] {
        assert!(names.iter().any(|n| n == expected), "{expected}: {names:?}");
    }
    let known = |n: &str| {
        n.starts_with("approvals.")
            || n.starts_with("audit.")
            || n == "workspace-binding.json"
            || n == "binding.lock"
    };
    assert!(names.iter().all(|n| known(n)), "{names:?}");
}

#[test]
fn an_export_restores_into_a_fresh_state_root() {
    let sb = Sandbox::new();
    let mut s = sb.server();
    s.initialize();
    let pending = request(&mut s, "one");
    let approved = request(&mut s, "two");
    sb.admin(&["approve", &approved], "APPROVE\n").success();
    drop(s);

    let backup = sb.dir.path().join("backup.json");
    let to_file = sb.admin(&["export", "--output", backup.to_str().expect("utf8")], "");
    to_file.success().stdout("");
    let to_stdout = sb
        .admin(&["export"], "")
        .success()
        .get_output()
        .stdout
        .clone();
    let bytes = std::fs::read(&backup).expect("backup");
    assert_eq!(bytes, to_stdout);
    let v: Value = serde_json::from_slice(&bytes).expect("the export is JSON");
    assert_eq!(v["version"], 1);
    assert_eq!(v["records"].as_array().map(Vec::len), Some(2));
    let before = listed(&sb);

    // Restore: the server stopped, the database moved away, the export put in its place.
    for entry in std::fs::read_dir(&sb.state).expect("state") {
        let path = entry.expect("entry").path();
        let name = path
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        if name.starts_with("approvals.sqlite3") {
            std::fs::remove_file(&path).expect("move the database away");
        }
    }
    std::fs::write(sb.state.join("approvals.json"), &bytes).expect("restore");
    assert_eq!(listed(&sb), before, "the same requests, the same statuses");
    let names = names(&sb.state);
    assert!(!names.iter().any(|n| n == "approvals.json"), "{names:?}");
    assert!(
        names
            .iter()
            .any(|n| n.starts_with("approvals.json.migrated-")),
        "{names:?}"
    );
    let mut s = sb.server();
    s.initialize();
    let done = s.structured(
        "filesystem.write_file_approved",
        json!({"request_id": approved}),
    );
    assert_eq!(done["outcome"], "SUCCEEDED", "{done}");
    assert_eq!(sb.read("notes.txt"), "two");
    let still = s.structured("toolhub.request_status", json!({"request_id": pending}));
    assert_eq!(still["outcome"], "APPROVAL_PENDING", "{still}");
}

#[test]
fn an_approvals_json_beside_a_live_store_is_refused_not_merged() {
    let sb = Sandbox::new();
    let mut s = sb.server();
    s.initialize();
    request(&mut s, "x");
    drop(s);
    let stray = br#"{"version":1,"records":[]}"#;
    std::fs::write(sb.state.join("approvals.json"), stray).expect("stray");
    let out = sb.admin(&["list"], "").failure().get_output().clone();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.stdout.is_empty());
    assert!(
        stderr.contains("approvals.json") && stderr.contains("approvals.sqlite3"),
        "{stderr}"
    );
    assert!(stderr.lines().count() <= 2, "{stderr}");
    assert_eq!(
        std::fs::read(sb.state.join("approvals.json")).expect("left alone"),
        stray
    );
}
