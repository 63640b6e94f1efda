//! No secrets in logs at any level: with `RUST_LOG=trace`, the real `mcp-hub` writes no secret
//! from a call's arguments or its upstream's result on stderr (the audit log's redactor is
//! applied to every log line: `mcp_safety_core::redact::log`).
//!
//! A call reaches the upstream by one of two paths: the front relays a plain call once the
//! `initialize` answer is written, and rmcp routes the rest (here: a call with a `task`, which
//! the front never takes). Both are driven, each for sure, and both are logged at trace.

mod common;

use std::process::Command;

use common::Sandbox;
use mcp_testkit::lines::{DEADLINE, LineClient};
use serde_json::json;

#[test]
fn no_argument_or_result_secret_reaches_stderr_at_trace() {
    let sb = Sandbox::new();
    let config =
        sb.config("[servers.u]\nprefix = \"u\"\ncommand = FIXTURE\nargs = [\"fixture-server\"]\n");
    let mut cmd = Command::new(common::HUB);
    cmd.arg(&config).env("RUST_LOG", "trace");
    let mut client = LineClient::spawn(cmd, true);
    // The answer is read before any call is sent, so the plain call is the front's.
    client.initialize("log-secrets");
    let text =
        "password=SENTINEL-1 Authorization: Bearer SENTINEL2abcdefgh sk-SENTINEL3abcdefghijklmnop";
    let by_rmcp = client.request(
        1,
        "tools/call",
        json!({"name": "u.echo", "arguments": {"text": text}, "task": {"ttl": 60000}}),
    );
    let by_front = client.request(
        2,
        "tools/call",
        json!({"name": "u.echo", "arguments": {"text": text}}),
    );
    client.close_stdin();
    assert!(
        client.wait_exit(DEADLINE).is_some(),
        "the hub exits on stdin EOF"
    );
    let stderr = client.stderr_text();
    // The echo came back to the client both ways, so the secret was there to leak.
    for answer in [&by_rmcp, &by_front] {
        assert!(answer.to_string().contains("SENTINEL-1"), "{answer}");
    }
    assert!(
        stderr.contains("received request id=1") && stderr.contains("u.echo"),
        "trace logging names the call rmcp routed: {stderr}"
    );
    assert!(
        stderr.contains("request_id=2 tool=\"u.echo\""),
        "trace logging names the call the front relayed: {stderr}"
    );
    for secret in ["SENTINEL-1", "SENTINEL2", "SENTINEL3"] {
        assert!(!stderr.contains(secret), "{secret} on stderr:\n{stderr}");
    }
}
