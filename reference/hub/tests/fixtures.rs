//! The example configurations in `fixtures/hub/` stay valid, and the ToolHub one really
//! aggregates the reference ToolHub and both safe-mcp servers.

mod common;

use std::path::{Path, PathBuf};

use common::{Hub, Sandbox};
use mcp_hub::config::{Filter, HubConfig};
use serde_json::json;

fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/hub")
}

#[test]
fn every_example_configuration_parses() {
    let mut seen = 0;
    for entry in std::fs::read_dir(fixtures_dir()).expect("fixtures/hub") {
        let path = entry.expect("entry").path();
        if path.extension().is_some_and(|e| e == "toml") {
            HubConfig::load(&path).unwrap_or_else(|e| panic!("{e}"));
            seen += 1;
        }
    }
    assert!(seen >= 2, "expected the example configurations");
}

#[test]
fn the_main_example_shows_every_option() {
    let config = HubConfig::load(&fixtures_dir().join("mcp-hub.example.toml")).expect("valid");
    let ids: Vec<&str> = config.servers.iter().map(|s| s.id.as_str()).collect();
    assert_eq!(ids, ["filesystem", "github_read", "github_admin"]);
    let [plain, read, admin] = &config.servers[..] else {
        panic!("three servers");
    };
    assert!(plain.prefix.is_none() && plain.filter == Filter::All && plain.stderr);
    assert!(matches!(read.filter, Filter::Include(_)));
    assert!(read.filter.exposes("list_issues") && !read.filter.exposes("delete_issue"));
    assert_eq!(read.env.len(), 3);
    assert!(matches!(admin.filter, Filter::Exclude(_)));
    assert!(!admin.stderr);
    assert_eq!(admin.overrides["create_release"].open_world, Some(true));
    assert_eq!(admin.overrides["delete_issue"].destructive, Some(true));
}

/// The text of the first content block of a `tools/call` answer, parsed as JSON (the
/// safe-mcp servers answer their OperationResult there).
fn call_result(answer: &serde_json::Value) -> serde_json::Value {
    let text = answer["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text content: {answer}"));
    serde_json::from_str(text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
}

#[test]
fn the_toolhub_example_aggregates_the_reference_toolhub() {
    let sandbox = Sandbox::new();
    let workspace = sandbox.path("ws");
    std::fs::create_dir_all(&workspace).expect("workspace");
    // A safe-mcp policy for both servers: a terminal jail, a files workspace and a state
    // folder beside them (outside both) for the audit log and the journal.
    let (jail, inbox, safe_state) = (
        sandbox.path("jail"),
        sandbox.path("inbox"),
        sandbox.path("safe-state"),
    );
    for dir in [&jail, &inbox, &safe_state] {
        std::fs::create_dir_all(dir).expect("safe-mcp folder");
    }
    std::fs::write(inbox.join("report.pdf"), "a report").expect("seed inbox");
    let toml_path = |p: &Path| common::toml_string(&p.display().to_string());
    let policy = sandbox.path("policy.toml");
    std::fs::write(
        &policy,
        format!(
            "audit_log = {audit}\naudit_fail_mode = \"closed\"\n\n\
             [terminal]\njail_root = {jail}\n\n\
             [terminal.allowlist]\ncommands = [\"echo\"]\n\n\
             [files]\nworkspace_root = {inbox}\njournal = {journal}\n\n\
             [files.categories]\nDocuments = [\".pdf\"]\n",
            audit = toml_path(&safe_state.join("audit.jsonl")),
            jail = toml_path(&jail),
            inbox = toml_path(&inbox),
            journal = toml_path(&safe_state.join("organizer-journal.json")),
        ),
    )
    .expect("write policy");

    let text = std::fs::read_to_string(fixtures_dir().join("toolhub.toml")).expect("read");
    let text = text
        .replace(
            "\"/replace/with/an/absolute/workspace\"",
            &toml_path(&workspace),
        )
        .replace(
            "\"/replace/with/an/absolute/safe-mcp/policy.toml\"",
            &toml_path(&policy),
        );
    assert!(!text.contains("/replace/with/"), "a placeholder is left");
    let path = sandbox.path("toolhub.toml");
    std::fs::write(&path, text).expect("write");
    let bin_dirs =
        [common::toolhub(), common::safe_mcp()].map(|bin| bin.parent().expect("dir").to_owned());
    let path_var = std::env::join_paths(bin_dirs.into_iter().chain(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    )))
    .expect("PATH");
    let state = sandbox.path("state").display().to_string();
    let mut hub = Hub::spawn(
        &[&path],
        &[
            ("PATH", path_var.to_str().expect("utf-8 PATH")),
            ("XDG_STATE_HOME", state.as_str()),
        ],
    );
    hub.initialize();
    let names = hub.tool_names();
    for expected in [
        "toolhub.filesystem.read_file",
        "terminal.run_command",
        "terminal.explain_command",
        "files.list_files",
        "files.plan_organize",
        "files.apply_plan",
        "files.move_file",
        "files.undo_last_action",
        "files.redo_last_action",
    ] {
        assert!(
            names.contains(&expected.to_owned()),
            "{expected}: {names:?}"
        );
    }
    assert!(
        names.iter().all(|n| ["toolhub.", "terminal.", "files."]
            .iter()
            .any(|p| n.starts_with(p))),
        "{names:?}"
    );
    assert!(
        !names.iter().any(|n| n.starts_with("toolhub.shell.")),
        "{names:?}"
    );
    let pong = hub.request(
        "tools/call",
        json!({"name": "toolhub.toolhub.ping", "arguments": {}}),
    );
    assert_eq!(pong["result"]["content"][0]["text"], "pong", "{pong}");

    let ran = call_result(&hub.request(
        "tools/call",
        json!({"name": "terminal.run_command", "arguments": {"command": "echo hello hub"}}),
    ));
    assert_eq!(ran["ok"], true, "{ran}");
    assert_eq!(ran["detail"]["exit_code"], 0, "{ran}");
    assert_eq!(ran["detail"]["stdout"], "hello hub\n", "{ran}");

    let listed = call_result(&hub.request(
        "tools/call",
        json!({"name": "files.list_files", "arguments": {}}),
    ));
    assert_eq!(listed["ok"], true, "{listed}");
    assert!(listed.to_string().contains("report.pdf"), "{listed}");
}
