//! No secrets in logs at any level: with `RUST_LOG=trace`, the real `mcp-hub` writes no secret
//! from a call's arguments or its upstream's result on stderr (the audit log's redactor is
//! applied to every log line: `mcp_safety_core::redact::log`).

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Command, Stdio};
use std::sync::mpsc::channel;
use std::time::Instant;

use common::{DEADLINE, Sandbox};
use serde_json::{Value, json};

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
