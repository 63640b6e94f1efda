//! A raw, line-level JSON-RPC client over a child's stdin/stdout.
//!
//! The suite needs byte-exact control (malformed lines, notifications before `initialize`,
//! requests without a progress token), so it speaks the wire format itself instead of
//! using an SDK client. Every line the server writes is kept: responses to our requests are
//! routed by id, everything else waits in a queue for `expect_message`, and lines that are
//! not JSON-RPC are recorded as protocol violations. Every object the server writes is held
//! to JSON-RPC 2.0 (`check.rs`); what breaks it is kept ([`Session::violations`]), and a
//! wait for an answer that came malformed, or with an id of another type, ends with that.

mod asked;
mod check;
mod inbox;
mod reader;

pub use check::Violation;
pub use inbox::Findings;

use crate::generation::{ModernMeta, drop_null_protocol_keys};
use crate::process::{Invocation, kill_group};
use check::{id_key, ids_in_line, progress_tokens_in_line};
use inbox::{Inbox, Shared, TRANSCRIPT_LINE_CHARS};
use nix::sys::signal::Signal;
use reader::{read_stderr, read_stdout};
use serde_json::{Value, json};
use std::process::ExitStatus;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::AsyncWriteExt;
use tokio::process::ChildStdin;
use tokio::sync::Notify;
use tokio::time::Instant;

/// How long a broken pipe on stdin waits for stdout to close before it is reported as such.
const EXIT_AFTER_EPIPE: Duration = Duration::from_secs(2);

/// Why a session operation failed.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    #[error("cannot start the server ({command}): {source}")]
    Spawn {
        command: String,
        source: std::io::Error,
    },
    #[error("cannot write to the server's stdin: {0}")]
    Write(std::io::Error),
    #[error("the server's stdin is closed")]
    StdinClosed,
    #[error("no answer within {after:?}{}", meanwhile_text(.meanwhile))]
    Timeout {
        after: Duration,
        /// What the server sent meanwhile that broke JSON-RPC 2.0 (none answered the request).
        meanwhile: Vec<Violation>,
    },
    /// The answer came, and breaks JSON-RPC 2.0: no correct answer can undo that, so the
    /// wait ends here.
    #[error("{}", .0.report())]
    Violation(Box<Violation>),
    #[error("the server closed its stdout (exited?) before answering")]
    Exited,
}

/// A running server and the client side of its stdio.
pub struct Session {
    pid: u32,
    command: String,
    stdin: Arc<tokio::sync::Mutex<Option<ChildStdin>>>,
    shared: Arc<Shared>,
    next_id: AtomicI64,
    /// Set while the session speaks the modern generation: the `_meta` every request gets.
    modern: Mutex<Option<ModernMeta>>,
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session").field("pid", &self.pid).finish()
    }
}

impl Session {
    /// Starts the server. It runs in its own process group, killed when the session drops.
    pub fn spawn(inv: &Invocation) -> Result<Session, SessionError> {
        let mut child = inv
            .command()
            .spawn()
            .map_err(|source| SessionError::Spawn {
                command: inv.display(),
                source,
            })?;
        let pid = child.id().unwrap_or(0);
        let shared = Arc::new(Shared {
            inbox: Mutex::new(Inbox::default()),
            changed: Notify::new(),
        });
        let stdin = Arc::new(tokio::sync::Mutex::new(child.stdin.take()));
        if let Some(out) = child.stdout.take() {
            tokio::spawn(read_stdout(out, shared.clone(), stdin.clone()));
        }
        if let Some(err) = child.stderr.take() {
            tokio::spawn(read_stderr(err, shared.clone()));
        }
        let waiter = shared.clone();
        tokio::spawn(async move {
            let status = child.wait().await.ok();
            waiter.lock().exit = status;
            waiter.changed.notify_waiters();
        });
        Ok(Session {
            pid,
            command: inv.display(),
            stdin,
            shared,
            next_id: AtomicI64::new(1),
            modern: Mutex::new(None),
        })
    }

    /// The server's process id (also its process group id).
    pub fn pid(&self) -> u32 {
        self.pid
    }

