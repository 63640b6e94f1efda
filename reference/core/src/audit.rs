//! The audit log: bounded, redacted JSON Lines in `audit.jsonl` under the trusted state root.
//!
//! Each event is one line `{"ts","event","tool","trace_id","request_id"?,"outcome"?,"details"}`
//! written on an `O_APPEND` descriptor under the audit lock, then fsynced, whole or not at all
//! ([`crate::jsonl::append_line`]: a short write on a full disk is cut back). Appends and compaction share the lock, so compaction never loses a concurrent
//! append. Callers must treat append failures as non-fatal (log them to stderr at most): an
//! audit problem never fails a tool call. Nothing here panics on bad input.

use std::path::PathBuf;
use std::time::Duration;

use serde::Serialize;
use serde_json::{Map, Value};

use crate::clock::{SharedClock, Timestamp};
use crate::config::io_reason;
use crate::fsio::{FileLock, LockError, atomic_write, open_append_private};
use crate::redact::redact_value;
use crate::state::StateRoot;

/// Longest string (in characters) kept in any field; longer strings are cut and marked.
pub const MAX_STRING_CHARS: usize = 512;
/// Deepest nesting kept in `details`.
pub const MAX_DETAILS_DEPTH: usize = 6;
/// Most array items / object members kept per container in `details`.
pub const MAX_CONTAINER_ITEMS: usize = 64;
/// Largest serialized `details`; larger ones are replaced by a marker object.
pub const MAX_DETAILS_BYTES: usize = 8 * 1024;
/// Marker appended to cut strings.
pub const TRUNCATION_MARKER: &str = "…[truncated]";
/// How long an append waits for the lock before giving up (non-fatal).
pub const APPEND_LOCK_TIMEOUT: Duration = Duration::from_secs(2);

/// One audit event (before stamping and bounding).
#[derive(Debug, Clone, PartialEq)]
pub struct AuditEvent {
    /// Event name, e.g. `approval.created`, `tool.call`.
    pub event: String,
    /// The MCP tool (or `admin`).
    pub tool: String,
    /// Lifecycle correlation id.
    pub trace_id: String,
    /// Related approval request.
    pub request_id: Option<String>,
    /// Outcome, e.g. `SUCCEEDED`.
    pub outcome: Option<String>,
    /// Free-form metadata; redacted and bounded on write. Never put file contents, raw process
    /// output or approval payloads here.
    pub details: Value,
}

impl AuditEvent {
    /// A new event with empty details.
    pub fn new(
        event: impl Into<String>,
        tool: impl Into<String>,
        trace_id: impl Into<String>,
    ) -> Self {
        AuditEvent {
            event: event.into(),
            tool: tool.into(),
            trace_id: trace_id.into(),
            request_id: None,
            outcome: None,
            details: Value::Object(Map::new()),
        }
    }

    /// Sets `request_id`.
    pub fn request_id(mut self, id: impl Into<String>) -> Self {
        self.request_id = Some(id.into());
        self
    }

    /// Sets `outcome`.
    pub fn outcome(mut self, outcome: impl Into<String>) -> Self {
        self.outcome = Some(outcome.into());
        self
    }

    /// Sets `details`.
    pub fn details(mut self, details: Value) -> Self {
        self.details = details;
        self
    }

    /// The line that would be written at `ts` (bounded and redacted), without the newline.
    pub fn to_line(&self, ts: Timestamp) -> String {
        let mut m = Map::new();
        m.insert("ts".into(), Value::String(ts.to_rfc3339()));
        m.insert("event".into(), Value::String(bound_str(&self.event)));
        m.insert("tool".into(), Value::String(bound_str(&self.tool)));
        m.insert("trace_id".into(), Value::String(bound_str(&self.trace_id)));
        if let Some(r) = &self.request_id {
            m.insert("request_id".into(), Value::String(bound_str(r)));
        }
        if let Some(o) = &self.outcome {
            m.insert("outcome".into(), Value::String(bound_str(o)));
        }
        m.insert("details".into(), bound_details(&self.details));
        Value::Object(m).to_string()
    }
}

/// Cuts `s` to [`MAX_STRING_CHARS`] characters (plus the marker) and redacts credentials.
pub fn bound_str(s: &str) -> String {
    let red = crate::redact::redact_str(s);
    cut(&red)
}

fn cut(s: &str) -> String {
    match s.char_indices().nth(MAX_STRING_CHARS) {
        None => s.to_string(),
        Some((i, _)) => format!("{}{TRUNCATION_MARKER}", &s[..i]),
    }
}

/// Redacts then bounds `details` (depth, container sizes, string lengths, total size).
pub fn bound_details(v: &Value) -> Value {
    let bounded = bound_value(&redact_value(v), 0);
    let size = bounded.to_string().len();
    if size > MAX_DETAILS_BYTES {
        serde_json::json!({ "truncated": true, "original_bytes": size })
    } else {
        bounded
    }
}

