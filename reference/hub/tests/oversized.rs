//! Oversized and undecodable lines are answered, never dropped: the three reference servers
//! (`mcp-toolhub serve`, `safe-mcp terminal`, `mcp-hub`) share the line guard of
//! `mcp-stdio-guard`, so each gets the same raw lines here, and the hub is also given an
//! upstream whose result is longer than the limit. Every wait is a deadline on a channel.

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};

use common::{DEADLINE, HUB, Sandbox, safe_mcp, toolhub};
use serde_json::{Value, json};

/// The small limit most tests configure, so a line over it is quick to write.
const SMALL: usize = 64 * 1024;

/// A server process driven by raw lines.
struct Raw {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    stderr: Receiver<String>,
    next_id: u64,
}

impl Raw {
    fn spawn(cmd: &mut Command) -> Raw {
        let mut child = cmd
            .env_remove("RUST_LOG")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn server");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut stderr_pipe = child.stderr.take().expect("stderr");
        let (etx, stderr) = channel();
        std::thread::spawn(move || {
            let mut text = String::new();
            let _ = stderr_pipe.read_to_string(&mut text);
            let _ = etx.send(text);
        });
        let stdin = child.stdin.take();
        Raw {
            child,
            stdin,
            lines,
            stderr,
            next_id: 0,
        }
    }

    fn write(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(bytes).expect("write");
        stdin.flush().expect("flush");
    }

    fn next_message(&mut self) -> Value {
        let line = self
            .lines
            .recv_timeout(DEADLINE)
            .expect("no message from the server before the deadline");
        serde_json::from_str(&line)
            .unwrap_or_else(|e| panic!("stdout line is not JSON ({e}): {line}"))
    }

    /// The next response (a message without `method`), skipping notifications.
    fn next_response(&mut self) -> Value {
        loop {
            let message = self.next_message();
            if message.get("method").is_none() {
                return message;
            }
        }
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        let line = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        self.write(format!("{line}\n").as_bytes());
        let response = self.next_response();
        assert_eq!(response["id"], id, "{response}");
        response
    }

    fn initialize(&mut self) {
        let r = self.request(
            "initialize",
            json!({"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "oversized-tests", "version": "1"}}),
        );
        assert!(r.get("result").is_some(), "{r}");
        self.write(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n");
    }

    fn tools_listed(&mut self) -> usize {
        let r = self.request("tools/list", json!({}));
        r["result"]["tools"].as_array().expect("tools").len()
    }

    /// Closes stdin and waits for the exit; gives the exit code and the whole stderr.
    fn finish(mut self) -> (Option<i32>, String) {
        drop(self.stdin.take());
        let stderr = self.stderr.recv_timeout(DEADLINE).expect("stderr closes");
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            let _ = tx.send(self.child.wait().map(|s| s.code()));
        });
        let code = rx.recv_timeout(DEADLINE).expect("exit").expect("wait");
        (code, stderr)
    }
}

/// A request line of about `len` bytes with `id`, padded inside its params.
fn long_request(id: &Value, len: usize) -> Vec<u8> {
    let mut line = format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"nope","arguments":{{"pad":""#
    )
    .into_bytes();
    line.resize(len, b'x');
    line.extend_from_slice(b"\"}}}\n");
    line
}

/// The error a response carries, with its id.
fn error_of(response: &Value) -> (Value, i64) {
    let code = response["error"]["code"]
        .as_i64()
        .unwrap_or_else(|| panic!("not an error response: {response}"));
    (response["id"].clone(), code)
}

/// The shared checks: an oversized request with a number id, one with a string id, an
/// oversized line that is not JSON, an invalid UTF-8 line; each is answered and the server
/// answers a normal request after it.
fn oversized_lines_are_answered(server: &mut Raw, limit: usize) {
    server.initialize();
    let tools = server.tools_listed();
    assert!(tools > 0);

    server.write(&long_request(&json!(41), limit + 10));
    let r = server.next_response();
    assert_eq!(error_of(&r), (json!(41), -32600), "{r}");
    assert_eq!(r["error"]["data"]["maxLineBytes"], limit, "{r}");
    assert_eq!(server.tools_listed(), tools);

    server.write(&long_request(&json!("big-one"), 3 * limit));
    let r = server.next_response();
    assert_eq!(error_of(&r), (json!("big-one"), -32600), "{r}");
    assert_eq!(server.tools_listed(), tools);

    let mut garbage = vec![b'#'; limit + 1];
    garbage.push(b'\n');
    server.write(&garbage);
    let r = server.next_response();
    assert_eq!(error_of(&r), (Value::Null, -32700), "{r}");
    assert_eq!(server.tools_listed(), tools);

    server.write(b"{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"\xff\xfe\"}\n");
    let r = server.next_response();
    assert_eq!(error_of(&r), (Value::Null, -32700), "{r}");
    assert_eq!(server.tools_listed(), tools);
}

fn toolhub_command(dir: &Path) -> Command {
    let workspace = dir.join("ws");
    std::fs::create_dir_all(&workspace).expect("workspace");
    let mut cmd = Command::new(toolhub());
    cmd.arg("serve")
        .env_clear()
        .env("TOOLHUB_WORKSPACE_ROOT", &workspace)
        .env("TOOLHUB_STATE_ROOT", dir.join("state"))
        .env("HOME", dir);
    cmd
}

const TERMINAL_POLICY: &str = r#"
audit_log = "state/audit.jsonl"

[terminal]
jail_root = "jail"

[terminal.allowlist]
commands = ["echo"]
"#;

fn safe_mcp_command(dir: &Path) -> Command {
    std::fs::create_dir_all(dir.join("jail")).expect("jail");
    std::fs::create_dir_all(dir.join("state")).expect("state");
    let policy = dir.join("policy.toml");
    std::fs::write(&policy, TERMINAL_POLICY).expect("policy");
    let mut cmd = Command::new(safe_mcp());
    cmd.arg("terminal")
        .arg("--config")
        .arg(policy)
        .env_remove("SAFE_MCP_POLICY_FILE")
        .env_remove("SAFE_MCP_JAIL_ROOT")
        .env_remove("SAFE_MCP_AUDIT_LOG")
        .env_remove("SAFE_MCP_AUDIT_FAIL_MODE");
    cmd
}

fn hub_command(sandbox: &Sandbox) -> Command {
    let config = sandbox
        .config("[servers.a]\nprefix = \"a\"\ncommand = FIXTURE\nargs = [\"fixture-server\"]\n");
    let mut cmd = Command::new(HUB);
    cmd.arg(config)
        .env_remove("MCP_HUB_CONFIG")
        .env_remove("MCP_HUB_STARTUP_TIMEOUT_MS");
    cmd
}

#[test]
fn toolhub_answers_oversized_and_undecodable_lines() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut cmd = toolhub_command(dir.path());
    let mut server = Raw::spawn(cmd.env("MCP_MAX_LINE_BYTES", SMALL.to_string()));
    oversized_lines_are_answered(&mut server, SMALL);
    let (code, _) = server.finish();
    assert_eq!(code, Some(0));
}

#[test]
fn safe_mcp_terminal_answers_oversized_and_undecodable_lines() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut cmd = safe_mcp_command(dir.path());
    let mut server = Raw::spawn(cmd.env("MCP_MAX_LINE_BYTES", SMALL.to_string()));
    oversized_lines_are_answered(&mut server, SMALL);
    let (code, _) = server.finish();
    assert_eq!(code, Some(0));
}

