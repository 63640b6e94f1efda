//! The fail-closed audit trail of the safe-mcp servers: one JSON object per line, appended
//! under an exclusive `flock`, whole or not at all, with an fsync per record.
//!
//! Unlike [`crate::audit`] (where an audit problem never fails a tool call), a
//! [`AuditTrail::record`] error is returned to the caller, which in `closed` mode refuses to
//! act: nothing happens that the trail could not record. The file is reopened for every
//! record, so a log that becomes unwritable (or is removed) is noticed on the next call.

use std::path::{Path, PathBuf};

use nix::fcntl::{Flock, FlockArg};
use serde_json::Value;

use crate::fsio::open_append_private;

/// What to do when a record cannot be written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FailMode {
    /// Refuse the operation (the default).
    Closed,
    /// Proceed, and say so on stderr.
    Open,
}

impl FailMode {
    /// Parses `"closed"` / `"open"` (exact).
    pub fn parse(s: &str) -> Option<FailMode> {
        match s {
            "closed" => Some(FailMode::Closed),
            "open" => Some(FailMode::Open),
            _ => None,
        }
    }
}

/// An append-only JSON Lines file.
#[derive(Debug, Clone)]
pub struct AuditTrail {
    path: PathBuf,
    mode: FailMode,
}

impl AuditTrail {
    /// A trail at `path` (created on first record, mode 0600).
    pub fn new(path: PathBuf, mode: FailMode) -> Self {
        AuditTrail { path, mode }
    }

    /// The file path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The configured failure mode.
    pub fn mode(&self) -> FailMode {
        self.mode
    }

    /// Appends `record` as one line, durably. Callers redact before calling.
    pub fn record(&self, record: &Value) -> std::io::Result<()> {
        let mut line = record.to_string();
        line.push('\n');
        let file = open_append_private(&self.path)?;
        let mut locked = Flock::lock(file, FlockArg::LockExclusive).map_err(|(_, e)| e)?;
        crate::jsonl::append_line(&mut locked, line.as_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn records_append_and_unwritable_is_an_error() {
        let tmp = tempfile::tempdir().unwrap();
        let t = AuditTrail::new(tmp.path().join("a.jsonl"), FailMode::Closed);
        t.record(&json!({"n": 1})).unwrap();
        t.record(&json!({"n": 2})).unwrap();
        let text = std::fs::read_to_string(t.path()).unwrap();
        assert_eq!(text, "{\"n\":1}\n{\"n\":2}\n");
        let bad = AuditTrail::new(tmp.path().join("missing/a.jsonl"), FailMode::Closed);
        assert!(bad.record(&json!({})).is_err());
        assert_eq!(FailMode::parse("open"), Some(FailMode::Open));
        assert_eq!(FailMode::parse("Closed"), None);
    }
}
