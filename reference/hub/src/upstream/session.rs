//! One MCP client session with one upstream, over its stdin/stdout.
//!
//! The child's stdin is written whole line by whole line under one lock, by whoever sends
//! (the front on the hub's input thread, a task of the runtime, the reader answering the
//! upstream); its stdout is read by one thread of the session's, blocking on each read. A
//! relayed call is thus two blocking writes and no task switch: the input thread writes the
//! request, the reader thread writes the answer to the client. Requests are registered in
//! `pending` under an id the session allocates; the reader hands each response line to its
//! waiter, or relays it to the client itself (see [`super::relay`]), and routes
//! `notifications/progress` by token (the token of a call is its request id). An entry
//! leaves `pending` when its response arrives, when it is cancelled, or when its waiter goes
//! away, so nothing grows with the number of calls. When stdout ends, every waiter is failed
//! and later requests fail at once.
//!
//! The session speaks the generation startup chose: legacy (after `initialize`, requests as
//! they are) or modern (2026-07-28: every request carries the protocol version, the hub's
//! capabilities and identity in `params._meta`, beside the progress token when there is one).
//! Notifications (cancellation) carry no protocol `_meta` in either generation.

use std::collections::HashMap;
use std::io::{Read, Write};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering, fence};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, PoisonError, TryLockError};

use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use tokio::sync::oneshot;

pub use super::relay::ProgressRoute;
use super::relay::{Relay, Waiter};
use super::wire;
use crate::config::InstanceId;
use mcp_stdio_guard::{MAX_LINE_BYTES, max_line_bytes};

/// Why a request got no response.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SessionError {
    /// The upstream's stdout ended or its stdin broke.
    #[error("upstream connection closed: {0}")]
    Closed(Arc<str>),
    /// The request was cancelled (its pending entry was removed by [`Session::cancel`]).
    #[error("request cancelled")]
    Cancelled,
}

struct Pending {
    waiter: Waiter,
    progress: Option<ProgressRoute>,
}

#[derive(Default)]
struct State {
    pending: HashMap<u64, Pending>,
    closed: Option<Arc<str>>,
}

/// The writing end of the child's stdin, while it is open.
type Stdin = Option<Box<dyn Write + Send>>;

/// A running client session with one upstream.
pub struct Session {
    id: InstanceId,
    /// The child's stdin; taken (closed) when the session closes or a write fails.
    stdin: Mutex<Stdin>,
    state: Mutex<State>,
    next_id: AtomicU64,
    closing: AtomicBool,
    ready: AtomicBool,
    /// Told when the reader thread ends, awaited at shutdown so what it logs about the end
    /// is logged.
    reader: Mutex<Option<oneshot::Receiver<()>>>,
    /// Set once the upstream is known to be modern: the `_meta` keys every request carries.
    modern: OnceLock<(String, Map<String, Value>)>,
    /// The runtime the session started in, whose blocking pool writes the answers to the
    /// upstream's own requests (see [`Session::answer_upstream`]).
    runtime: Option<tokio::runtime::Handle>,
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session").field("id", &self.id).finish()
    }
}

/// A request that has been registered but perhaps not written yet.
pub struct Call<'a> {
    session: &'a Session,
    id: u64,
    line: Option<Vec<u8>>,
    reply: oneshot::Receiver<Vec<u8>>,
}

impl Session {
    /// Starts the session over the child's pipes (blocking ones: see
    /// [`mcp_stdio_guard::fd::Blocking`]), its reader on a thread of its own; the
    /// upstream's lines are bounded by the process's line limit (`MCP_MAX_LINE_BYTES`).
    pub fn start<W, R>(id: InstanceId, stdin: W, stdout: R) -> Arc<Self>
    where
        W: Write + Send + 'static,
        R: Read + Send + 'static,
    {
        // An invalid limit fails the hub's outward session at once; the default serves
        // until then.
        let limit = max_line_bytes().unwrap_or(MAX_LINE_BYTES);
        Self::start_with_limit(id, stdin, stdout, limit)
    }

