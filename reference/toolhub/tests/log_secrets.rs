//! No secrets in logs at any level: with `RUST_LOG=trace`, the real `mcp-toolhub serve`
//! writes no secret from tool arguments or outputs on stderr (the audit log's redactor is
//! applied to every log line: `mcp_safety_core::redact::log`).

#![allow(clippy::unwrap_used)]

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Command, Stdio};
use std::sync::mpsc::channel;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

const DEADLINE: Duration = Duration::from_secs(15);

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
