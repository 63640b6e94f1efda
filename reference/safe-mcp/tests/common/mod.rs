//! Drives the real `safe-mcp` binary over pipes. Every wait is a channel receive with a
//! deadline, never a sleep used as synchronisation.

#![allow(dead_code)]

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

use serde_json::{Value, json};

pub const BIN: &str = env!("CARGO_BIN_EXE_safe-mcp");
pub const DEADLINE: Duration = Duration::from_secs(15);

/// A temporary tree: `jail/` (with `notes.txt`), `state/`, and `policy.toml` written by
/// [`Sandbox::policy`].
pub struct Sandbox {
    pub dir: tempfile::TempDir,
}

/// A policy body with `jail_root` and `audit_log` pointing into the sandbox.
pub const BASE_POLICY: &str = r#"
audit_log = "state/audit.jsonl"

[terminal]
jail_root = "jail"

[terminal.limits]
timeout_seconds = 10
max_output_bytes = 4096

[terminal.allowlist]
commands = ["cat", "echo", "ls", "env", "touch", "git", "false"]

[terminal.denylist]
commands = ["rm", "chmod"]

[[terminal.rules]]
command = "git"
deny_args = ["push --force", "push -f"]
reason = "force-push rewrites shared history"
"#;

impl Sandbox {
    pub fn new() -> Self {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir(dir.path().join("jail")).expect("jail");
        std::fs::create_dir(dir.path().join("state")).expect("state");
        std::fs::write(dir.path().join("jail/notes.txt"), "demo file\n").expect("notes");
        Sandbox { dir }
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// Writes `policy.toml` and returns its path.
    pub fn policy(&self, body: &str) -> PathBuf {
        let p = self.path("policy.toml");
        std::fs::write(&p, body).expect("write policy");
        p
    }

    /// The audit records written so far.
    pub fn audit(&self) -> Vec<Value> {
        std::fs::read_to_string(self.path("state/audit.jsonl"))
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str(l).expect("audit line is JSON"))
            .collect()
    }
}

/// A running `safe-mcp terminal`.
pub struct Server {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    next_id: u64,
}

impl Server {
    /// Starts `safe-mcp terminal --config POLICY` with `env` added, and initializes.
    pub fn start(policy: &Path, env: &[(&str, &str)]) -> Server {
        Server::start_mode("terminal", policy, env)
    }

    /// Starts `safe-mcp files --config POLICY` and initializes.
    pub fn start_files(policy: &Path) -> Server {
        Server::start_mode("files", policy, &[])
    }

    fn start_mode(mode: &str, policy: &Path, env: &[(&str, &str)]) -> Server {
        let mut s = Server::spawn(mode, policy, env);
        let init = s.request(
            "initialize",
            json!({"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "safe-mcp-tests", "version": "1"}}),
        );
        assert!(init.get("result").is_some(), "{init}");
        s.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        s
    }

    /// Starts `safe-mcp MODE --config POLICY` with `env` added; sends nothing.
    pub fn spawn(mode: &str, policy: &Path, env: &[(&str, &str)]) -> Server {
        let mut child = Command::new(BIN)
            .arg(mode)
            .arg("--config")
            .arg(policy)
            .env_remove("SAFE_MCP_POLICY_FILE")
            .env_remove("SAFE_MCP_JAIL_ROOT")
            .env_remove("SAFE_MCP_AUDIT_LOG")
            .env_remove("SAFE_MCP_AUDIT_FAIL_MODE")
            .env_remove("SAFE_MCP_WORKSPACE_ROOT")
            .env_remove("SAFE_MCP_FILES_JOURNAL")
            .envs(env.iter().copied())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn safe-mcp");
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
        let stdin = child.stdin.take();
        Server {
            child,
            stdin,
            lines,
            next_id: 0,
        }
    }

    /// Writes one message line.
    pub fn send(&mut self, message: &Value) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        writeln!(stdin, "{message}").expect("write");
        stdin.flush().expect("flush");
    }

    /// Sends a request and returns its response (other messages are skipped).
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = json!(self.next_id);
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let line = self
                .lines
                .recv_timeout(DEADLINE)
                .expect("no response before the deadline");
            let message: Value = serde_json::from_str(&line).expect("stdout is JSON");
            if message.get("id") == Some(&id) {
                return message;
            }
        }
    }

    /// Calls `tool` and returns its structured `OperationResult`.
    pub fn call(&mut self, tool: &str, arguments: Value) -> Value {
        self.call_result(tool, arguments)["structuredContent"].clone()
    }

    /// Calls `tool` and returns the whole `CallToolResult` (`isError`, `content`,
    /// `structuredContent`).
    pub fn call_result(&mut self, tool: &str, arguments: Value) -> Value {
        let r = self.request("tools/call", json!({"name": tool, "arguments": arguments}));
        r["result"].clone()
    }

    /// `run_command` with `command`.
    pub fn run(&mut self, command: &str) -> Value {
        self.call("run_command", json!({ "command": command }))
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        drop(self.stdin.take());
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
