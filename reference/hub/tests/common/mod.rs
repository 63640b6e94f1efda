//! Drives the real `mcp-hub` binary over pipes, with the suite's fixture server as upstream.
//! Every wait is a condition with a deadline (a channel or a polled `/proc`), never a sleep
//! used as synchronisation.

#![allow(dead_code)]

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use mcp_testkit::bins::workspace_bin;
use serde_json::{Value, json};

pub const HUB: &str = env!("CARGO_BIN_EXE_mcp-hub");
pub const DEADLINE: Duration = Duration::from_secs(10);

/// The `mcp-conformance` binary (its `fixture-server` is the upstream of these tests).
pub fn conformance() -> &'static Path {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| workspace_bin("mcp-conformance", HUB))
}

/// The `mcp-toolhub` binary, for the aggregation example.
pub fn toolhub() -> &'static Path {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| workspace_bin("mcp-toolhub", HUB))
}

/// The `safe-mcp` binary (`safe-mcp terminal`, `safe-mcp files`), for the aggregation example.
pub fn safe_mcp() -> &'static Path {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| workspace_bin("safe-mcp", HUB))
}

/// A temporary directory holding a hub configuration.
pub struct Sandbox {
    pub dir: tempfile::TempDir,
}

impl Sandbox {
    pub fn new() -> Self {
        Self {
            dir: tempfile::tempdir().expect("tempdir"),
        }
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// Writes `hub.toml` with `body`, where `FIXTURE` stands for the fixture server command.
    pub fn config(&self, body: &str) -> PathBuf {
        let command = toml_string(&conformance().display().to_string());
        let text = body.replace("FIXTURE", &command);
        let path = self.path("hub.toml");
        std::fs::write(&path, text).expect("write config");
        path
    }
}

/// A TOML basic string.
pub fn toml_string(s: &str) -> String {
    serde_json::to_string(s).expect("string")
}

/// A running hub: JSON lines from stdout on a channel, stderr collected.
pub struct Hub {
    pub child: Option<Child>,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    stderr: Arc<Mutex<Vec<String>>>,
    stderr_lines: Receiver<String>,
    next_id: u64,
}

impl Hub {
    /// Starts `mcp-hub` with `args` and extra `env`.
    pub fn spawn(args: &[&Path], env: &[(&str, &str)]) -> Hub {
        let mut cmd = Command::new(HUB);
        cmd.args(args)
            .env_remove("MCP_HUB_CONFIG")
            .env_remove("RUST_LOG")
            .env_remove("MCP_HUB_STARTUP_TIMEOUT_MS")
            .envs(env.iter().copied())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = cmd.spawn().expect("spawn mcp-hub");
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
        let stderr_pipe = child.stderr.take().expect("stderr");
        let stderr = Arc::new(Mutex::new(Vec::new()));
        let (etx, stderr_lines) = channel();
        let collected = stderr.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr_pipe).lines() {
                let Ok(line) = line else { break };
                collected.lock().expect("lock").push(line.clone());
                let _ = etx.send(line);
            }
        });
        let stdin = child.stdin.take();
        Hub {
            child: Some(child),
            stdin,
            lines,
            stderr,
            stderr_lines,
            next_id: 0,
        }
    }

    pub fn pid(&self) -> i32 {
        self.child.as_ref().map(|c| c.id() as i32).expect("running")
    }

    pub fn send(&mut self, message: &Value) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        writeln!(stdin, "{message}").expect("write");
        stdin.flush().expect("flush");
    }

    /// Writes `line` as it is (and a newline): for bytes a `Value` would not keep.
    pub fn send_line(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        writeln!(stdin, "{line}").expect("write");
        stdin.flush().expect("flush");
    }

    /// The next stdout message within the deadline.
    pub fn next_message(&mut self) -> Value {
        let line = self
            .lines
            .recv_timeout(DEADLINE)
            .expect("no message from the hub before the deadline");
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("stdout is not JSON ({e}): {line}"))
    }

    /// The next stdout line, or `None` once stdout is closed (deadline).
    pub fn next_message_or_none(&mut self) -> Option<String> {
        self.lines.recv_timeout(DEADLINE).ok()
    }

    /// Sends a request and waits for its response (other messages are skipped).
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = json!(self.next_id);
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        let start = Instant::now();
        loop {
            assert!(start.elapsed() < DEADLINE, "no response to {id}");
            let message = self.next_message();
            if message.get("id") == Some(&id) && message.get("method").is_none() {
                return message;
            }
        }
    }

    pub fn initialize(&mut self) -> Value {
        let answer = self.request(
            "initialize",
            json!({"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "hub-tests", "version": "1"}}),
        );
        self.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        answer
    }

    pub fn tool_names(&mut self) -> Vec<String> {
        let list = self.request("tools/list", json!({}));
        list["result"]["tools"]
            .as_array()
            .expect("tools")
            .iter()
            .map(|t| t["name"].as_str().expect("name").to_owned())
            .collect()
    }

    /// Waits until a stderr line contains every needle; returns it.
    pub fn wait_stderr(&self, needles: &[&str]) -> String {
        let start = Instant::now();
        let matches = |line: &str| needles.iter().all(|n| line.contains(n));
        if let Some(line) = self
            .stderr
            .lock()
            .expect("lock")
            .iter()
            .find(|l| matches(l))
        {
            return line.clone();
        }
        loop {
            let left = DEADLINE.saturating_sub(start.elapsed());
            match self.stderr_lines.recv_timeout(left) {
                Ok(line) if matches(&line) => return line,
                Ok(_) => {}
                Err(_) => panic!(
                    "no stderr line with {needles:?}; stderr:\n{}",
                    self.stderr_text()
                ),
            }
        }
    }

    pub fn stderr_text(&self) -> String {
        self.stderr.lock().expect("lock").join("\n")
    }

    pub fn close_stdin(&mut self) {
        drop(self.stdin.take());
    }

    /// Waits (deadline) for the hub to exit.
    pub fn wait_exit(&mut self) -> ExitStatus {
        let mut child = self.child.take().expect("running");
        let start = Instant::now();
        loop {
            if let Some(status) = child.try_wait().expect("try_wait") {
                return status;
            }
            assert!(start.elapsed() < DEADLINE, "the hub did not exit");
            std::thread::sleep(Duration::from_millis(5));
        }
    }
}

impl Drop for Hub {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// A process as identified in `/proc`: pid and start time (guards against pid reuse).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Proc {
    pub pid: i32,
    pub start: u64,
}

/// (ppid, start time, state) of `pid`, from `/proc/<pid>/stat`.
fn stat(pid: i32) -> Option<(i32, u64, char)> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name is in parentheses and may contain spaces: split after the last ')'.
    let rest = &text[text.rfind(')')? + 2..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let state = fields.first()?.chars().next()?;
    let ppid = fields.get(1)?.parse().ok()?;
    let start = fields.get(19)?.parse().ok()?;
    Some((ppid, start, state))
}

/// The live children of `parent`.
pub fn children(parent: i32) -> Vec<Proc> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir("/proc").expect("/proc").flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<i32>().ok())
        else {
            continue;
        };
        if let Some((ppid, start, state)) = stat(pid)
            && ppid == parent
            && state != 'Z'
        {
            out.push(Proc { pid, start });
        }
    }
    out
}

