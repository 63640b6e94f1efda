//! The store's database, `approvals.sqlite3` in the state root: opened once per process,
//! created (or migrated from `approvals.json`) under the store's file lock, checked before use.
//!
//! Why SQLite: every change is one transaction that costs one durable append to the
//! write-ahead log (`journal_mode=WAL`, `synchronous=FULL`), whatever the number of records,
//! and the library brings the two properties the store rests on, tested far beyond what this
//! project could test: a commit survives a crash or is absent as a whole, and `BEGIN IMMEDIATE`
//! serializes writers across processes. Each record is kept as the same JSON text
//! `approvals.json` held, so the serialized store the document's byte ceiling speaks of is the
//! records' texts joined ([`super::json_form`]); triggers keep the record count and the texts'
//! total size in `store_meta` in the same transaction as every change, including changes made
//! by other programs (an operator's `sqlite3`), so the ceilings are checked without reading a
//! record.

use std::path::Path;

use rusqlite::{Connection, OpenFlags, OptionalExtension, Transaction, TransactionBehavior};

use super::schema::{parse_record, record_text, sql_error};
use super::stored::StoredRecord;
use super::{ApprovalStore, STORE_VERSION, StoreError, migrate};
use crate::fsio::FileLock;

/// The record count and the total size of the records' JSON texts.
#[derive(Debug, Clone, Copy)]
pub(super) struct Counts {
    pub(super) records: u64,
    pub(super) record_bytes: u64,
}

/// One row as read, damaged or not.
pub(super) struct RawRow {
    pub(super) seq: i64,
    pub(super) workspace_id: String,
    pub(super) request_id: String,
    /// The record and its stored text, or why the row holds no usable record.
    pub(super) parsed: Result<(StoredRecord, String), String>,
}

impl RawRow {
    /// The row's record, or (`Err`) the row as the operator's tools name a damaged one.
    pub(super) fn split(self) -> Result<(StoredRecord, String), super::DamagedRecord> {
        self.parsed.map_err(|reason| super::DamagedRecord {
            request_id: self.request_id,
            workspace_id: self.workspace_id,
            reason,
        })
    }
}

/// A key column as text, whatever it holds (a damaged row is still named).
fn shown(value: rusqlite::types::ValueRef<'_>) -> String {
    use rusqlite::types::ValueRef;
    match value {
        ValueRef::Text(t) | ValueRef::Blob(t) => String::from_utf8_lossy(t).into_owned(),
        ValueRef::Integer(i) => i.to_string(),
        ValueRef::Real(r) => r.to_string(),
        ValueRef::Null => "(null)".into(),
    }
}

/// A record column's text, or what it holds instead (a blob, a number, invalid UTF-8).
fn record_text_of(value: rusqlite::types::ValueRef<'_>) -> Result<String, String> {
    use rusqlite::types::ValueRef;
    match value {
        ValueRef::Text(t) => {
            String::from_utf8(t.to_vec()).map_err(|_| "text that is not UTF-8".to_owned())
        }
        other => Err(format!("{:?}", other.data_type())),
    }
}

/// One stored row: its position in creation order and its record.
pub(super) struct Row {
    pub(super) seq: i64,
    pub(super) record: StoredRecord,
}

impl ApprovalStore {
    /// Runs `f` on a connection of this process's pool, opening one (and if need be creating
    /// or migrating the database first) when none is free. Each call has a connection of its
    /// own, so a call waiting for the write lock another process holds (up to its own lock
    /// timeout) never holds up the calls after it, and reads (WAL snapshots) never wait.
    pub(super) fn with_db<T, E: From<StoreError>>(
        &self,
        f: impl FnOnce(&mut Connection) -> Result<T, E>,
    ) -> Result<T, E> {
        let pooled = self.db.lock().unwrap_or_else(|p| p.into_inner()).pop();
        let mut conn = match pooled {
            Some(conn) => conn,
            None => self.open()?,
        };
        conn.busy_timeout(self.lock_timeout)
            .map_err(|e| self.sql(e))?;
        let out = f(&mut conn);
        // A panic inside `f` drops the connection (rolling its transaction back); one that
        // returned goes back to the pool for the next call.
        self.db.lock().unwrap_or_else(|p| p.into_inner()).push(conn);
        out
    }

