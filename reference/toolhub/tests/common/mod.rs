//! A raw line-level MCP client over the real `mcp-toolhub serve` binary, plus helpers for the
//! admin binary. Every wait is a deadline on a channel (never a sleep).

#![allow(dead_code)]

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

pub const SERVER: &str = env!("CARGO_BIN_EXE_mcp-toolhub");
pub const ADMIN: &str = env!("CARGO_BIN_EXE_mcp-toolhub-admin");
pub const DEADLINE: Duration = Duration::from_secs(10);

/// A workspace and a state root in a fresh temporary directory.
pub struct Sandbox {
    pub dir: tempfile::TempDir,
    pub workspace: PathBuf,
    pub state: PathBuf,
}

impl Sandbox {
    pub fn new() -> Sandbox {
        let dir = tempfile::tempdir().expect("tempdir");
        let workspace = dir.path().join("ws");
        let state = dir.path().join("state");
        std::fs::create_dir_all(&workspace).expect("mkdir ws");
        Sandbox {
            dir,
            workspace,
            state,
        }
    }

    pub fn write(&self, rel: &str, content: &str) {
        let p = self.workspace.join(rel);
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent).expect("mkdir");
        }
        std::fs::write(p, content).expect("write");
    }

    pub fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.workspace.join(rel)).expect("read")
    }

    /// Environment shared by the server and the admin CLI.
    pub fn env(&self) -> Vec<(String, String)> {
        vec![
            (
                "TOOLHUB_WORKSPACE_ROOT".into(),
                self.workspace.display().to_string(),
            ),
            (
                "TOOLHUB_STATE_ROOT".into(),
                self.state.display().to_string(),
            ),
            ("HOME".into(), self.dir.path().display().to_string()),
        ]
    }

    pub fn server(&self) -> Server {
        Server::spawn(&self.env())
    }

    /// Runs the admin CLI with `args` and `stdin`.
    pub fn admin(&self, args: &[&str], stdin: &str) -> assert_cmd::assert::Assert {
        let mut cmd = assert_cmd::Command::new(ADMIN);
        cmd.env_clear()
            .envs(self.env())
            .args(args)
            .write_stdin(stdin);
        cmd.timeout(DEADLINE).assert()
    }
}

/// A running server with a reader thread delivering stdout lines.
pub struct Server {
    child: Option<Child>,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    next_id: u64,
    /// Every stdout line seen so far.
    pub seen: Vec<String>,
}

impl Server {
    pub fn spawn(env: &[(String, String)]) -> Server {
        let mut child = Command::new(SERVER)
            .arg("serve")
            .env_clear()
            .envs(env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn mcp-toolhub");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, rx) = channel();
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
            child: Some(child),
            stdin,
            lines: rx,
            next_id: 1000,
            seen: Vec::new(),
        }
    }

    pub fn send(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(line.as_bytes()).expect("write");
        stdin.write_all(b"\n").expect("write");
        stdin.flush().expect("flush");
    }

    /// The next stdout line as JSON, within the deadline.
    pub fn next_message(&mut self) -> Value {
        let line = self
            .lines
            .recv_timeout(DEADLINE)
            .expect("no message from the server before the deadline");
        self.seen.push(line.clone());
        serde_json::from_str(&line)
            .unwrap_or_else(|e| panic!("stdout line is not JSON ({e}): {line}"))
    }

    /// Sends a request and returns the response with its id (other messages are kept in
    /// `seen` and otherwise ignored).
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        self.send(
            &json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string(),
        );
        self.response(&json!(id))
    }

    pub fn response(&mut self, id: &Value) -> Value {
        let start = Instant::now();
        loop {
            assert!(start.elapsed() < DEADLINE, "no response to {id}");
            let msg = self.next_message();
            if msg.get("id") == Some(id) && msg.get("method").is_none() {
                return msg;
            }
        }
    }

    pub fn initialize(&mut self) -> Value {
        let r = self.request(
            "initialize",
            json!({"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "toolhub-tests", "version": "1"}}),
        );
        self.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        r
    }

    /// `tools/call`; returns the `result` (panics on a JSON-RPC error).
    pub fn call(&mut self, name: &str, args: Value) -> Value {
        let r = self.request("tools/call", json!({"name": name, "arguments": args}));
        match r.get("result") {
            Some(result) => result.clone(),
            None => panic!("tools/call {name} failed: {r}"),
        }
    }

    /// `tools/call` returning `structuredContent`.
    pub fn structured(&mut self, name: &str, args: Value) -> Value {
        let result = self.call(name, args);
        assert_ne!(
            result["isError"],
            json!(true),
            "{name} gave a tool error: {result}"
        );
        result["structuredContent"].clone()
    }

    /// Closes stdin and waits (deadline) for the exit; returns the status and the time taken.
    pub fn close(mut self) -> (ExitStatus, Duration) {
        drop(self.stdin.take());
        let start = Instant::now();
        let (tx, rx) = channel();
        let mut child = self.child.take().expect("child");
        std::thread::spawn(move || {
            let _ = tx.send(child.wait());
        });
        match rx.recv_timeout(DEADLINE) {
            Ok(status) => (status.expect("wait"), start.elapsed()),
            Err(RecvTimeoutError::Timeout) => panic!("server did not exit after stdin EOF"),
            Err(e) => panic!("wait failed: {e}"),
        }
    }
}

impl Server {
    /// SIGKILLs the server now (no chance to clean up), reaps it, and returns every stdout line
    /// it wrote that was not read yet.
    pub fn kill_now(mut self) -> Vec<String> {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
        drop(self.stdin.take());
        // The reader thread ends at EOF, which the kill guarantees.
        let mut rest = Vec::new();
        while let Ok(line) = self.lines.recv_timeout(DEADLINE) {
            rest.push(line);
        }
        rest
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}