    /// Writes bytes to the server's stdin as they are.
    pub async fn send_raw(&self, bytes: &[u8]) -> Result<(), SessionError> {
        let mut guard = self.stdin.lock().await;
        let w = guard.as_mut().ok_or(SessionError::StdinClosed)?;
        // Noted before it is written: once written, the answer may be read (and noted) before
        // this task runs again, and the transcript must show the request first.
        let text = String::from_utf8_lossy(bytes);
        {
            let mut inbox = self.shared.lock();
            inbox.note("->", text.trim_end_matches('\n'));
            // The ids we write, so their answers are recognised (raw lines included).
            for line in bytes.split(|b| *b == b'\n') {
                if let Ok(written) = serde_json::from_slice::<Value>(line) {
                    inbox.declared.wrote(&written);
                }
                inbox.sent.extend(ids_in_line(line));
                inbox
                    .progress_requests
                    .extend(progress_tokens_in_line(line));
            }
        }
        let written = match w.write_all(bytes).await {
            Ok(()) => w.flush().await,
            Err(e) => Err(e),
        };
        drop(guard);
        if let Err(e) = written {
            return Err(self.write_failure(e).await);
        }
        Ok(())
    }

    /// Explains a failed write. A broken pipe almost always means the server exited; which
    /// of the two the suite notices first (EPIPE on stdin or EOF on stdout) is a race, so a
    /// broken pipe waits briefly for stdout to close and then reports the exit, the same
    /// failure a reader would have seen.
    async fn write_failure(&self, error: std::io::Error) -> SessionError {
        if error.kind() != std::io::ErrorKind::BrokenPipe {
            return SessionError::Write(error);
        }
        let closed = self
            .wait_for(EXIT_AFTER_EPIPE, |inbox| inbox.stdout_closed.then_some(()))
            .await;
        match closed {
            Ok(()) => {
                self.wait_streams_closed(EXIT_AFTER_EPIPE).await;
                SessionError::Exited
            }
            Err(_) => SessionError::Write(error),
        }
    }

    /// Sends one JSON-RPC message as a line.
    pub async fn send_message(&self, message: &Value) -> Result<(), SessionError> {
        let mut line = message.to_string();
        line.push('\n');
        self.send_raw(line.as_bytes()).await
    }

    /// Switches the session to the modern generation (`Some`: every request but
    /// `initialize` carries this `_meta`) or back to the legacy one (`None`).
    pub fn set_modern(&self, meta: Option<ModernMeta>) {
        *self.modern.lock().unwrap_or_else(|p| p.into_inner()) = meta;
    }

