//! Protocol details real clients and the official conformance suite check, on both servers
//! (`safe-mcp terminal` and `safe-mcp files`) over real pipes: `ping` and `logging/setLevel`
//! do not exist for a 2026-07-28 request (SEP-2575) while legacy `ping` keeps working, a
//! cursor the server never issued is invalid params in both generations, and the tool
//! schemas carry no non-standard `format` and no `type` array (the MCP Inspector CLIs warn on
//! both).

mod common;

use std::path::PathBuf;

use common::{BASE_POLICY, Sandbox, Server};
use serde_json::{Value, json};

const MODES: [(&str, usize); 2] = [("terminal", 2), ("files", 6)];

/// The terminal's base policy plus a files workspace (`inbox/`).
fn policy(sandbox: &Sandbox) -> PathBuf {
    std::fs::create_dir(sandbox.path("inbox")).expect("inbox");
    sandbox.policy(&format!(
        "{BASE_POLICY}\n[files]\nworkspace_root = \"inbox\"\njournal = \"state/journal.json\"\n"
    ))
}

fn modern_meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "safe-mcp-tests", "version": "1"},
    })
}

fn initialize(server: &mut Server) {
    let init = server.request(
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {},
               "clientInfo": {"name": "safe-mcp-tests", "version": "1"}}),
    );
    assert!(init.get("result").is_some(), "{init}");
    server.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
}

fn error_code(answer: &Value) -> Option<i64> {
    answer["error"]["code"].as_i64()
}

#[test]
fn modern_ping_and_set_level_are_method_not_found() {
    let sandbox = Sandbox::new();
    let policy = policy(&sandbox);
    for (mode, tools) in MODES {
        let mut s = Server::spawn(mode, &policy, &[]);
        for round in 0..2 {
            let ping = s.request("ping", json!({"_meta": modern_meta()}));
            assert_eq!(error_code(&ping), Some(-32601), "{mode} {round}: {ping}");
            let level = s.request(
                "logging/setLevel",
                json!({"level": "debug", "_meta": modern_meta()}),
            );
            assert_eq!(error_code(&level), Some(-32601), "{mode} {round}: {level}");
            let list = s.request("tools/list", json!({"_meta": modern_meta()}));
            assert_eq!(
                list["result"]["tools"].as_array().map(Vec::len),
                Some(tools)
            );
        }
    }
}

#[test]
fn legacy_ping_keeps_working() {
    let sandbox = Sandbox::new();
    let policy = policy(&sandbox);
    for (mode, _) in MODES {
        let mut s = Server::spawn(mode, &policy, &[]);
        assert_eq!(s.request("ping", json!({}))["result"], json!({}), "{mode}");
        initialize(&mut s);
        assert_eq!(s.request("ping", json!({}))["result"], json!({}), "{mode}");
        let modern = s.request("ping", json!({"_meta": modern_meta()}));
        assert_eq!(error_code(&modern), Some(-32601), "{mode}: {modern}");
    }
}

#[test]
fn a_cursor_the_server_never_issued_is_invalid_params() {
    let sandbox = Sandbox::new();
    let policy = policy(&sandbox);
    for (mode, tools) in MODES {
        let mut legacy = Server::spawn(mode, &policy, &[]);
        initialize(&mut legacy);
        let first = legacy.request("tools/list", json!({}));
        assert_eq!(
            first["result"]["tools"].as_array().map(Vec::len),
            Some(tools)
        );
        assert!(first["result"].get("nextCursor").is_none(), "{first}");
        let bad = legacy.request("tools/list", json!({"cursor": "not-a-cursor"}));
        assert_eq!(error_code(&bad), Some(-32602), "{mode}: {bad}");
        let mut modern = Server::spawn(mode, &policy, &[]);
        let bad = modern.request(
            "tools/list",
            json!({"cursor": "not-a-cursor", "_meta": modern_meta()}),
        );
        assert_eq!(error_code(&bad), Some(-32602), "{mode}: {bad}");
    }
}

#[test]
fn tool_schemas_are_portable() {
    let sandbox = Sandbox::new();
    let policy = policy(&sandbox);
    let mut problems = Vec::new();
    for (mode, tools) in MODES {
        let mut s = Server::spawn(mode, &policy, &[]);
        initialize(&mut s);
        let list = s.request("tools/list", json!({}));
        let listed = list["result"]["tools"].as_array().expect("tools");
        assert_eq!(listed.len(), tools);
        for tool in listed {
            for side in ["inputSchema", "outputSchema"] {
                if let Some(schema) = tool.get(side) {
                    for finding in mcp_stdio_guard::schema::portability_findings(schema) {
                        problems.push(format!("{mode} {} {side}{finding}", tool["name"]));
                    }
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
