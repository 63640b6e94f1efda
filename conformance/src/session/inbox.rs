//! What the reader tasks learn from a server's stdout and stderr, behind one lock: responses
//! routed by id, the queue of everything else, the transcript, the streams' text.

use super::check::Violation;
use serde_json::Value;
use std::collections::{HashMap, HashSet, VecDeque};
use std::process::ExitStatus;
use std::sync::{Arc, Mutex, MutexGuard};
use tokio::sync::Notify;

pub(super) const TRANSCRIPT_LINES: usize = 40;
pub(super) const TRANSCRIPT_LINE_CHARS: usize = 400;
pub(super) const STDERR_KEEP: usize = 1 << 20;
pub(super) const STDOUT_TEXT_KEEP: usize = 1 << 20;
/// Messages that broke JSON-RPC 2.0 kept per session (the first ones: a report names the
/// first).
pub(super) const VIOLATIONS_KEEP: usize = 20;

/// One message in the queue of unsolicited messages.
#[derive(Debug, Clone)]
pub(super) struct Queued {
    pub(super) message: Value,
    pub(super) consumed: bool,
}

/// Everything the reader tasks learned, behind one lock.
#[derive(Debug, Default)]
pub(super) struct Inbox {
    /// Our pending requests (sent with [`super::Session::send_request`]) by id key.
    pub(super) our_ids: HashSet<String>,
    /// The id key of everything we wrote that carried an id (requests, raw lines too).
    pub(super) sent: HashSet<String>,
    pub(super) responses: HashMap<String, Value>,
    /// Answers to our pending requests that break JSON-RPC 2.0 (a near miss of the id's type,
    /// result and error together...), by the request's id key: a wait for that request ends
    /// with it.
    pub(super) near_misses: HashMap<String, Violation>,
    /// Every message that broke JSON-RPC 2.0, in arrival order.
    pub(super) violations: Vec<Violation>,
    /// Every response to our requests, kept after it was taken (for `no_response`).
    pub(super) answered: HashMap<String, Value>,
    pub(super) queue: Vec<Queued>,
    pub(super) messages: usize,
    pub(super) invalid: Vec<String>,
    pub(super) stdout_text: String,
    pub(super) stdout_closed: bool,
    pub(super) stderr_closed: bool,
    pub(super) stderr: Vec<u8>,
    pub(super) stderr_dropped: usize,
    pub(super) transcript: VecDeque<String>,
    pub(super) exit: Option<ExitStatus>,
    /// Progress notifications by token.
    pub(super) progress: HashMap<String, Vec<Value>>,
    /// What the client declared, for judging the server's own requests.
    pub(super) declared: super::asked::Declared,
    /// The id key of the request each progress token we sent belongs to, by the token's key.
    pub(super) progress_requests: HashMap<String, String>,
    /// How the client answers the server's requests, by method: `{"result": ...}` or
    /// `{"error": ...}` (`ping` gets `{}` and any other method -32601 otherwise).
    pub(super) answers: HashMap<String, Value>,
}

/// Appends a transcript line, cut to its length limit; the oldest lines go first.
impl Inbox {
    pub(super) fn note(&mut self, arrow: &str, line: &str) {
        let mut s: String = line.chars().take(TRANSCRIPT_LINE_CHARS).collect();
        if s.len() < line.len() {
            s.push_str(" …");
        }
        if self.transcript.len() == TRANSCRIPT_LINES {
            self.transcript.pop_front();
        }
        self.transcript.push_back(format!("{arrow} {s}"));
    }
}

/// The inbox and the signal that it changed, shared by the session and its reader tasks.
pub(super) struct Shared {
    pub(super) inbox: Mutex<Inbox>,
    pub(super) changed: Notify,
}

impl Shared {
    pub(super) fn lock(&self) -> MutexGuard<'_, Inbox> {
        // A panic in a reader task must not take the whole run down with it.
        self.inbox.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// What a session found that breaks JSON-RPC 2.0 ([`super::Session::findings`]).
#[derive(Clone)]
pub struct Findings {
    shared: Arc<Shared>,
}

impl Findings {
    pub(super) fn new(shared: Arc<Shared>) -> Self {
        Findings { shared }
    }

    /// The first message that broke JSON-RPC 2.0, if any did.
    pub fn first(&self) -> Option<Violation> {
        self.shared.lock().violations.first().cloned()
    }
}

impl std::fmt::Debug for Findings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Findings").finish_non_exhaustive()
    }
}
