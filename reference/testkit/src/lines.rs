//! A JSON-RPC line client over a real server process.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// How long any single wait of this client may take.
pub const DEADLINE: Duration = Duration::from_secs(15);

/// A spawned server: messages written as lines on its stdin, its stdout lines delivered by a
/// reader thread, its stderr collected (when asked) until it closes.
pub struct LineClient {
    /// The server process.
    pub child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    stderr: Option<JoinHandle<String>>,
}

impl LineClient {
    /// Spawns `cmd` with piped stdin/stdout; stderr is collected if `capture_stderr`, else
    /// discarded.
    pub fn spawn(mut cmd: Command, capture_stderr: bool) -> LineClient {
        crate::procs::default_signal_dispositions(&mut cmd);
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(if capture_stderr {
                Stdio::piped()
            } else {
                Stdio::null()
            })
            .spawn()
            .expect("spawn the server");
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
        let stderr = child.stderr.take().map(|mut err| {
            std::thread::spawn(move || {
                let mut text = String::new();
                let _ = err.read_to_string(&mut text);
                text
            })
        });
        let stdin = child.stdin.take();
        LineClient {
            child,
            stdin,
            lines,
            stderr,
        }
    }

    /// Writes one message line.
    pub fn send(&mut self, message: &Value) {
        let stdin = self.stdin.as_mut().expect("stdin still open");
        writeln!(stdin, "{message}").expect("write a line");
        stdin.flush().expect("flush");
    }

    /// The next stdout line within [`DEADLINE`], or `None`.
    pub fn next_line(&mut self) -> Option<String> {
        self.lines.recv_timeout(DEADLINE).ok()
    }

    /// Reads stdout lines until the response with `id` (other lines are skipped).
    pub fn response(&mut self, id: &Value) -> Value {
        let deadline = Instant::now() + DEADLINE;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = self
                .lines
                .recv_timeout(left)
                .unwrap_or_else(|_| panic!("no response to {id} within {DEADLINE:?}"));
            if let Ok(m) = serde_json::from_str::<Value>(&line)
                && m.get("id") == Some(id)
            {
                return m;
            }
        }
    }

    /// Sends a request and returns its response.
    pub fn request(&mut self, id: u64, method: &str, params: Value) -> Value {
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        self.response(&json!(id))
    }

    /// The legacy handshake (`initialize` with id 0, then `notifications/initialized`).
    pub fn initialize(&mut self, client: &str) {
        let r = self.request(
            0,
            "initialize",
            json!({"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": client, "version": "1"}}),
        );
        assert!(r.get("result").is_some(), "{r}");
        self.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    }

    /// Closes the server's stdin (end of the session).
    pub fn close_stdin(&mut self) {
        drop(self.stdin.take());
    }

    /// Waits (bounded by `within`) for the server to exit.
    pub fn wait_exit(&mut self, within: Duration) -> Option<ExitStatus> {
        let deadline = Instant::now() + within;
        let mut status = None;
        crate::procs::wait_until(deadline, || {
            status = self.child.try_wait().ok().flatten();
            status.is_some()
        });
        status
    }

    /// Everything the server wrote on stderr (waits for it to close its stderr).
    pub fn stderr_text(&mut self) -> String {
        self.stderr
            .take()
            .map(|h| h.join().expect("stderr reader"))
            .unwrap_or_default()
    }
}

/// Runs `cmd` at `RUST_LOG=trace`, sends `requests`, waits until each one with an `id` is
/// answered, closes stdin, waits for the exit and returns (stdout lines, stderr): what a
/// log-redaction test inspects.
pub fn run_at_trace(mut cmd: Command, requests: &[Value]) -> (String, String) {
    cmd.env("RUST_LOG", "trace");
    let mut client = LineClient::spawn(cmd, true);
    for r in requests {
        client.send(r);
    }
    // Answers may come in any order: read until every id has been answered.
    let mut pending: Vec<&Value> = requests.iter().filter_map(|r| r.get("id")).collect();
    let mut out = String::new();
    while !pending.is_empty() {
        let line = client
            .next_line()
            .unwrap_or_else(|| panic!("no answer to {pending:?} within {DEADLINE:?}: {out}"));
        if let Ok(m) = serde_json::from_str::<Value>(&line) {
            pending.retain(|id| m.get("id") != Some(*id));
        }
        out.push_str(&line);
        out.push('\n');
    }
    client.close_stdin();
    assert!(
        client.wait_exit(DEADLINE).is_some(),
        "the server exits on stdin EOF"
    );
    (out, client.stderr_text())
}