#[test]
fn the_hub_answers_oversized_and_undecodable_lines() {
    let sandbox = Sandbox::new();
    let mut cmd = hub_command(&sandbox);
    let mut server = Raw::spawn(cmd.env("MCP_MAX_LINE_BYTES", SMALL.to_string()));
    oversized_lines_are_answered(&mut server, SMALL);
    let (code, _) = server.finish();
    assert_eq!(code, Some(0));
}

#[test]
fn the_default_limit_is_16_mib() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut cmd = toolhub_command(dir.path());
    let mut server = Raw::spawn(&mut cmd);
    server.initialize();
    let limit = 16 * 1024 * 1024;
    // One byte over: refused. Exactly the limit (newline not counted): served, and the
    // unknown tool it names is what is wrong with it.
    let mut over = long_request(&json!(1), limit - 3);
    assert_eq!(over.len(), limit + 2);
    server.write(&over);
    let r = server.next_response();
    assert_eq!(error_of(&r), (json!(1), -32600), "{r}");
    over.truncate(limit - 4);
    over.extend_from_slice(b"\"}}}\n");
    assert_eq!(over.len(), limit + 1);
    server.write(&over);
    let r = server.next_response();
    assert_eq!(r["id"], 1, "{r}");
    assert_ne!(r["error"]["code"], -32600, "{r}");
    assert!(server.tools_listed() > 0);
}

#[test]
fn an_upstream_result_over_the_limit_fails_the_call_and_the_hub_serves_on() {
    let sandbox = Sandbox::new();
    let mut cmd = hub_command(&sandbox);
    let mut hub = Raw::spawn(cmd.env("MCP_MAX_LINE_BYTES", SMALL.to_string()));
    hub.initialize();
    // The request fits; the echo's result carries the text twice and does not.
    let text = "y".repeat(SMALL * 2 / 3);
    let r = hub.request(
        "tools/call",
        json!({"name": "a.echo", "arguments": {"text": text}}),
    );
    let (_, code) = error_of(&r);
    assert_eq!(code, -32603, "{r}");
    let message = r["error"]["message"].as_str().expect("message");
    assert!(
        message.contains(&format!("longer than {SMALL} bytes")),
        "{message}"
    );
    let r = hub.request(
        "tools/call",
        json!({"name": "a.echo", "arguments": {"text": "small"}}),
    );
    assert_eq!(r["result"]["structuredContent"]["text"], "small", "{r}");
    let (code, _) = hub.finish();
    assert_eq!(code, Some(0));
}

#[test]
fn a_bad_limit_is_a_configuration_error() {
    for bad in ["lots", "100", "0x10000", "99999999999"] {
        let dir = tempfile::tempdir().expect("tempdir");
        for (name, mut cmd) in [
            ("mcp-toolhub", toolhub_command(dir.path())),
            ("safe-mcp", safe_mcp_command(dir.path())),
        ] {
            let out = cmd
                .env("MCP_MAX_LINE_BYTES", bad)
                .stdin(Stdio::null())
                .output()
                .expect("run");
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{name} {bad}: {stderr}");
            assert!(out.stdout.is_empty(), "{name} {bad}");
            assert_eq!(stderr.lines().count(), 1, "{name} {bad}: {stderr}");
            assert!(
                stderr.contains("invalid MCP_MAX_LINE_BYTES"),
                "{name} {bad}: {stderr}"
            );
        }
        let sandbox = Sandbox::new();
        let out = hub_command(&sandbox)
            .env("MCP_MAX_LINE_BYTES", bad)
            .env_remove("RUST_LOG")
            .stdin(Stdio::null())
            .output()
            .expect("run");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "mcp-hub {bad}: {stderr}");
        assert!(out.stdout.is_empty(), "mcp-hub {bad}");
        assert_eq!(stderr.lines().count(), 1, "mcp-hub {bad}: {stderr}");
        assert!(
            stderr.contains("invalid MCP_MAX_LINE_BYTES"),
            "mcp-hub {bad}: {stderr}"
        );
    }
}
