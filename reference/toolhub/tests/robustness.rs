//! The stdio guard, verified against the real binary over real pipes: malformed lines and
//! out-of-order messages do not kill the server, stdout carries only JSON-RPC, and the
//! process exits promptly on stdin EOF.

mod common;

use std::time::Duration;

use common::Sandbox;
use serde_json::{Value, json};

/// Every stdout line must be a JSON-RPC 2.0 object; responses carry an `id` member.
fn assert_jsonrpc(line: &str) {
    let v: Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}"));
    assert_eq!(v["jsonrpc"], "2.0", "{line}");
    if v.get("method").is_none() {
        assert!(v.get("id").is_some(), "response without id: {line}");
    }
}

#[test]
fn survives_malformed_and_out_of_order_input() {
    let sb = Sandbox::new();
    let mut s = sb.server();
    // Before initialize: notifications are dropped, a line that is not JSON is answered
    // with a parse error (id null), ping is answered.
    s.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    s.send(r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":42}}"#);
    s.send(r#"{"jsonrpc": "2.0", "id": 1, "method": "#);
    s.send("this is not json at all");
    s.send(r#"{"jsonrpc":"2.0","id":"early-ping","method":"ping"}"#);
    // The ordered stream: two parse errors, then the ping's answer (nothing was answered
    // for the notifications).
    for _ in 0..2 {
        let parse_error = s.next_message();
        assert_eq!(parse_error["error"]["code"], -32700, "{parse_error}");
        assert_eq!(parse_error["id"], Value::Null, "{parse_error}");
    }
    assert_eq!(
        s.next_message(),
        json!({"jsonrpc": "2.0", "id": "early-ping", "result": {}})
    );
    let init = s.initialize();
    assert_eq!(init["result"]["serverInfo"]["name"], "mcp-toolhub");
    assert_eq!(
        init["result"]["serverInfo"]["version"],
        env!("CARGO_PKG_VERSION")
    );

    // After initialize: garbage gets -32700 (id null); well-formed invalid messages get
    // -32600 with an id.
    s.send("{{{ not json");
    let parse_error = s.next_message();
    assert_eq!(parse_error["error"]["code"], -32700, "{parse_error}");
    s.send(r#"{"jsonrpc":"2.0","id":"bad-1"}"#);
    let r = s.response(&json!("bad-1"));
    assert_eq!(r["error"]["code"], -32600);
    s.send("[]");
    let r = s.next_message();
    assert_eq!(r["error"]["code"], -32600);
    assert_eq!(r["id"], Value::Null);
    s.send(r#"{"jsonrpc":"2.0","id":"p2","method":"ping"}"#);
    assert_eq!(
        s.next_message(),
        json!({"jsonrpc": "2.0", "id": "p2", "result": {}})
    );

    // The session still works.
    let tools = s.request("tools/list", json!({}));
    assert_eq!(tools["result"]["tools"].as_array().map(Vec::len), Some(14));
    let pong = s.call("toolhub.ping", json!({"message": "hi"}));
    assert_eq!(pong["content"][0]["text"], "pong: hi");
    let unknown = s.request("conformance/no-such-method", json!({}));
    assert_eq!(unknown["error"]["code"], -32601);

    for line in s.seen.clone() {
        assert_jsonrpc(&line);
    }
    let (status, took) = s.close();
    assert!(status.success(), "{status:?}");
    assert!(took < Duration::from_secs(1), "exit took {took:?}");
}

#[test]
fn exits_promptly_on_eof_before_initialize() {
    let sb = Sandbox::new();
    let s = sb.server();
    let (status, took) = s.close();
    assert!(status.success(), "{status:?}");
    assert!(took < Duration::from_secs(1), "exit took {took:?}");
}

#[test]
fn input_schema_violations_are_errors_not_outcomes() {
    let sb = Sandbox::new();
    let mut s = sb.server();
    s.initialize();
    // Missing required field, wrong type, unknown field: a tool error (isError) or a JSON-RPC
    // error, never a structured outcome.
    for (tool, args) in [
        ("filesystem.write_file", json!({"path": "a.txt"})),
        ("filesystem.read_file", json!({"path": 7})),
        (
            "toolhub.request_status",
            json!({"request_id": "x", "extra": 1}),
        ),
        (
            "filesystem.write_file_approved",
            json!({"request_id": "x", "content": "y"}),
        ),
    ] {
        let r = s.request("tools/call", json!({"name": tool, "arguments": args}));
        let is_error = r["result"]["isError"] == json!(true) || r.get("error").is_some();
        assert!(is_error, "{tool}: {r}");
        assert!(
            r["result"].get("structuredContent").is_none(),
            "{tool}: {r}"
        );
    }
    let r = s.request(
        "tools/call",
        json!({"name": "toolhub.audit_recent", "arguments": {"limit": 0}}),
    );
    assert_eq!(r["error"]["code"], -32602, "{r}");
}
