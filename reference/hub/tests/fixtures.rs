//! The example configurations in `fixtures/hub/` stay valid, and the ToolHub one really
//! aggregates the reference ToolHub.

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

#[test]
fn the_toolhub_example_aggregates_the_reference_toolhub() {
    let sandbox = Sandbox::new();
    let workspace = sandbox.path("ws");
    std::fs::create_dir_all(&workspace).expect("workspace");
    let text = std::fs::read_to_string(fixtures_dir().join("toolhub.toml")).expect("read");
    let text = text.replace(
        "\"/replace/with/an/absolute/workspace\"",
        &common::toml_string(&workspace.display().to_string()),
    );
    let path = sandbox.path("toolhub.toml");
    std::fs::write(&path, text).expect("write");
    let bin_dir = common::toolhub().parent().expect("dir").to_owned();
    let path_var = std::env::join_paths(std::iter::once(bin_dir).chain(std::env::split_paths(
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
    assert!(
        names.contains(&"toolhub.filesystem.read_file".to_owned()),
        "{names:?}"
    );
    assert!(names.iter().all(|n| n.starts_with("toolhub.")), "{names:?}");
    assert!(
        !names.iter().any(|n| n.starts_with("toolhub.shell.")),
        "{names:?}"
    );
    let pong = hub.request(
        "tools/call",
        json!({"name": "toolhub.toolhub.ping", "arguments": {}}),
    );
    assert_eq!(pong["result"]["content"][0]["text"], "pong", "{pong}");
}