    /// A write transaction: `BEGIN IMMEDIATE` takes the store's write lock up front (waiting
    /// up to the lock timeout), so a read-check-write sequence is atomic across processes.
    pub(super) fn write<'c>(
        &self,
        conn: &'c mut Connection,
    ) -> Result<Transaction<'c>, StoreError> {
        conn.transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(|e| self.sql(e))
    }

    /// A read transaction: one consistent snapshot, never blocked by a writer.
    pub(super) fn read<'c>(&self, conn: &'c mut Connection) -> Result<Transaction<'c>, StoreError> {
        conn.transaction_with_behavior(TransactionBehavior::Deferred)
            .map_err(|e| self.sql(e))
    }

    /// The record of `request_id` in this workspace, if any.
    pub(super) fn find(
        &self,
        tx: &Transaction<'_>,
        request_id: &str,
    ) -> Result<Option<Row>, StoreError> {
        let found: Option<(i64, String)> = tx
            .query_row(
                "SELECT seq, record FROM approvals WHERE workspace_id = ?1 AND request_id = ?2",
                (&self.workspace_id, request_id),
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()
            .map_err(|e| self.sql(e))?;
        found
            .map(|(seq, text)| {
                let record = parse_record(&text, (&self.workspace_id, request_id))?;
                Ok(Row { seq, record })
            })
            .transpose()
    }

    /// Replaces the record of row `seq` (the triggers adjust the byte count).
    pub(super) fn update(
        &self,
        tx: &Transaction<'_>,
        seq: i64,
        record: &StoredRecord,
    ) -> Result<(), StoreError> {
        let text = record_text(record)?;
        tx.execute(
            "UPDATE approvals SET record = ?1 WHERE seq = ?2",
            (&text, seq),
        )
        .map_err(|e| self.sql(e))?;
        Ok(())
    }

    /// The store's counts, read from `store_meta` (kept by the triggers).
    pub(super) fn counts(&self, tx: &Transaction<'_>) -> Result<Counts, StoreError> {
        let (records, record_bytes): (i64, i64) = tx
            .query_row(
                "SELECT records, record_bytes FROM store_meta WHERE id = 1",
                [],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .map_err(|e| self.sql(e))?;
        match (u64::try_from(records), u64::try_from(record_bytes)) {
            (Ok(records), Ok(record_bytes)) => Ok(Counts {
                records,
                record_bytes,
            }),
            _ => Err(StoreError::Malformed(format!(
                "store_meta counts are negative ({records} records, {record_bytes} bytes)"
            ))),
        }
    }

    /// Every record, in creation order, with its stored text; the first damaged one fails
    /// the whole read ([`StoreError::Malformed`]).
    pub(super) fn all(
        &self,
        tx: &Transaction<'_>,
    ) -> Result<Vec<(i64, StoredRecord, String)>, StoreError> {
        self.rows(tx)?
            .into_iter()
            .map(|row| match row.parsed {
                Ok((record, text)) => Ok((row.seq, record, text)),
                Err(reason) => Err(StoreError::Malformed(reason)),
            })
            .collect()
    }

    /// Every row, in creation order: its record and stored text, or why it is damaged (a
    /// record that is not text, not a request, or another request's), so the operator's
    /// tools can show and deal with the rest.
    pub(super) fn rows(&self, tx: &Transaction<'_>) -> Result<Vec<RawRow>, StoreError> {
        let mut stmt = tx
            .prepare("SELECT seq, workspace_id, request_id, record FROM approvals ORDER BY seq")
            .map_err(|e| self.sql(e))?;
        let rows = stmt
            .query_map([], |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    shown(r.get_ref(1)?),
                    shown(r.get_ref(2)?),
                    record_text_of(r.get_ref(3)?),
                ))
            })
            .map_err(|e| self.sql(e))?;
        let mut out = Vec::new();
        for row in rows {
            let (seq, workspace_id, request_id, record) = row.map_err(|e| self.sql(e))?;
            let parsed = record
                .map_err(|what| format!("the record of {request_id} is not text ({what})"))
                .and_then(|text| {
                    parse_record(&text, (&workspace_id, &request_id))
                        .map(|record| (record, text))
                        .map_err(|e| match e {
                            StoreError::Malformed(reason) => reason,
                            other => other.to_string(),
                        })
                });
            out.push(RawRow {
                seq,
                workspace_id,
                request_id,
                parsed,
            });
        }
        Ok(out)
    }

    /// Opens the database; creates it first (from `approvals.json` if there is one) when it
    /// does not exist yet, under the store's file lock so two processes never both create it.
    fn open(&self) -> Result<Connection, StoreError> {
        if !exists(&self.path)? {
            let _lock = FileLock::acquire(&self.lock_path, self.lock_timeout)?;
            if !exists(&self.path)? {
                migrate::create(&self.path, &self.json_path)?;
            }
        }
        check_files(&self.path)?;
        // No CREATE flag: a database that vanished is an error, never a new empty store; no
        // symlink either (checked above, and again by SQLite as it opens).
        let conn = Connection::open_with_flags(
            &self.path,
            OpenFlags::SQLITE_OPEN_READ_WRITE
                | OpenFlags::SQLITE_OPEN_NO_MUTEX
                | OpenFlags::SQLITE_OPEN_NOFOLLOW,
        )
        .map_err(|e| self.sql(e))?;
        conn.busy_timeout(self.lock_timeout)
            .map_err(|e| self.sql(e))?;
        let mode: String = conn
            .query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))
            .map_err(|e| self.sql(e))?;
        if !mode.eq_ignore_ascii_case("wal") {
            return Err(StoreError::Io(format!(
                "the store cannot use a write-ahead log (journal mode {mode})"
            )));
        }
        conn.execute_batch("PRAGMA synchronous = FULL;")
            .map_err(|e| self.sql(e))?;
        let format: Option<i64> = conn
            .query_row("SELECT format FROM store_meta WHERE id = 1", [], |r| {
                r.get(0)
            })
            .optional()
            .map_err(|e| match self.sql(e) {
                // No such table or column: a database, but not a store.
                StoreError::Io(reason) => {
                    StoreError::Malformed(format!("not an approval store ({reason})"))
                }
                other => other,
            })?;
        match format {
            Some(f) if f == i64::from(STORE_VERSION) => {}
            Some(f) => {
                return Err(StoreError::UnsupportedVersion(
                    u64::try_from(f).unwrap_or(0),
                ));
            }
            None => {
                return Err(StoreError::Malformed(
                    "approvals.sqlite3 has no store_meta row".into(),
                ));
            }
        }
        if exists(&self.json_path)? {
            let _lock = FileLock::acquire(&self.lock_path, self.lock_timeout)?;
            migrate::finish(&conn, &self.json_path)?;
        }
        Ok(conn)
    }

    /// A SQLite failure as a store error ([`sql_error`] with this store's lock timeout).
    pub(super) fn sql(&self, e: rusqlite::Error) -> StoreError {
        sql_error(e, self.lock_timeout)
    }
}