    /// [`Session::start`] with the longest upstream line given.
    pub fn start_with_limit<W, R>(id: InstanceId, stdin: W, stdout: R, limit: usize) -> Arc<Self>
    where
        W: Write + Send + 'static,
        R: Read + Send + 'static,
    {
        let (done, reader) = oneshot::channel();
        let session = Arc::new(Self {
            id,
            stdin: Mutex::new(Some(Box::new(stdin))),
            state: Mutex::default(),
            next_id: AtomicU64::new(1),
            closing: AtomicBool::new(false),
            ready: AtomicBool::new(false),
            reader: Mutex::new(Some(reader)),
            modern: OnceLock::new(),
            runtime: tokio::runtime::Handle::try_current().ok(),
        });
        let reading = session.clone();
        let spawned = std::thread::Builder::new()
            .name("mcp-hub-upstream".into())
            .spawn(move || {
                read_lines(reading, stdout, limit);
                let _ = done.send(());
            });
        if let Err(e) = spawned {
            session.fail_all(&format!("its reader thread could not start: {e}"));
        }
        session
    }

    /// The upstream's instance id.
    pub fn id(&self) -> &InstanceId {
        &self.id
    }

    /// Speaks the modern generation (2026-07-28) at `version` from now on: every request
    /// carries the protocol `_meta` keys. Set once, during startup, before any call.
    pub fn set_modern(&self, version: &str) {
        let _ = self
            .modern
            .set((version.to_owned(), wire::modern_meta(version)));
    }

    /// The modern version this session speaks, or `None` for the legacy generation.
    pub fn modern_version(&self) -> Option<&str> {
        self.modern.get().map(|(version, _)| version.as_str())
    }

    /// Encodes request `id` in the session's generation.
    fn encode<P: Serialize>(&self, id: u64, method: &str, params: &P) -> Vec<u8> {
        match self.modern.get() {
            Some((_, meta)) => wire::request_with_meta(id, method, params, meta),
            None => wire::request(id, method, params),
        }
    }