fn bound_value(v: &Value, depth: usize) -> Value {
    match v {
        Value::String(s) => Value::String(cut(s)),
        Value::Array(_) | Value::Object(_) if depth >= MAX_DETAILS_DEPTH => {
            Value::String("[too deep]".into())
        }
        Value::Array(a) => {
            let mut out: Vec<Value> = a
                .iter()
                .take(MAX_CONTAINER_ITEMS)
                .map(|x| bound_value(x, depth + 1))
                .collect();
            if a.len() > MAX_CONTAINER_ITEMS {
                out.push(Value::String(format!(
                    "[{} more items]",
                    a.len() - MAX_CONTAINER_ITEMS
                )));
            }
            Value::Array(out)
        }
        Value::Object(m) => {
            let mut out: Map<String, Value> = m
                .iter()
                .take(MAX_CONTAINER_ITEMS)
                .map(|(k, x)| (cut(k), bound_value(x, depth + 1)))
                .collect();
            if m.len() > MAX_CONTAINER_ITEMS {
                out.insert(
                    "_truncated_members".into(),
                    Value::from((m.len() - MAX_CONTAINER_ITEMS) as u64),
                );
            }
            Value::Object(out)
        }
        other => other.clone(),
    }
}

/// Audit failures. Callers of `append` should log and continue.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AuditError {
    /// The audit lock could not be taken.
    #[error(transparent)]
    Lock(#[from] LockError),
    /// Reading or writing failed (OS reason only).
    #[error("audit log i/o error: {0}")]
    Io(String),
    /// A line (1-based) is not a JSON object; compaction refuses and changes nothing.
    #[error("audit log is malformed at line {line}; refusing to compact")]
    Malformed {
        /// The 1-based line number.
        line: usize,
    },
}

impl AuditError {
    /// A stable machine code.
    pub fn code(&self) -> &'static str {
        match self {
            AuditError::Lock(e) => e.code(),
            AuditError::Io(_) => "AUDIT_IO",
            AuditError::Malformed { .. } => "AUDIT_MALFORMED",
        }
    }
}

impl From<std::io::Error> for AuditError {
    fn from(e: std::io::Error) -> Self {
        AuditError::Io(io_reason(&e))
    }
}

/// What `compact_keep_last` found (and, with `apply`, did).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct CompactReport {
    /// Whether this was `--apply`.
    pub applied: bool,
    /// Events in the log.
    pub total: usize,
    /// Events retained (the newest `min(n, total)`).
    pub kept: usize,
    /// Events removed (would be removed, on a dry run).
    pub removed: usize,
    /// The log ended with part of a line (an append a crash cut short, never acknowledged):
    /// not an event, not counted, dropped on apply.
    pub torn_tail: bool,
}

/// The audit log of one state root.
#[derive(Clone)]
pub struct AuditLog {
    path: PathBuf,
    lock_path: PathBuf,
    clock: SharedClock,
    lock_timeout: Duration,
}

impl std::fmt::Debug for AuditLog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AuditLog")
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

impl AuditLog {
    /// The log at `state`'s `audit.jsonl`, stamped by `clock`.
    pub fn new(state: &StateRoot, clock: SharedClock) -> Self {
        AuditLog {
            path: state.audit_path(),
            lock_path: state.audit_lock_path(),
            clock,
            lock_timeout: APPEND_LOCK_TIMEOUT,
        }
    }

    /// Overrides the lock wait of appends and compaction (default [`APPEND_LOCK_TIMEOUT`]).
    pub fn with_lock_timeout(mut self, timeout: Duration) -> Self {
        self.lock_timeout = timeout;
        self
    }

    /// Appends one bounded, redacted event stamped with the clock's time. Returns the line
    /// written (without newline). Non-fatal for callers: log the error and carry on.
    pub fn append(&self, event: &AuditEvent) -> Result<String, AuditError> {
        let line = event.to_line(self.clock.now());
        let mut buf = Vec::with_capacity(line.len() + 1);
        buf.extend_from_slice(line.as_bytes());
        buf.push(b'\n');
        let _lock = FileLock::acquire(&self.lock_path, self.lock_timeout)?;
        let mut f = open_append_private(&self.path)?;
        crate::jsonl::append_line(&mut f, &buf)?;
        Ok(line)
    }

    /// The newest `limit` events, oldest first (chronological; the last element is the most
    /// recent). Lines that are not JSON objects are skipped here (compaction refuses them).
    pub fn recent(&self, limit: usize) -> Result<Vec<Value>, AuditError> {
        self.recent_matching(limit, |_| true)
    }

    /// Like [`Self::recent`], only events whose `trace_id` equals `trace_id`.
    pub fn recent_for_trace(&self, trace_id: &str, limit: usize) -> Result<Vec<Value>, AuditError> {
        self.recent_matching(limit, |v| {
            v.get("trace_id").and_then(Value::as_str) == Some(trace_id)
        })
    }

