//! The database's shape and the conversions every layer of the store shares: the schema, a
//! record's stored text and back, and what a SQLite failure means for the store. Below both
//! the opening of the database (`db`) and its creation (`migrate`), so neither imports the
//! other's internals.

use std::time::Duration;

use rusqlite::ErrorCode;

use super::StoreError;
use super::stored::StoredRecord;
use crate::fsio::LockError;

/// The tables, the index and the triggers that keep the counts. `seq` is the creation order.
pub(super) const SCHEMA: &str = "
CREATE TABLE store_meta (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    format INTEGER NOT NULL,
    records INTEGER NOT NULL,
    record_bytes INTEGER NOT NULL,
    migrated_from TEXT
);
CREATE TABLE approvals (
    seq INTEGER PRIMARY KEY,
    workspace_id TEXT NOT NULL,
    request_id TEXT NOT NULL,
    record TEXT NOT NULL,
    UNIQUE (workspace_id, request_id)
);
CREATE TRIGGER approvals_counted_insert AFTER INSERT ON approvals BEGIN
    UPDATE store_meta SET records = records + 1,
        record_bytes = record_bytes + length(CAST(NEW.record AS BLOB)) WHERE id = 1;
END;
CREATE TRIGGER approvals_counted_update AFTER UPDATE OF record ON approvals BEGIN
    UPDATE store_meta SET record_bytes = record_bytes - length(CAST(OLD.record AS BLOB))
        + length(CAST(NEW.record AS BLOB)) WHERE id = 1;
END;
CREATE TRIGGER approvals_counted_delete AFTER DELETE ON approvals BEGIN
    UPDATE store_meta SET records = records - 1,
        record_bytes = record_bytes - length(CAST(OLD.record AS BLOB)) WHERE id = 1;
END;
";

/// A SQLite failure as a store error: a busy database is the lock timeout (after `waited`), a
/// file that is not a database or is corrupt is malformed (and left as it is), anything else is
/// I/O.
pub(super) fn sql_error(e: rusqlite::Error, waited: Duration) -> StoreError {
    match e.sqlite_error_code() {
        Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked) => {
            StoreError::Lock(LockError::Timeout {
                waited_ms: u64::try_from(waited.as_millis()).unwrap_or(u64::MAX),
            })
        }
        Some(ErrorCode::NotADatabase | ErrorCode::DatabaseCorrupt) => {
            StoreError::Malformed(format!("approvals.sqlite3: {e}"))
        }
        _ => match e {
            rusqlite::Error::FromSqlConversionFailure(..)
            | rusqlite::Error::InvalidColumnType(..)
            | rusqlite::Error::Utf8Error(..) => {
                StoreError::Malformed(format!("approvals.sqlite3: {e}"))
            }
            other => StoreError::Io(format!("approvals.sqlite3: {other}")),
        },
    }
}

/// A record's JSON text, as the store keeps it and `approvals.json` held it.
pub(super) fn record_text(record: &StoredRecord) -> Result<String, StoreError> {
    serde_json::to_string(record).map_err(|e| StoreError::Io(e.to_string()))
}

/// Parses a stored record; its ids must be the row's `(workspace_id, request_id)` (a row whose
/// text names another request is malformed, not silently someone else's).
pub(super) fn parse_record(
    text: &str,
    (workspace_id, request_id): (&str, &str),
) -> Result<StoredRecord, StoreError> {
    let record: StoredRecord = serde_json::from_str(text).map_err(|e| {
        StoreError::Malformed(format!("the record of {request_id} is not a request: {e}"))
    })?;
    if record.workspace_id != workspace_id || record.request_id != request_id {
        return Err(StoreError::Malformed(format!(
            "the row of {request_id} holds the record of {}",
            record.request_id
        )));
    }
    Ok(record)
}