/// Whether `proc` still runs (a zombie or a reused pid does not count).
pub fn alive(proc: Proc) -> bool {
    stat(proc.pid).is_some_and(|(_, start, state)| start == proc.start && state != 'Z')
}

/// Waits (deadline) until every one of `procs` is gone.
pub fn wait_gone(procs: &[Proc]) {
    let start = Instant::now();
    while procs.iter().any(|p| alive(*p)) {
        assert!(
            start.elapsed() < DEADLINE,
            "upstream processes left behind: {:?}",
            procs.iter().filter(|p| alive(**p)).collect::<Vec<_>>()
        );
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// A configuration of `n` fixture upstreams with distinct prefixes `u0`, `u1`, ...
pub fn fixtures(n: usize, extra_args: &str) -> String {
    (0..n)
        .map(|i| {
            format!(
                "[servers.u{i}]\nprefix = \"u{i}\"\ncommand = FIXTURE\nargs = [\"fixture-server\"{extra_args}]\n\n"
            )
        })
        .collect()
}

/// The messages a fixture upstream recorded (`--record`) so far, one JSON value a line.
pub fn recorded(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

/// Waits until the record at `path` has a message satisfying `pred`; returns it.
pub fn wait_recorded(path: &Path, pred: impl Fn(&Value) -> bool) -> Value {
    let start = Instant::now();
    loop {
        if let Some(found) = recorded(path).into_iter().find(|m| pred(m)) {
            return found;
        }
        assert!(
            start.elapsed() < DEADLINE,
            "not recorded in {}: {:?}",
            path.display(),
            recorded(path)
        );
        std::thread::sleep(Duration::from_millis(5));
    }
}