    fn recent_matching(
        &self,
        limit: usize,
        keep: impl Fn(&Value) -> bool,
    ) -> Result<Vec<Value>, AuditError> {
        let mut out: Vec<Value> = Vec::new();
        if limit == 0 {
            return Ok(out);
        }
        // Read backwards in chunks so a long log costs only what the answer needs.
        for_each_line_rev(&self.path, |line| {
            if let Ok(v @ Value::Object(_)) = serde_json::from_slice::<Value>(line)
                && keep(&v)
            {
                out.push(v);
            }
            out.len() < limit
        })?;
        out.reverse();
        Ok(out)
    }

    /// Keeps the newest `keep_last` complete events in their original order. Every non-blank
    /// line must be a JSON object, else [`AuditError::Malformed`] and nothing changes. Blank
    /// lines are ignored (and dropped on apply). A dry run (`apply == false`) only counts;
    /// `apply` rewrites atomically under the audit lock (so no concurrent append is lost), and
    /// only when something is dropped; appends never rewrite (one `O_APPEND` write each);
    /// `keep_last == 0` empties a valid log. A missing log is an empty one (nothing created).
    pub fn compact_keep_last(
        &self,
        keep_last: usize,
        apply: bool,
    ) -> Result<CompactReport, AuditError> {
        let _lock = FileLock::acquire(&self.lock_path, self.lock_timeout)?;
        let bytes = match std::fs::read(&self.path) {
            Ok(b) => Some(b),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => return Err(e.into()),
        };
        let exists = bytes.is_some();
        let bytes = bytes.unwrap_or_default();
        let text = std::str::from_utf8(&bytes).map_err(|e| AuditError::Malformed {
            line: 1 + bytes[..e.valid_up_to()]
                .iter()
                .filter(|b| **b == b'\n')
                .count(),
        })?;
        let mut events: Vec<&str> = Vec::new();
        let lines: Vec<&str> = text.split('\n').collect();
        let mut torn_tail = false;
        for (i, line) in lines.iter().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            match serde_json::from_str::<Value>(line) {
                Ok(Value::Object(_)) => events.push(line),
                // The last piece, with no newline after it: an append cut short.
                _ if i + 1 == lines.len() => torn_tail = true,
                _ => return Err(AuditError::Malformed { line: i + 1 }),
            }
        }
        let total = events.len();
        let kept = keep_last.min(total);
        let removed = total - kept;
        if apply && exists {
            let mut out = String::new();
            for line in &events[total - kept..] {
                out.push_str(line);
                out.push('\n');
            }
            // Nothing to drop (no event, no blank line): the log is left as it is, not
            // rewritten.
            if out.as_bytes() != bytes.as_slice() {
                atomic_write(&self.path, out.as_bytes())?;
            }
        }
        Ok(CompactReport {
            applied: apply,
            total,
            kept,
            removed,
            torn_tail,
        })
    }
}

/// How much of the log `recent` reads at a time, from the end.
const READ_CHUNK: u64 = 64 * 1024;

/// Calls `f` with each non-empty line of the file at `path`, last line first, until `f`
/// returns false. A missing file has no lines.
fn for_each_line_rev(
    path: &std::path::Path,
    mut f: impl FnMut(&[u8]) -> bool,
) -> Result<(), AuditError> {
    use std::io::{Read, Seek, SeekFrom};
    const CHUNK: u64 = READ_CHUNK;
    let mut file = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e.into()),
    };
    let mut pos = file.metadata()?.len();
    // `tail` holds the bytes after `pos` that do not yet form a complete line.
    let mut tail: Vec<u8> = Vec::new();
    while pos > 0 {
        let start = pos.saturating_sub(CHUNK);
        let mut chunk = vec![0u8; (pos - start) as usize];
        file.seek(SeekFrom::Start(start))?;
        file.read_exact(&mut chunk)?;
        chunk.extend_from_slice(&tail);
        pos = start;
        // Everything after the first newline in `chunk` is made of complete lines (unless we
        // are at the start of the file, where the first line is complete too).
        let first_nl = if pos == 0 {
            None
        } else {
            match chunk.iter().position(|b| *b == b'\n') {
                Some(i) => Some(i),
                None => {
                    tail = chunk;
                    continue;
                }
            }
        };
        let body_start = first_nl.map_or(0, |i| i + 1);
        for line in chunk[body_start..].rsplit(|b| *b == b'\n') {
            if !line.is_empty() && !f(line) {
                return Ok(());
            }
        }
        tail = match first_nl {
            Some(i) => chunk[..i].to_vec(),
            None => Vec::new(),
        };
    }
    Ok(())
}

#[cfg(test)]
mod tests;
