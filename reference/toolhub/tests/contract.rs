//! Contract V1 drift tests.
//!
//! 1. The surface regenerated from the live server's `tools/list` (the real binary over real
//!    pipes) must equal `fixtures/contract_v1.json`: tool names, annotations, input/output
//!    property names, required fields, normalized schema digests, stable enums and approval
//!    mappings. On drift the test prints a unified diff of the two surfaces.
//! 2. Our surface must state the same facts as the public surface file
//!    (`fixtures/toolhub-contract-v1-surface.json`, a copy of the shared one).
//!
//! Deliberate update (see the crate README, "Contract fixture"): decide whether the change is
//! compatible (an incompatible one needs a new contract version), then run
//! `UPDATE_CONTRACT_FIXTURE=1 cargo test -p mcp-toolhub --test contract`, review the fixture
//! diff (field lists and digests) and commit it with the model change. Never update the fixture
//! only to make this test pass.

mod common;

use common::Sandbox;
use mcp_toolhub::surface::{facts, pretty, surface_from_tools};
use serde_json::{Value, json};

const FIXTURE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../fixtures/contract_v1.json"
);
const PUBLIC_SURFACE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../fixtures/toolhub-contract-v1-surface.json"
);

fn live_tools() -> Vec<Value> {
    let sb = Sandbox::new();
    let mut server = sb.server();
    server.initialize();
    let r = server.request("tools/list", json!({}));
    let tools = r["result"]["tools"]
        .as_array()
        .cloned()
        .expect("tools array");
    assert!(
        r["result"].get("nextCursor").is_none_or(Value::is_null),
        "one page expected"
    );
    tools
}

fn diff(expected: &str, actual: &str) -> String {
    similar::TextDiff::from_lines(expected, actual)
        .unified_diff()
        .context_radius(4)
        .header("expected", "actual")
        .to_string()
}

#[test]
fn live_surface_matches_the_contract_fixture() {
    let tools = live_tools();
    let actual = pretty(&surface_from_tools(&tools));
    if std::env::var_os("UPDATE_CONTRACT_FIXTURE").is_some() {
        std::fs::write(FIXTURE, &actual).expect("write fixture");
        eprintln!("wrote {FIXTURE}; review the diff before committing");
        return;
    }
    let expected = std::fs::read_to_string(FIXTURE).unwrap_or_default();
    let expected = pretty(&serde_json::from_str(&expected).unwrap_or(Value::Null));
    assert!(
        expected == actual,
        "Contract V1 drift between fixtures/contract_v1.json and the live server:\n{}\n\
         If this change is deliberate and compatible, regenerate with \
         UPDATE_CONTRACT_FIXTURE=1 cargo test -p mcp-toolhub --test contract and review it.",
        diff(&expected, &actual)
    );
}

#[test]
fn surface_states_the_public_surface_facts() {
    let public: Value =
        serde_json::from_str(&std::fs::read_to_string(PUBLIC_SURFACE).expect("public surface"))
            .expect("json");
    // The in-process router (the same code the binary serves).
    let tools: Vec<Value> = mcp_toolhub::server::list_tools()
        .into_iter()
        .map(|t| serde_json::to_value(t).expect("tool json"))
        .collect();
    let ours = pretty(&facts(&surface_from_tools(&tools)));
    let theirs = pretty(&facts(&public));
    assert!(
        ours == theirs,
        "our surface differs from the public Contract V1 surface:\n{}",
        diff(&theirs, &ours)
    );
}

#[test]
fn live_list_equals_the_in_process_router() {
    let live = live_tools();
    let local: Vec<Value> = mcp_toolhub::server::list_tools()
        .into_iter()
        .map(|t| serde_json::to_value(t).expect("tool json"))
        .collect();
    assert_eq!(pretty(&Value::Array(live)), pretty(&Value::Array(local)));
}

#[test]
fn schema_enums_are_the_contract_enums() {
    let tools: Vec<Value> = mcp_toolhub::server::list_tools()
        .into_iter()
        .map(|t| serde_json::to_value(t).expect("tool json"))
        .collect();
    let public: Value =
        serde_json::from_str(&std::fs::read_to_string(PUBLIC_SURFACE).expect("public surface"))
            .expect("json");
    let status = tools
        .iter()
        .find(|t| t["name"] == "toolhub.request_status")
        .expect("request_status");
    let schema = &status["outputSchema"];
    let find_enum = |name: &str| -> Value {
        schema
            .pointer(&format!("/$defs/{name}/enum"))
            .cloned()
            .unwrap_or(Value::Null)
    };
    assert_eq!(find_enum("Outcome"), public["outcomes"]);
    assert_eq!(find_enum("ApprovalStatus"), public["approval_statuses"]);
    // No tool approves or rejects.
    for t in &tools {
        let name = t["name"].as_str().unwrap_or_default();
        assert!(
            !name.contains("approve") || name.ends_with("_approved"),
            "{name}"
        );
        assert!(!name.contains("reject"), "{name}");
    }
}
