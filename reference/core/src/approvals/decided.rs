//! The decided ledger, `approvals.decided` beside the database: one JSON line per request
//! that reached a terminal state through the store (consumed, rejected, or expired as part of
//! a refusal), appended and synced inside the write transaction that decides it, before the
//! commit.
//!
//! Why: restoring an export (the documented backup) replaces the database with an older copy
//! of it, in which a request consumed since may still be APPROVED. The ledger outlives the
//! database (the restore procedure moves `approvals.sqlite3*` away, not this file), and every
//! import applies it: a request the ledger lists is imported in the terminal state it reached,
//! so a restore never brings a decided request back. A line appended by a transaction that
//! then failed to commit names a request that is still open; imported, it is closed too,
//! which only ever asks for a new approval.
//!
//! Only the last line can be torn (a crash mid-append, so before its transaction could
//! commit): reading skips an unterminated last line, and an append first ends it
//! ([`crate::jsonl::append_line`]), so two lines are never glued.

use std::collections::HashMap;
use std::fs::OpenOptions;
use std::io::Read;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::StoreError;
use super::model::ApprovalStatus;
use super::stored::StoredRecord;
use crate::clock::Timestamp;

/// The ledger's file name, beside `approvals.sqlite3`.
pub const FILE_NAME: &str = "approvals.decided";

/// One decided request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(super) struct Decided {
    workspace_id: String,
    request_id: String,
    status: ApprovalStatus,
    #[serde(default)]
    decided_at: Option<Timestamp>,
    #[serde(default)]
    consumed_at: Option<Timestamp>,
    #[serde(default)]
    terminal_at: Option<Timestamp>,
}

/// The ledger beside the database `db`.
pub(super) fn path_beside(db: &Path) -> PathBuf {
    db.with_file_name(FILE_NAME)
}

/// Appends `record`'s terminal state to the ledger at `path` and syncs it. The file is created
/// private (0600) and never opened through a symlink.
pub(super) fn append(path: &Path, record: &StoredRecord) -> Result<(), StoreError> {
    let entry = Decided {
        workspace_id: record.workspace_id.clone(),
        request_id: record.request_id.clone(),
        status: record.status,
        decided_at: record.decided_at,
        consumed_at: record.consumed_at,
        terminal_at: record.terminal_at,
    };
    let mut line = serde_json::to_vec(&entry).map_err(|e| StoreError::Io(e.to_string()))?;
    line.push(b'\n');
    let mut file = crate::fsio::open_append_private(path)?;
    crate::jsonl::append_line(&mut file, &line)?;
    Ok(())
}

/// The ledger at `path`, by (workspace, request); empty when there is none. A complete line
/// that is not an entry fails closed ([`StoreError::Malformed`]); blank lines and an
/// unterminated last line are skipped.
pub(super) fn read(path: &Path) -> Result<HashMap<(String, String), Decided>, StoreError> {
    let bytes = match OpenOptions::new()
        .read(true)
        .custom_flags(nix::libc::O_NOFOLLOW)
        .open(path)
    {
        Ok(mut file) => {
            let mut bytes = Vec::new();
            file.read_to_end(&mut bytes)?;
            bytes
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(HashMap::new()),
        Err(e) => return Err(e.into()),
    };
    let complete = match bytes.iter().rposition(|b| *b == b'\n') {
        Some(end) => &bytes[..=end],
        None => &[][..],
    };
    let mut out = HashMap::new();
    for (i, line) in complete.split(|b| *b == b'\n').enumerate() {
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let entry: Decided = serde_json::from_slice(line)
            .map_err(|e| StoreError::Malformed(format!("{FILE_NAME} line {}: {e}", i + 1)))?;
        out.insert(
            (entry.workspace_id.clone(), entry.request_id.clone()),
            entry,
        );
    }
    Ok(out)
}

/// What an import does to `records` (an `approvals.json` being migrated: an earlier version's
/// store or a restored export): a request the ledger lists takes the terminal state it
/// reached there, whatever the copy says. Returns how many records changed.
pub(super) fn apply(
    records: &mut [StoredRecord],
    ledger: &HashMap<(String, String), Decided>,
) -> usize {
    let mut changed = 0;
    for record in records.iter_mut() {
        let key = (record.workspace_id.clone(), record.request_id.clone());
        let Some(decided) = ledger.get(&key) else {
            continue;
        };
        if record.status == decided.status {
            continue;
        }
        record.status = decided.status;
        record.decided_at = decided.decided_at.or(record.decided_at);
        record.consumed_at = decided.consumed_at;
        record.terminal_at = decided.terminal_at;
        changed += 1;
    }
    changed
}
