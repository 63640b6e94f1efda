//! No secrets in logs at any level: with `RUST_LOG=trace`, the real `mcp-hub` writes no secret
//! from a call's arguments or its upstream's result on stderr (the audit log's redactor is
//! applied to every log line: `mcp_safety_core::redact::log`).

mod common;

use std::process::Command;

use common::Sandbox;
use mcp_testkit::lines::run_at_trace;
use serde_json::json;

#[test]
fn no_argument_or_result_secret_reaches_stderr_at_trace() {
    let sb = Sandbox::new();
    let config =
        sb.config("[servers.u]\nprefix = \"u\"\ncommand = FIXTURE\nargs = [\"fixture-server\"]\n");
    let mut cmd = Command::new(common::HUB);
    cmd.arg(&config);
    let text =
        "password=SENTINEL-1 Authorization: Bearer SENTINEL2abcdefgh sk-SENTINEL3abcdefghijklmnop";
    let requests = [
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "log-secrets", "version": "1"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
               "params": {"name": "u.echo", "arguments": {"text": text}}}),
    ];
    let (stdout, stderr) = run_at_trace(cmd, &requests);
    // The echo came back to the client, so the secret was there to leak.
    assert!(stdout.contains("SENTINEL-1"), "{stdout}");
    assert!(
        stderr.contains("u.echo") || stderr.contains("echo"),
        "trace logging names the call: {stderr}"
    );
    for secret in ["SENTINEL-1", "SENTINEL2", "SENTINEL3"] {
        assert!(!stderr.contains(secret), "{secret} on stderr:\n{stderr}");
    }
}
