//! Creating the database: empty, or from an existing `approvals.json` (the format of earlier
//! versions, and the form an export writes), once and atomically.
//!
//! The new database is built under a temporary name, made durable and renamed into place;
//! then `approvals.json` is renamed to `approvals.json.migrated-<digest>` (kept for the
//! operator, never deleted). The database remembers the SHA-256 of the file it was built from, so a crash
//! between the two renames is finished at the next open, while an `approvals.json` that
//! appears later beside the database (a restore attempt, a stray copy) is refused with a
//! message instead of being merged or ignored. A malformed or unknown-version file is refused
//! and left untouched; no database is created from it.

use std::fs::File;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use rusqlite::{Connection, OptionalExtension};

use super::schema::{SCHEMA, record_text, sql_error};
use super::{STORE_VERSION, StoreError, decided, json_form};
use crate::digest::sha256_hex;
use crate::fsio::{DEFAULT_LOCK_TIMEOUT, temp_beside};

/// Where a migrated `approvals.json` of SHA-256 `digest` is kept:
/// `approvals.json.migrated-<first 16 hex digits>`, so a later migration (after a restore)
/// never replaces the copy an earlier one kept.
pub(super) fn migrated_path(json: &Path, digest: &str) -> PathBuf {
    let mut name = json.as_os_str().to_owned();
    name.push(format!(".migrated-{}", digest.get(..16).unwrap_or(digest)));
    PathBuf::from(name)
}

/// Creates the database at `db` (which does not exist; the caller holds the store's lock),
/// holding the records of `json` if that file exists.
pub(super) fn create(db: &Path, json: &Path) -> Result<(), StoreError> {
    let source = match std::fs::read(json) {
        Ok(bytes) => Some(bytes),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(e.into()),
    };
    let mut records = match &source {
        Some(bytes) => json_form::parse(bytes)?,
        None => Vec::new(),
    };
    // An import never revives a decided request (the ledger outlives the database).
    decided::apply(&mut records, &decided::read(&decided::path_beside(db))?);
    let (dir, tmp) = temp_beside(db, &crate::ids::random_hex(8)?)?;
    let built = (|| {
        let sql = |e| sql_error(e, DEFAULT_LOCK_TIMEOUT);
        // Created here, private (0600), so the database and the `-wal` and `-shm` files
        // SQLite makes with the same mode are readable only by their owner.
        std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&tmp)?;
        let mut conn = Connection::open(&tmp).map_err(sql)?;
        conn.execute_batch(SCHEMA).map_err(sql)?;
        let tx = conn.transaction().map_err(sql)?;
        tx.execute(
            "INSERT INTO store_meta (id, format, records, record_bytes, migrated_from) \
             VALUES (1, ?1, 0, 0, ?2)",
            (STORE_VERSION, source.as_deref().map(sha256_hex)),
        )
        .map_err(sql)?;
        {
            let mut insert = tx
                .prepare(
                    "INSERT INTO approvals (workspace_id, request_id, record) VALUES (?1, ?2, ?3)",
                )
                .map_err(sql)?;
            for record in &records {
                insert
                    .execute((
                        &record.workspace_id,
                        &record.request_id,
                        record_text(record)?,
                    ))
                    .map_err(|e| match e.sqlite_error_code() {
                        Some(rusqlite::ErrorCode::ConstraintViolation) => StoreError::Malformed(
                            format!("approvals.json holds request {} twice", record.request_id),
                        ),
                        _ => sql(e),
                    })?;
            }
        }
        tx.commit().map_err(sql)?;
        conn.close().map_err(|(_, e)| sql(e))?;
        File::open(&tmp)?.sync_all()?;
        std::fs::rename(&tmp, db)?;
        File::open(dir)?.sync_all()?;
        Ok::<(), StoreError>(())
    })();
    if let Err(e) = built {
        let _ = std::fs::remove_file(&tmp);
        return Err(e);
    }
    if let Some(bytes) = &source {
        set_aside(json, &sha256_hex(bytes), dir)?;
    }
    Ok(())
}

/// `approvals.json` exists beside an open database: the rest of an interrupted migration when
/// it is the file the database was built from, refused otherwise.
pub(super) fn finish(conn: &Connection, json: &Path) -> Result<(), StoreError> {
    let bytes = match std::fs::read(json) {
        Ok(bytes) => bytes,
        // Set aside by another process meanwhile.
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e.into()),
    };
    let from: Option<String> = conn
        .query_row(
            "SELECT migrated_from FROM store_meta WHERE id = 1",
            [],
            |r| r.get(0),
        )
        .optional()
        .map_err(|e| sql_error(e, DEFAULT_LOCK_TIMEOUT))?
        .flatten();
    let digest = sha256_hex(&bytes);
    if from.as_deref() == Some(digest.as_str()) {
        let dir = json.parent().unwrap_or(Path::new("."));
        return set_aside(json, &digest, dir);
    }
    Err(StoreError::Conflict(
        "approvals.json is beside approvals.sqlite3 and is not the file the store was migrated \
         from; ToolHub never merges two stores: move approvals.json away, or, to restore it, \
         stop ToolHub and move approvals.sqlite3* away"
            .into(),
    ))
}

/// Renames the migrated `approvals.json` out of the way, durably.
fn set_aside(json: &Path, digest: &str, dir: &Path) -> Result<(), StoreError> {
    std::fs::rename(json, migrated_path(json, digest))?;
    File::open(dir)?.sync_all()?;
    Ok(())
}
