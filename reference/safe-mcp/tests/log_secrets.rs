//! No secrets in logs at any level: with `RUST_LOG=trace`, the real `safe-mcp terminal` writes
//! no secret from a command line or its output on stderr (the audit log's redactor is applied
//! to every log line: `mcp_safety_core::redact::log`).

#![allow(clippy::unwrap_used)]

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Command, Stdio};
use std::sync::mpsc::channel;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

const DEADLINE: Duration = Duration::from_secs(15);

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

/// Runs `cmd` at `RUST_LOG=trace`, sends `requests` (one JSON object per line), waits until
/// every request with an `id` is answered (bounded), closes stdin and returns (stdout, stderr).
fn run_at_trace(mut cmd: Command, requests: &[Value]) -> (String, String) {
    let mut child = cmd
        .env("RUST_LOG", "trace")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn the server");
    let stdout = child.stdout.take().expect("stdout");
    let mut stderr = child.stderr.take().expect("stderr");
    let err_reader = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stderr.read_to_string(&mut text);
        text
    });
    let (tx, rx) = channel::<String>();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let mut stdin = child.stdin.take().expect("stdin");
    for r in requests {
        writeln!(stdin, "{r}").expect("write a request");
    }
    stdin.flush().expect("flush");
    let mut pending: Vec<Value> = requests
        .iter()
        .filter_map(|r| r.get("id").cloned())
        .collect();
    let deadline = Instant::now() + DEADLINE;
    let mut out = String::new();
    while !pending.is_empty() {
        let left = deadline.saturating_duration_since(Instant::now());
        let line = rx
            .recv_timeout(left)
            .unwrap_or_else(|_| panic!("no answer to {pending:?} within {DEADLINE:?}: {out}"));
        if let Ok(msg) = serde_json::from_str::<Value>(&line) {
            pending.retain(|id| msg.get("id") != Some(id));
        }
        out.push_str(&line);
        out.push('\n');
    }
    drop(stdin);
    let (done_tx, done_rx) = channel();
    std::thread::spawn(move || {
        let _ = done_tx.send(child.wait());
    });
    done_rx
        .recv_timeout(DEADLINE)
        .expect("the server exits on stdin EOF")
        .expect("wait for the server");
    (out, err_reader.join().expect("stderr reader"))
}
