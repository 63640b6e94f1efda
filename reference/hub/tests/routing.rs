//! Routing through the real binary: results pass through, cancellation reaches only the
//! owning upstream with its own request id, progress returns with the client's token, a dead
//! upstream fails only its own tools, and ambiguous inventories fail startup.

mod common;

use common::{Hub, Sandbox, recorded, wait_recorded};
use serde_json::json;

/// Two fixture upstreams `a` and `b` (prefixed), each recording what it receives.
fn two_recorded(sandbox: &Sandbox) -> Hub {
    let record = |name: &str| common::toml_string(&sandbox.path(name).display().to_string());
    let path = sandbox.config(&format!(
        r#"
[servers.a]
prefix = "a"
command = FIXTURE
args = ["fixture-server", "--record", {}]

[servers.b]
prefix = "b"
command = FIXTURE
args = ["fixture-server", "--record", {}]
"#,
        record("a.jsonl"),
        record("b.jsonl")
    ));
    let mut hub = Hub::spawn(&[&path], &[]);
    hub.initialize();
    hub
}

#[test]
fn results_pass_through_unchanged() {
    let sandbox = Sandbox::new();
    let mut hub = two_recorded(&sandbox);
    let echo = hub.request(
        "tools/call",
        json!({"name": "a.echo", "arguments": {"text": "hi"}}),
    );
    assert_eq!(
        echo["result"],
        json!({"content": [{"type": "text", "text": "hi"}], "structuredContent": {"text": "hi"}})
    );
    let fail = hub.request(
        "tools/call",
        json!({"name": "b.fail", "arguments": {"message": "no"}}),
    );
    assert_eq!(
        fail["result"],
        json!({"content": [{"type": "text", "text": "no"}], "isError": true})
    );
    let unknown = hub.request("tools/call", json!({"name": "echo", "arguments": {}}));
    assert_eq!(unknown["error"]["code"], -32602);
    // The call reached `b` under its original name.
    let call = wait_recorded(&sandbox.path("b.jsonl"), |m| m["method"] == "tools/call");
    assert_eq!(call["params"]["name"], "fail");
}

#[test]
fn cancellation_reaches_only_the_owner_with_its_request_id() {
    let sandbox = Sandbox::new();
    let mut hub = two_recorded(&sandbox);
    hub.send(
        &json!({"jsonrpc": "2.0", "id": "slow-1", "method": "tools/call",
        "params": {"name": "b.slow", "arguments": {"ms": 5000, "steps": 50},
                   "_meta": {"progressToken": "p-1"}}}),
    );
    // The first progress shows the call is running upstream, with the client's token.
    let progress = hub.next_message();
    assert_eq!(progress["method"], "notifications/progress");
    assert_eq!(progress["params"]["progressToken"], "p-1");
    assert_eq!(progress["params"]["progress"], 1);
    assert_eq!(progress["params"]["total"], 50);
    assert_eq!(progress["params"]["message"], "step 1 of 50");
    hub.send(
        &json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": {"requestId": "slow-1", "reason": "changed my mind"}}),
    );
    let b = sandbox.path("b.jsonl");
    let call = wait_recorded(&b, |m| m["method"] == "tools/call");
    let cancel = wait_recorded(&b, |m| m["method"] == "notifications/cancelled");
    assert_eq!(cancel["params"]["requestId"], call["id"]);
    assert_eq!(cancel["params"]["reason"], "changed my mind");
    // The session goes on; `a` never heard of the cancellation.
    let echo = hub.request(
        "tools/call",
        json!({"name": "a.echo", "arguments": {"text": "x"}}),
    );
    assert_eq!(echo["result"]["structuredContent"], json!({"text": "x"}));
    let a = recorded(&sandbox.path("a.jsonl"));
    assert!(
        a.iter().all(|m| m["method"] != "notifications/cancelled"),
        "{a:?}"
    );
    // No progress or answer for the cancelled call arrives after the next response.
    let ping = hub.request("ping", json!({}));
    assert_eq!(ping["result"], json!({}));
}

#[test]
fn progress_is_only_forwarded_for_calls_that_asked() {
    let sandbox = Sandbox::new();
    let mut hub = two_recorded(&sandbox);
    let done = hub.request(
        "tools/call",
        json!({"name": "a.slow", "arguments": {"ms": 20, "steps": 2}}),
    );
    assert_eq!(done["result"]["content"][0]["text"], "done");
    // Without a token the upstream was not asked for progress.
    let call = wait_recorded(&sandbox.path("a.jsonl"), |m| m["method"] == "tools/call");
    assert!(call["params"].get("_meta").is_none(), "{call}");
    hub.send(&json!({"jsonrpc": "2.0", "id": 77, "method": "tools/call",
        "params": {"name": "a.slow", "arguments": {"ms": 20, "steps": 2},
                   "_meta": {"progressToken": 5}}}));
    let mut tokens = Vec::new();
    loop {
        let m = hub.next_message();
        if m["id"] == 77 {
            break;
        }
        tokens.push(m["params"]["progressToken"].clone());
    }
    assert_eq!(tokens, [json!(5), json!(5)]);
}

