//! No secrets in logs at any level: with `RUST_LOG=trace`, the real `safe-mcp terminal` writes
//! no secret from a command line or its output on stderr (the audit log's redactor is applied
//! to every log line: `mcp_safety_core::redact::log`).

#![allow(clippy::unwrap_used)]

use std::process::Command;

use mcp_testkit::lines::run_at_trace;
use serde_json::json;

#[test]
fn no_command_or_output_secret_reaches_stderr_at_trace() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir(dir.path().join("jail")).expect("jail");
    std::fs::write(
        dir.path().join("jail/creds.txt"),
        "password=SENTINEL-OUT-1\nsk-SENTINELOUT2abcdefghijkl\n",
    )
    .expect("creds");
    let policy = dir.path().join("policy.toml");
    std::fs::write(
        &policy,
        "audit_log = \"audit.jsonl\"\n[terminal]\njail_root = \"jail\"\n[terminal.allowlist]\ncommands = [\"cat\", \"echo\"]\n",
    )
    .expect("policy");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_safe-mcp"));
    cmd.arg("terminal")
        .arg("--config")
        .arg(&policy)
        .env_clear()
        .env("PATH", "/usr/bin:/bin");
    let run = |id: u64, command: &str| {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
               "params": {"name": "run_command", "arguments": {"command": command}}})
    };
    let requests = [
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "log-secrets", "version": "1"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        run(1, "cat creds.txt"),
        run(2, "echo --api-key SENTINEL-ARG-1 token=SENTINEL-ARG-2"),
    ];
    let (stdout, stderr) = run_at_trace(cmd, &requests);
    assert!(
        stdout.contains("run_command") || stdout.contains("\"id\":1"),
        "{stdout}"
    );
    assert!(
        stderr.contains("run_command"),
        "trace logging names the calls: {stderr}"
    );
    for secret in [
        "SENTINEL-OUT-1",
        "SENTINELOUT2",
        "SENTINEL-ARG-1",
        "SENTINEL-ARG-2",
    ] {
        assert!(!stderr.contains(secret), "{secret} on stderr:\n{stderr}");
    }
}

/// The policy's own patterns (`[redaction] extra_patterns`) reach the log lines too, not only
/// the audit and the results: a secret of the operator's shape, twice on one line and beside
/// another, in a command line and its output, never reaches stderr at trace.
#[test]
fn the_policys_own_patterns_are_redacted_from_every_log_line() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir(dir.path().join("jail")).expect("jail");
    std::fs::write(
        dir.path().join("jail/notes.txt"),
        "first ZQX-1111aaaa then ZQX-2222bbbb and ZQX-1111aaaa again\n",
    )
    .expect("notes");
    let policy = dir.path().join("policy.toml");
    std::fs::write(
        &policy,
        "audit_log = \"audit.jsonl\"\n[redaction]\nextra_patterns = [{ name = \"house\", regex = \"ZQX-[0-9]{4}[a-z]{4}\" }]\n[terminal]\njail_root = \"jail\"\n[terminal.allowlist]\ncommands = [\"cat\", \"echo\"]\n",
    )
    .expect("policy");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_safe-mcp"));
    cmd.arg("terminal")
        .arg("--config")
        .arg(&policy)
        .env_clear()
        .env("PATH", "/usr/bin:/bin");
    let run = |id: u64, command: &str| {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
               "params": {"name": "run_command", "arguments": {"command": command}}})
    };
    let requests = [
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "log-secrets", "version": "1"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        run(1, "cat notes.txt"),
        run(2, "echo ZQX-3333cccc ZQX-3333cccc ZQX-4444dddd"),
    ];
    let (_, stderr) = run_at_trace(cmd, &requests);
    assert!(
        stderr.contains("run_command"),
        "trace logging names the calls: {stderr}"
    );
    assert!(
        !stderr.contains("ZQX-"),
        "an operator-pattern secret on stderr:\n{stderr}"
    );
}
