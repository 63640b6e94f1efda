//! No secrets in logs at any level: with `RUST_LOG=trace`, the real `mcp-toolhub serve`
//! writes no secret from tool arguments or outputs on stderr (the audit log's redactor is
//! applied to every log line: `mcp_safety_core::redact::log`).

#![allow(clippy::unwrap_used)]

use std::process::Command;

use mcp_testkit::lines::run_at_trace;
use serde_json::{Value, json};

/// Secrets, each in a shape the audit log redacts: KEY=VALUE, `key: value`, well-known token
/// shapes, a URL password, a PEM block, an argv flag's value.
const IN_FILE: &str = "password=SENTINEL-FILE-1\napi_key: SENTINEL-FILE-2\nsk-SENTINELFILE3abcdefghijkl\nhttps://u:SENTINEL-FILE-4@example.com/\n-----BEGIN RSA PRIVATE KEY-----\nSENTINELFILE5\n-----END RSA PRIVATE KEY-----\n";

#[test]
fn no_argument_or_output_secret_reaches_stderr_at_trace() {
    let dir = tempfile::tempdir().expect("tempdir");
    let ws = dir.path().join("ws");
    std::fs::create_dir(&ws).expect("mkdir ws");
    std::fs::write(ws.join("creds.txt"), IN_FILE).expect("write creds");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_mcp-toolhub"));
    cmd.arg("serve")
        .env_clear()
        .env("TOOLHUB_WORKSPACE_ROOT", &ws)
        .env("TOOLHUB_STATE_ROOT", dir.path().join("state"))
        .env("HOME", dir.path());
    let call = |id: u64, name: &str, arguments: Value| {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
               "params": {"name": name, "arguments": arguments}})
    };
    let requests = [
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "log-secrets", "version": "1"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        call(1, "filesystem.read_file", json!({"path": "creds.txt"})),
        call(
            2,
            "filesystem.write_file",
            json!({"path": "out.txt",
            "content": "token=SENTINEL-ARG-1\nAuthorization: Bearer SENTINELARG2abcdef\n"}),
        ),
        call(
            3,
            "shell.run",
            json!({"program": "/bin/echo",
            "args": ["--password", "SENTINEL-ARG-3", "ghp_SENTINELARG4abcdefghijklmnopqrstu"]}),
        ),
    ];
    let (stdout, stderr) = run_at_trace(cmd, &requests);
    // The client sees the file (the read is what it asked for), so the output was there to leak.
    assert!(stdout.contains("SENTINEL-FILE-1"), "{stdout}");
    assert!(
        stderr.contains("filesystem.read_file"),
        "trace logging names the calls: {stderr}"
    );
    for secret in [
        "SENTINEL-FILE-1",
        "SENTINEL-FILE-2",
        "SENTINELFILE3",
        "SENTINEL-FILE-4",
        "SENTINELFILE5",
        "SENTINEL-ARG-1",
        "SENTINELARG2",
        "SENTINEL-ARG-3",
        "SENTINELARG4",
    ] {
        assert!(!stderr.contains(secret), "{secret} on stderr:\n{stderr}");
    }
}