#[test]
fn a_dead_upstream_fails_its_own_tools_only() {
    let sandbox = Sandbox::new();
    let mut hub = two_recorded(&sandbox);
    let crash = hub.request("tools/call", json!({"name": "a.crash", "arguments": {}}));
    // The hub's own internal error, naming the upstream: the call in flight when it died, and
    // a later one to the closed session.
    assert_eq!(crash["error"]["code"], -32603, "{crash}");
    hub.wait_stderr(&["WARN", "instance_id=a", "tool=crash"]);
    let again = hub.request(
        "tools/call",
        json!({"name": "a.echo", "arguments": {"text": "x"}}),
    );
    assert_eq!(again["error"]["code"], -32603, "{again}");
    for failed in [&crash, &again] {
        let message = failed["error"]["message"].as_str().unwrap_or_default();
        assert!(message.starts_with("upstream `a` failed"), "{failed}");
    }
    let names = hub.tool_names();
    assert!(names.contains(&"a.echo".to_owned()), "{names:?}");
    let b = hub.request(
        "tools/call",
        json!({"name": "b.echo", "arguments": {"text": "y"}}),
    );
    assert_eq!(b["result"]["structuredContent"], json!({"text": "y"}));
}

#[test]
fn list_changed_is_logged_not_forwarded() {
    let sandbox = Sandbox::new();
    let mut hub = two_recorded(&sandbox);
    let before = hub.tool_names();
    let ok = hub.request(
        "tools/call",
        json!({"name": "a.list_changed", "arguments": {}}),
    );
    assert!(ok.get("result").is_some(), "{ok}");
    hub.wait_stderr(&["WARN", "instance_id=a", "list_changed"]);
    // The next message is the answer to tools/list: nothing was forwarded in between.
    hub.send(&json!({"jsonrpc": "2.0", "id": "after", "method": "tools/list"}));
    let next = hub.next_message();
    assert_eq!(next["id"], "after");
    let after: Vec<&str> = next["result"]["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert_eq!(after, before);
}

#[test]
fn client_protocol_versions() {
    let sandbox = Sandbox::new();
    let path = sandbox.config("[servers.a]\ncommand = FIXTURE\nargs = [\"fixture-server\"]\n");
    for (asked, answered) in [
        ("2024-11-05", "2024-11-05"),
        ("2025-03-26", "2025-03-26"),
        ("2025-06-18", "2025-06-18"),
        ("2025-11-25", "2025-11-25"),
        ("2026-07-28", "2026-07-28"),
        ("2099-01-01", "2025-11-25"),
    ] {
        let mut hub = Hub::spawn(&[&path], &[]);
        let init = hub.request(
            "initialize",
            json!({"protocolVersion": asked, "capabilities": {},
                   "clientInfo": {"name": "t", "version": "1"}}),
        );
        assert_eq!(init["result"]["protocolVersion"], answered, "{asked}");
        assert_eq!(
            init["result"]["capabilities"],
            json!({"tools": {}}),
            "tools only"
        );
        assert_eq!(
            hub.request("ping", json!({}))["result"],
            json!({}),
            "{asked}"
        );
    }
}

#[test]
fn outward_name_collisions_fail_startup() {
    let sandbox = Sandbox::new();
    let path = sandbox.config(
        "[servers.a]\ncommand = FIXTURE\nargs = [\"fixture-server\"]\n[servers.b]\ncommand = FIXTURE\nargs = [\"fixture-server\"]\n",
    );
    let mut hub = Hub::spawn(&[&path], &[]);
    assert_eq!(hub.wait_exit().code(), Some(1));
    hub.wait_stderr(&["startup failed", "`echo`", "`a`", "`b`"]);
    assert!(
        hub.next_message_or_none().is_none(),
        "stdout must stay empty"
    );
}

/// A call the front leaves to rmcp (here one with a `task`, which the hub does not take as
/// a task and runs as a plain call) is cancelled through rmcp's handler: the upstream gets
/// the cancellation with its own request id and the client's reason.
#[test]
fn a_call_rmcp_routed_is_cancelled_at_its_upstream() {
    let sandbox = Sandbox::new();
    let mut hub = two_recorded(&sandbox);
    hub.send(
        &json!({"jsonrpc": "2.0", "id": "via-rmcp", "method": "tools/call",
        "params": {"name": "a.slow", "arguments": {"ms": 60000, "steps": 600},
                   "task": {"ttl": 60000}}}),
    );
    let path = sandbox.path("a.jsonl");
    let call = wait_recorded(&path, |m| m["method"] == "tools/call");
    hub.send(
        &json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": {"requestId": "via-rmcp", "reason": "enough"}}),
    );
    let cancel = wait_recorded(&path, |m| m["method"] == "notifications/cancelled");
    assert_eq!(cancel["params"]["requestId"], call["id"], "{cancel}");
    assert_eq!(cancel["params"]["reason"], "enough", "{cancel}");
}