    /// Registers a request; [`Call::send`] writes it and [`Call::response`] waits for it.
    pub fn begin<P: Serialize>(
        &self,
        method: &str,
        params: &P,
        progress: Option<ProgressRoute>,
    ) -> Result<Call<'_>, SessionError> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        self.begin_with_id(id, |id| self.encode(id, method, params), progress)
    }

    /// Registers a `tools/call` of the original tool `name` whose response line a task
    /// awaits; with `progress`, the request asks for progress (token = request id) and
    /// notifications are routed to it.
    pub fn begin_call(
        &self,
        name: &str,
        arguments: Option<&RawValue>,
        progress: Option<ProgressRoute>,
    ) -> Result<Call<'_>, SessionError> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let asks = progress.is_some();
        self.begin_with_id(id, |id| self.call_line(id, name, arguments, asks), progress)
    }

    /// Registers a `tools/call` of the original tool `name` whose answer the reader relays to
    /// the client (`relay` makes the relay for the call's upstream request id); returns that
    /// id and the request line, for [`Session::send_line`].
    pub fn begin_relay(
        &self,
        name: &str,
        arguments: Option<&RawValue>,
        progress: Option<ProgressRoute>,
        relay: impl FnOnce(u64) -> Relay,
    ) -> Result<(u64, Vec<u8>), SessionError> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let line = self.call_line(id, name, arguments, progress.is_some());
        self.register(id, Waiter::Relay(relay(id)), progress)?;
        Ok((id, line))
    }

    /// A `tools/call` line in the session's generation.
    fn call_line(
        &self,
        id: u64,
        name: &str,
        arguments: Option<&RawValue>,
        progress: bool,
    ) -> Vec<u8> {
        let modern = self.modern.get().map(|(_, meta)| meta);
        wire::call_request(id, name, arguments, progress, modern)
    }

    fn begin_with_id(
        &self,
        id: u64,
        encode: impl FnOnce(u64) -> Vec<u8>,
        progress: Option<ProgressRoute>,
    ) -> Result<Call<'_>, SessionError> {
        let (reply_tx, reply) = oneshot::channel();
        self.register(id, Waiter::Reply(reply_tx), progress)?;
        Ok(Call {
            session: self,
            id,
            line: Some(encode(id)),
            reply,
        })
    }

    /// Puts request `id` in `pending`, unless the connection is gone.
    fn register(
        &self,
        id: u64,
        waiter: Waiter,
        progress: Option<ProgressRoute>,
    ) -> Result<(), SessionError> {
        let mut state = self.lock();
        if let Some(reason) = &state.closed {
            return Err(SessionError::Closed(reason.clone()));
        }
        state.pending.insert(id, Pending { waiter, progress });
        Ok(())
    }

    /// Writes a request line (from [`Session::begin_relay`]).
    pub fn send_line(&self, line: &[u8]) -> Result<(), SessionError> {
        self.write(line)
    }

    /// Sends a notification.
    pub fn notify<P: Serialize>(&self, method: &str, params: &P) -> Result<(), SessionError> {
        self.write(&wire::notification(method, params))
    }

    /// Forwards a client's cancellation of request `id`, if it is still pending: its waiter
    /// fails with [`SessionError::Cancelled`] and later progress for it is dropped. Returns
    /// whether a notification was sent (unknown, completed and repeated ids send nothing).
    pub fn cancel(&self, id: u64, reason: Option<String>, meta: Option<Value>) -> bool {
        if self.lock().pending.remove(&id).is_none() {
            return false;
        }
        #[derive(Serialize)]
        #[serde(rename_all = "camelCase")]
        struct Cancelled {
            request_id: u64,
            #[serde(skip_serializing_if = "Option::is_none")]
            reason: Option<String>,
            #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
            meta: Option<Value>,
        }
        let params = Cancelled {
            request_id: id,
            reason,
            meta,
        };
        self.notify("notifications/cancelled", &params).is_ok()
    }

    /// Marks startup complete: from now on, a lost connection is reported as such (before, the
    /// failing startup step reports it).
    pub fn mark_ready(&self) {
        self.ready.store(true, Ordering::Relaxed);
    }

    /// Whether the connection is gone (the upstream exited or closed its output).
    pub fn closed(&self) -> Option<Arc<str>> {
        self.lock().closed.clone()
    }

    /// Ends the session from our side: stdin is closed (the MCP stdio shutdown signal), calls
    /// still waiting fail, and a later end of stdout is expected rather than reported.
    pub fn close(&self) {
        if self.closing.swap(true, Ordering::Relaxed) {
            return;
        }
        self.fail_all("the hub is shutting down");
        // Paired with the fence after each write: either this sees the lock free, or the
        // writer holding it sees `closing` once it lets go, and closes stdin itself.
        fence(Ordering::SeqCst);
        self.close_stdin_if_closing();
    }

    /// Closes the child's stdin once the session is closing, unless a write holds it (that
    /// writer closes it when done): closing never waits on a child that stopped reading.
    fn close_stdin_if_closing(&self) {
        if !self.closing.load(Ordering::SeqCst) {
            return;
        }
        match self.stdin.try_lock() {
            Ok(mut stdin) => drop(stdin.take()),
            Err(TryLockError::Poisoned(stdin)) => drop(stdin.into_inner().take()),
            Err(TryLockError::WouldBlock) => {}
        }
    }

    /// Waits, at most `within`, for the reader to see the end of the upstream's output (its
    /// process has ended): the hub then exits after the session's last word, not before.
    pub async fn reader_ended(&self, within: std::time::Duration) {
        let reader = self
            .reader
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        if let Some(reader) = reader {
            let _ = tokio::time::timeout(within, reader).await;
        }
    }

    /// Writes the hub's answer to a request of the upstream's own (`ping`), off the reader
    /// thread: were the upstream's stdin full while it waits for its stdout to be read, the
    /// reader blocked on that write would wait on the upstream as it waits on the reader.
    pub(super) fn answer_upstream(self: &Arc<Self>, line: Vec<u8>) {
        match &self.runtime {
            Some(runtime) => {
                let session = self.clone();
                drop(runtime.spawn_blocking(move || session.write(&line)));
            }
            None => {
                let _ = self.write(&line);
            }
        }
    }

    /// Writes `line` to the child's stdin, whole, blocking while its pipe is full. A failed
    /// write closes stdin and fails every pending call.
    fn write(&self, line: &[u8]) -> Result<(), SessionError> {
        let failed = {
            let mut stdin = self.stdin.lock().unwrap_or_else(PoisonError::into_inner);
            let open = stdin
                .as_mut()
                .filter(|_| !self.closing.load(Ordering::SeqCst));
            let Some(pipe) = open else {
                drop(stdin);
                return Err(SessionError::Closed(
                    self.closed().unwrap_or_else(|| "stdin closed".into()),
                ));
            };
            match pipe.write_all(line).and_then(|()| pipe.flush()) {
                Ok(()) => None,
                Err(e) => {
                    *stdin = None;
                    Some(e)
                }
            }
        };
        fence(Ordering::SeqCst);
        self.close_stdin_if_closing();
        match failed {
            None => Ok(()),
            Some(e) => {
                let reason = format!("writing to its stdin failed: {e}");
                self.fail_all(&reason);
                Err(SessionError::Closed(
                    self.closed().unwrap_or_else(|| reason.into()),
                ))
            }
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Marks the connection closed and fails every waiter: a task's sender is dropped, a
    /// relayed call's client gets its error line.
    fn fail_all(&self, reason: &str) {
        let (drained, reason): (Vec<Pending>, Arc<str>) = {
            let mut state = self.lock();
            let reason = state.closed.get_or_insert_with(|| reason.into()).clone();
            (state.pending.drain().map(|(_, p)| p).collect(), reason)
        };
        let failure = SessionError::Closed(reason).to_string();
        for pending in drained {
            if let Waiter::Relay(relay) = pending.waiter {
                relay.fail(&self.id, &failure);
            }
        }
    }

    /// Requests registered and not yet answered, cancelled or abandoned.
    pub fn pending_calls(&self) -> usize {
        self.lock().pending.len()
    }

    fn take_pending(&self, id: u64) -> Option<Pending> {
        self.lock().pending.remove(&id)
    }

    fn progress_route(&self, id: u64) -> Option<ProgressRoute> {
        self.lock()
            .pending
            .get(&id)
            .and_then(|p| p.progress.clone())
    }
}

impl Call<'_> {
    /// The upstream request id.
    pub fn id(&self) -> u64 {
        self.id
    }

    /// Writes the request.
    pub fn send(&mut self) -> Result<(), SessionError> {
        match self.line.take() {
            Some(line) => self.session.write(&line),
            None => Ok(()),
        }
    }

    /// Waits for the response line (sending the request first if needed).
    pub async fn response(mut self) -> Result<Vec<u8>, SessionError> {
        self.send()?;
        match (&mut self.reply).await {
            Ok(line) => Ok(line),
            Err(_) => Err(match self.session.closed() {
                Some(reason) => SessionError::Closed(reason),
                None => SessionError::Cancelled,
            }),
        }
    }
}

impl Drop for Call<'_> {
    fn drop(&mut self) {
        // Gone already when answered, cancelled or failed; removed here when the waiter
        // itself went away (the outward session ended, a startup step timed out).
        self.session.take_pending(self.id);
    }
}

#[path = "reader.rs"]
mod reader;
use reader::read_lines;

#[cfg(test)]
#[path = "session_tests.rs"]
mod tests;