    /// The `_meta` the session stamps, when it speaks the modern generation.
    pub fn modern(&self) -> Option<ModernMeta> {
        self.modern
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// Sends a request with a fresh numeric id and returns that id; the response is routed
    /// to [`Session::response`]. In the modern generation the request's `_meta` gets the
    /// protocol keys the scenario did not set itself (see [`ModernMeta::stamp`]).
    pub async fn send_request(
        &self,
        method: &str,
        params: Option<Value>,
    ) -> Result<Value, SessionError> {
        let params = match (method, self.modern()) {
            ("initialize", _) => params,
            (_, Some(meta)) => Some(meta.stamp(params)),
            (_, None) => drop_null_protocol_keys(params),
        };
        let id = json!(self.next_id.fetch_add(1, Ordering::Relaxed));
        {
            let mut inbox = self.shared.lock();
            inbox.our_ids.insert(id_key(&id));
            inbox.sent.insert(id_key(&id));
        }
        let mut msg = json!({"jsonrpc": "2.0", "id": id, "method": method});
        if let Some(p) = params {
            msg["params"] = p;
        }
        self.send_message(&msg).await?;
        Ok(id)
    }

    /// Sends a notification.
    pub async fn notify(&self, method: &str, params: Option<Value>) -> Result<(), SessionError> {
        let mut msg = json!({"jsonrpc": "2.0", "method": method});
        if let Some(p) = params {
            msg["params"] = p;
        }
        self.send_message(&msg).await
    }

    /// Waits for the response to one of our requests. An answer that breaks JSON-RPC 2.0
    /// (result and error together, an id of another JSON type...) ends the wait with
    /// [`SessionError::Violation`]: it is a failure whatever follows, so waiting on could only
    /// hide it behind a timeout. A timeout names what the server sent meanwhile that broke
    /// JSON-RPC 2.0.
    pub async fn response(&self, id: &Value, timeout: Duration) -> Result<Value, SessionError> {
        let key = id_key(id);
        let answer = self
            .wait_for(timeout, |inbox| {
                if let Some(r) = inbox.responses.remove(&key) {
                    return Some(Ok(r));
                }
                if let Some(v) = inbox.near_misses.remove(&key) {
                    return Some(Err(SessionError::Violation(Box::new(v))));
                }
                if inbox.stdout_closed {
                    return Some(Err(SessionError::Exited));
                }
                None
            })
            .await
            .map_err(|e| match e {
                SessionError::Timeout { after, .. } => SessionError::Timeout {
                    after,
                    meanwhile: self.violations(),
                },
                other => other,
            })?;
        if matches!(answer, Err(SessionError::Exited)) {
            // Let the failure report carry the last words the server wrote on stderr.
            self.wait_streams_closed(EXIT_AFTER_EPIPE).await;
        }
        answer
    }

    /// Waits for the response to a request sent with a progress token, the deadline starting
    /// again whenever progress for `token` arrived within it: the specification lets a client
    /// reset its timeout on progress, "as this indicates that work is actually happening".
    /// The caller's own deadline (the scenario's) is the maximum it must also enforce.
    pub async fn response_with_progress(
        &self,
        id: &Value,
        token: &Value,
        timeout: Duration,
    ) -> Result<Value, SessionError> {
        let mut seen = self.progress_for(token).len();
        loop {
            match self.response(id, timeout).await {
                Err(SessionError::Timeout { .. }) if self.progress_for(token).len() > seen => {
                    seen = self.progress_for(token).len();
                }
                other => return other,
            }
        }
    }

    /// Sends a request and waits for its response.
    pub async fn request(
        &self,
        method: &str,
        params: Option<Value>,
        timeout: Duration,
    ) -> Result<Value, SessionError> {
        let id = self.send_request(method, params).await?;
        self.response(&id, timeout).await
    }

    /// Waits until `check` returns something, re-evaluated on every change (a line read,
    /// stderr, exit), or until `timeout`.
    async fn wait_for<T>(
        &self,
        timeout: Duration,
        mut check: impl FnMut(&mut Inbox) -> Option<T>,
    ) -> Result<T, SessionError> {
        let deadline = Instant::now() + timeout;
        loop {
            let changed = self.shared.changed.notified();
            tokio::pin!(changed);
            changed.as_mut().enable();
            if let Some(v) = check(&mut self.shared.lock()) {
                return Ok(v);
            }
            if tokio::time::timeout_at(deadline, changed).await.is_err() {
                return Err(SessionError::Timeout {
                    after: timeout,
                    meanwhile: Vec::new(),
                });
            }
        }
    }

    /// Takes the first unconsumed unsolicited message for which `accept` is true, waiting up
    /// to `timeout`.
    pub async fn take_message(
        &self,
        timeout: Duration,
        mut accept: impl FnMut(&Value) -> bool,
    ) -> Result<Value, SessionError> {
        self.wait_for(timeout, |inbox| {
            inbox
                .queue
                .iter_mut()
                .find(|q| !q.consumed && accept(&q.message))
                .map(|q| {
                    q.consumed = true;
                    q.message.clone()
                })
        })
        .await
    }

    /// The response to one of our requests if it arrives within `timeout` (whether or not
    /// it was already taken by [`Session::response`]).
    pub async fn answered(&self, id: &Value, timeout: Duration) -> Option<Value> {
        let key = id_key(id);
        self.wait_for(timeout, |inbox| inbox.answered.get(&key).cloned())
            .await
            .ok()
    }

    /// Waits up to `timeout` for an unsolicited message (one that is not a response to our
    /// own requests) for which `accept` is true; `None` if none came.
    pub async fn find_any_message(
        &self,
        timeout: Duration,
        mut accept: impl FnMut(&Value) -> bool,
    ) -> Option<Value> {
        self.wait_for(timeout, |inbox| {
            inbox
                .queue
                .iter()
                .find(|q| accept(&q.message))
                .map(|q| q.message.clone())
        })
        .await
        .ok()
    }

    /// Every message so far that broke JSON-RPC 2.0 (the first ones), oldest first.
    pub fn violations(&self) -> Vec<Violation> {
        self.shared.lock().violations.clone()
    }

    /// A handle on what this session finds that breaks JSON-RPC 2.0, which outlives the
    /// session without keeping its process (or its process group id) around.
    pub fn findings(&self) -> Findings {
        Findings::new(self.shared.clone())
    }

    /// From now on, answers the server's requests of `method` with `body` (`{"result": ...}`
    /// or `{"error": ...}`), while anything else waits: the reader sends it the moment the
    /// request is read, so a call in flight gets what it asked for.
    pub fn answer_with(&self, method: &str, body: Value) {
        self.shared.lock().answers.insert(method.to_string(), body);
    }

    /// How an `answer` step scripted the answer to the server's requests of `method`, if it
    /// did (`{"result": ...}` or `{"error": ...}`): an input request of a multi round-trip
    /// request is answered the same way.
    pub fn scripted_answer(&self, method: &str) -> Option<Value> {
        self.shared.lock().answers.get(method).cloned()
    }

    /// True while a request sent with [`Session::send_request`] has no answer yet.
    pub fn awaiting_answers(&self) -> bool {
        !self.shared.lock().our_ids.is_empty()
    }

    /// Marks every unsolicited message received so far as consumed: a scenario handed a
    /// running server (`runner/share.rs`) expects only messages of its own.
    pub fn consume_unsolicited(&self) {
        for queued in &mut self.shared.lock().queue {
            queued.consumed = true;
        }
    }

    /// Messages not consumed yet (what `expect_message` can still take).
    pub fn unconsumed(&self) -> Vec<Value> {
        let inbox = self.shared.lock();
        inbox
            .queue
            .iter()
            .filter(|q| !q.consumed)
            .map(|q| q.message.clone())
            .collect()
    }

    /// Waits (up to `timeout`) until the server's stdout and stderr reached end of file, so
    /// what it wrote before exiting has all been read.
    pub async fn wait_streams_closed(&self, timeout: Duration) {
        let _ = self
            .wait_for(timeout, |inbox| {
                (inbox.stdout_closed && inbox.stderr_closed).then_some(())
            })
            .await;
    }

    /// Progress notifications received for a token.
    pub fn progress_for(&self, token: &Value) -> Vec<Value> {
        let key = match token {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        self.shared
            .lock()
            .progress
            .get(&key)
            .cloned()
            .unwrap_or_default()
    }

    /// The server's stderr so far (lossy UTF-8; the oldest part is dropped past 1 MiB).
    pub fn stderr_text(&self) -> String {
        String::from_utf8_lossy(&self.shared.lock().stderr).into_owned()
    }

    /// The last `n` lines of stderr.
    pub fn stderr_tail(&self, n: usize) -> Vec<String> {
        let text = self.stderr_text();
        let lines: Vec<&str> = text.lines().collect();
        lines[lines.len().saturating_sub(n)..]
            .iter()
            .map(|l| l.chars().take(TRANSCRIPT_LINE_CHARS).collect())
            .collect()
    }

    /// `{messages, invalid, text}`: what the server wrote on stdout.
    pub fn stdout_observation(&self) -> Value {
        let inbox = self.shared.lock();
        json!({
            "messages": inbox.messages,
            "invalid": inbox.invalid,
            "text": inbox.stdout_text,
        })
    }

    /// The last lines exchanged, oldest first.
    pub fn transcript(&self) -> Vec<String> {
        self.shared.lock().transcript.iter().cloned().collect()
    }

    /// Closes the server's stdin (the MCP stdio way of asking it to exit).
    pub async fn close_stdin(&self) {
        let mut guard = self.stdin.lock().await;
        if let Some(mut w) = guard.take() {
            let _ = w.shutdown().await;
        }
        self.shared.lock().note("->", "<stdin closed>");
    }

    /// Waits for the process to exit; `None` if it is still running at the deadline.
    pub async fn wait_exit(&self, timeout: Duration) -> Option<ExitStatus> {
        self.wait_for(timeout, |inbox| inbox.exit).await.ok()
    }

    /// The exit status if the process has exited.
    pub fn exit_status(&self) -> Option<ExitStatus> {
        self.shared.lock().exit
    }

    /// Sends a signal to the server process (not once it has exited and been reaped: the
    /// pid may belong to someone else by then).
    pub fn signal(&self, signal: Signal) {
        if self.exit_status().is_some() {
            return;
        }
        if let Ok(raw) = i32::try_from(self.pid) {
            let _ = nix::sys::signal::kill(nix::unistd::Pid::from_raw(raw), signal);
        }
    }

    /// Ends the server: stdin closed, then its whole process group killed after `grace`.
    pub async fn shutdown(&self, grace: Duration) -> Option<ExitStatus> {
        self.close_stdin().await;
        let status = self.wait_exit(grace).await;
        kill_group(self.pid, Signal::SIGKILL);
        match status {
            Some(s) => Some(s),
            None => self.wait_exit(Duration::from_secs(2)).await,
        }
    }

    /// Writes a line of the client's own into the transcript (not sent): where one scenario
    /// ends and the next begins on a shared server.
    pub fn mark(&self, text: &str) {
        self.shared.lock().note("==", text);
    }

    /// The command line, for messages.
    pub fn command(&self) -> &str {
        &self.command
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        kill_group(self.pid, Signal::SIGKILL);
    }
}

/// The lines a timeout adds for what the server sent meanwhile that broke JSON-RPC 2.0.
fn meanwhile_text(meanwhile: &[Violation]) -> String {
    let mut out = String::new();
    for v in meanwhile.iter().take(3) {
        out.push_str("\nmeanwhile the server sent ");
        out.push_str(&v.report());
    }
    out
}