/// The first bytes of every SQLite database file.
const SQLITE_HEADER: &[u8; 16] = b"SQLite format 3\0";

/// Refuses, before SQLite opens (and would write to) anything: a database, `-wal` or `-shm`
/// that is not a regular file (a symlink, a directory, a device) or not this user's, and a
/// database file that is not a SQLite database (a 0-byte file included, which SQLite would
/// otherwise turn into an empty database). The store is left exactly as it is.
fn check_files(db: &Path) -> Result<(), StoreError> {
    use std::io::Read;
    use std::os::unix::fs::MetadataExt;
    let uid = nix::unistd::geteuid().as_raw();
    for suffix in ["", "-wal", "-shm"] {
        let mut name = db.as_os_str().to_owned();
        name.push(suffix);
        let path = Path::new(&name);
        let meta = match std::fs::symlink_metadata(path) {
            Ok(meta) => meta,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && !suffix.is_empty() => continue,
            Err(e) => return Err(e.into()),
        };
        let shown = path.display();
        if meta.file_type().is_symlink() {
            return Err(StoreError::Malformed(format!(
                "{shown} is a symbolic link; the store opens only a regular file of its own \
                 (replace the link with the file it points to, or restore from an export)"
            )));
        }
        if !meta.file_type().is_file() {
            return Err(StoreError::Malformed(format!(
                "{shown} is not a regular file"
            )));
        }
        if meta.uid() != uid {
            return Err(StoreError::Malformed(format!(
                "{shown} belongs to user {} and ToolHub runs as user {uid}; the store opens \
                 only a file of its own",
                meta.uid()
            )));
        }
    }
    let mut header = [0u8; 16];
    let read = std::fs::File::open(db)?.take(16).read(&mut header)?;
    if read < header.len() || &header != SQLITE_HEADER {
        return Err(StoreError::Malformed(format!(
            "{} is not a SQLite database ({read} bytes of header); it is left as it is \
             (restore the store from an export)",
            db.display()
        )));
    }
    Ok(())
}

/// Whether `path` exists (a permission error is an error, not "absent": an unreadable store is
/// not an empty one).
fn exists(path: &Path) -> Result<bool, StoreError> {
    match std::fs::symlink_metadata(path) {
        Ok(_) => Ok(true),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(e.into()),
    }
}
