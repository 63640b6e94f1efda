//! Protocol details real clients and the official conformance suite check, on the real binary
//! over real pipes: `ping` and `logging/setLevel` do not exist for a 2026-07-28 request
//! (SEP-2575) while legacy `ping` keeps working, a cursor the server never issued is invalid
//! params in both generations, the tool list is `public` to modern clients, and the tool schemas carry no non-standard `format` and no
//! `type` array (the MCP Inspector CLIs warn on both).

mod common;

use common::Sandbox;
use serde_json::{Value, json};

/// A 2026-07-28 request's `_meta`.
fn modern_meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "toolhub-tests", "version": "1"},
    })
}

fn error_code(answer: &Value) -> Option<i64> {
    answer["error"]["code"].as_i64()
}

#[test]
fn modern_ping_and_set_level_are_method_not_found() {
    let sb = Sandbox::new();
    let mut s = sb.server();
    // As the very first request (no lifecycle yet), then again after modern requests.
    for round in 0..2 {
        let ping = s.request("ping", json!({"_meta": modern_meta()}));
        assert_eq!(error_code(&ping), Some(-32601), "round {round}: {ping}");
        let level = s.request(
            "logging/setLevel",
            json!({"level": "info", "_meta": modern_meta()}),
        );
        assert_eq!(error_code(&level), Some(-32601), "round {round}: {level}");
        let list = s.request("tools/list", json!({"_meta": modern_meta()}));
        assert_eq!(list["result"]["resultType"], "complete", "{list}");
    }
}

#[test]
fn the_tool_list_is_public_to_modern_clients_and_legacy_shaped_for_legacy_ones() {
    // Our choice where the 2026-07-28 caching utility leaves one: the list is the same for
    // every client, so `public` (rmcp would fill in `private`); a legacy session's list keeps
    // the 2025 shape, without the hints its schema does not have.
    let sb = Sandbox::new();
    let mut s = sb.server();
    let modern = s.request("tools/list", json!({"_meta": modern_meta()}));
    assert_eq!(modern["result"]["cacheScope"], "public", "{modern}");
    assert_eq!(modern["result"]["ttlMs"], 0, "{modern}");
    // A fresh server for the legacy session (this one has answered a modern request, after
    // which rmcp wants the modern `_meta` on every request).
    let mut s = sb.server();
    s.initialize();
    let legacy = s.request("tools/list", json!({}));
    let result = legacy["result"]
        .as_object()
        .unwrap_or_else(|| panic!("a result: {legacy}"));
    assert!(result.contains_key("tools"), "{legacy}");
    for hint in ["ttlMs", "cacheScope", "resultType"] {
        assert!(
            !result.contains_key(hint),
            "{hint} in a legacy list: {legacy}"
        );
    }
}

#[test]
fn legacy_ping_keeps_working() {
    let sb = Sandbox::new();
    let mut s = sb.server();
    // No `_meta` at all: a legacy request, answered before initialize as before.
    assert_eq!(s.request("ping", json!({}))["result"], json!({}));
    s.initialize();
    assert_eq!(s.request("ping", json!({}))["result"], json!({}));
    // Inside a legacy session a request that names 2026-07-28 is still a modern request.
    let modern = s.request("ping", json!({"_meta": modern_meta()}));
    assert_eq!(error_code(&modern), Some(-32601), "{modern}");
    assert_eq!(s.request("ping", json!({}))["result"], json!({}));
}

#[test]
fn a_cursor_the_server_never_issued_is_invalid_params() {
    let sb = Sandbox::new();
    // Legacy session.
    let mut s = sb.server();
    s.initialize();
    let first = s.request("tools/list", json!({}));
    assert!(
        first["result"].get("nextCursor").is_none(),
        "one page: {first}"
    );
    let bad = s.request("tools/list", json!({"cursor": "not-a-cursor"}));
    assert_eq!(error_code(&bad), Some(-32602), "{bad}");
    let empty = s.request("tools/list", json!({"cursor": ""}));
    assert_eq!(error_code(&empty), Some(-32602), "{empty}");
    // Modern, stateless: first request of a fresh process and after a good one.
    let mut m = sb.server();
    for _ in 0..2 {
        let bad = m.request(
            "tools/list",
            json!({"cursor": "not-a-cursor", "_meta": modern_meta()}),
        );
        assert_eq!(error_code(&bad), Some(-32602), "{bad}");
        let good = m.request("tools/list", json!({"_meta": modern_meta()}));
        assert_eq!(good["result"]["tools"].as_array().map(Vec::len), Some(14));
    }
}

#[test]
fn tool_schemas_are_portable() {
    let sb = Sandbox::new();
    let mut s = sb.server();
    s.initialize();
    let list = s.request("tools/list", json!({}));
    let tools = list["result"]["tools"].as_array().expect("tools");
    assert_eq!(tools.len(), 14);
    let mut problems = Vec::new();
    for tool in tools {
        for side in ["inputSchema", "outputSchema"] {
            if let Some(schema) = tool.get(side) {
                for finding in mcp_stdio_guard::schema::portability_findings(schema) {
                    problems.push(format!("{} {side}{finding}", tool["name"]));
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
