//! The database under the store: counts kept by triggers, migration from `approvals.json`
//! (once, finished after a crash, refused beside another store), and what is not a store.

use serde_json::json;

use super::*;

/// After every kind of change, the kept counts equal what a full recount of the JSON form
/// gives, so the ceilings are checked against the real size without reading the records.
#[test]
fn the_kept_counts_follow_every_change() {
    let e = env();
    let s = &e.store;
    let check = |what: &str| {
        let stats = s.stats().unwrap();
        let export = s.export().unwrap();
        let v: Value = serde_json::from_slice(&export).unwrap();
        assert_eq!(stats.bytes, export.len() as u64, "{what}");
        assert_eq!(
            stats.records,
            v["records"].as_array().unwrap().len(),
            "{what}"
        );
    };
    check("empty");
    let mut ids = Vec::new();
    for i in 0..6 {
        let payload = json!({"i": i, "text": "ü".repeat(i * 7)});
        ids.push(
            s.create(Operation::WriteFile, payload, "trace")
                .unwrap()
                .request_id,
        );
        check("create");
    }
    s.approve(&ids[0]).unwrap();
    check("approve");
    s.consume(&ids[0], Operation::WriteFile).unwrap();
    check("consume");
    s.reject(&ids[1]).unwrap();
    check("reject");
    e.clock.advance(Duration::from_secs(601));
    assert_eq!(s.approve(&ids[2]).unwrap_err().code(), "REQUEST_EXPIRED");
    check("expiry persisted");
    // Every one is terminal or lazily expired by now.
    assert_eq!(s.prune(Duration::ZERO, true).unwrap().removed, 6);
    check("prune");
    let left = s
        .create(Operation::ShellRun, json!({"argv": ["ls"]}), "t")
        .unwrap();
    s.create(Operation::ShellRun, json!({"argv": ["pwd"]}), "t")
        .unwrap();
    check("create after prune");
    // A change made by another program (an operator's `sqlite3`) is counted too.
    let other = rusqlite::Connection::open(e.state.approvals_db_path()).unwrap();
    let deleted = other
        .execute(
            "DELETE FROM approvals WHERE request_id = ?1",
            [&left.request_id],
        )
        .unwrap();
    assert_eq!(deleted, 1);
    check("a row deleted by another program");
}

#[test]
fn an_approvals_json_is_migrated_once_and_kept_aside() {
    let e = env();
    let record = synthetic(&e, 7, ApprovalStatus::Approved, json!({"path": "a"}));
    let id = record.request_id.clone();
    write_store(&e, vec![record.clone()]);
    let source = std::fs::read(e.state.approvals_path()).unwrap();
    assert_eq!(
        e.store.status(&id).unwrap().unwrap().status,
        ApprovalStatus::Approved
    );
    assert!(!e.state.approvals_path().exists(), "set aside");
    let kept: Vec<_> = std::fs::read_dir(e.state.dir())
        .unwrap()
        .map(|d| d.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.starts_with("approvals.json.migrated-"))
        .collect();
    assert_eq!(kept.len(), 1, "{kept:?}");
    assert_eq!(std::fs::read(e.state.dir().join(&kept[0])).unwrap(), source);
    assert_eq!(e.store.export().unwrap(), source);
    // Another process opening the store later finds the database, migrates nothing again.
    let again = ApprovalStore::new(&e.state, e.clock.clone(), Duration::from_secs(600));
    again.consume(&id, Operation::WriteFile).unwrap();
    assert_eq!(
        e.store
            .consume(&id, Operation::WriteFile)
            .unwrap_err()
            .code(),
        "APPROVAL_CONSUMED"
    );
}

/// A crash after the database was renamed into place but before `approvals.json` was set
/// aside: the next open finishes the migration instead of refusing or importing twice.
#[test]
fn an_interrupted_migration_is_finished() {
    let e = env();
    let record = synthetic(&e, 1, ApprovalStatus::Pending, json!(null));
    write_store(&e, vec![record.clone()]);
    let source = std::fs::read(e.state.approvals_path()).unwrap();
    assert_eq!(e.store.stats().unwrap().records, 1);
    // Put the source back, as if the set-aside rename never happened.
    std::fs::write(e.state.approvals_path(), &source).unwrap();
    let reopened = ApprovalStore::new(&e.state, e.clock.clone(), Duration::from_secs(600));
    assert_eq!(reopened.stats().unwrap().records, 1);
    assert!(!e.state.approvals_path().exists());
}

/// An `approvals.json` that is not the one migrated (a restore attempt over a live store):
/// refused with a message naming both, and neither is touched.
#[test]
fn another_approvals_json_beside_the_database_is_refused() {
    let e = env();
    let id = e
        .store
        .create(Operation::WriteFile, json!({}), "t")
        .unwrap()
        .request_id;
    let other = json_form(&[synthetic(&e, 2, ApprovalStatus::Approved, json!(null))]);
    std::fs::write(e.state.approvals_path(), &other).unwrap();
    let fresh = ApprovalStore::new(&e.state, e.clock.clone(), Duration::from_secs(600));
    let err = fresh.status(&id).unwrap_err();
    assert_eq!(err.code(), "STORE_CONFLICT");
    assert!(
        err.to_string().contains("approvals.json") && err.to_string().contains("approvals.sqlite3")
    );
    assert_eq!(std::fs::read(e.state.approvals_path()).unwrap(), other);
    // The process that had the store open keeps working on it.
    assert!(e.store.status(&id).unwrap().is_some());
}

#[test]
fn a_database_that_is_not_a_store_fails_closed_and_is_left_alone() {
    for (what, bytes) in [
        (
            "not a database",
            b"this is not SQLite at all, just text".repeat(200),
        ),
        ("a truncated header", b"SQLite format 3\0".to_vec()),
    ] {
        let e = env();
        std::fs::write(e.state.approvals_db_path(), &bytes).unwrap();
        let err = e
            .store
            .create(Operation::WriteFile, json!({}), "t")
            .unwrap_err();
        assert_eq!(err.code(), "STORE_MALFORMED", "{what}: {err:?}");
        assert!(e.store.list().is_err(), "{what}");
        assert_eq!(
            std::fs::read(e.state.approvals_db_path()).unwrap(),
            bytes,
            "{what}: never reset"
        );
    }
    // A database of another program, or of a later format.
    let e = env();
    let db = rusqlite::Connection::open(e.state.approvals_db_path()).unwrap();
    db.execute_batch("CREATE TABLE unrelated (x);").unwrap();
    assert_eq!(e.store.list().unwrap_err().code(), "STORE_MALFORMED");
    db.execute_batch(schema::SCHEMA).unwrap();
    db.execute(
        "INSERT INTO store_meta (id, format, records, record_bytes) VALUES (1, 2, 0, 0)",
        [],
    )
    .unwrap();
    let fresh = ApprovalStore::new(&e.state, e.clock.clone(), Duration::from_secs(600));
    assert!(matches!(
        fresh.list().unwrap_err(),
        StoreError::UnsupportedVersion(2)
    ));
}

/// A row whose JSON names another request, or is not a request, is malformed: never read as
/// someone else's approval.
#[test]
fn a_row_that_does_not_hold_its_request_is_malformed() {
    let e = env();
    let a = e
        .store
        .create(Operation::WriteFile, json!({}), "t")
        .unwrap();
    let b = e
        .store
        .create(Operation::WriteFile, json!({}), "t")
        .unwrap();
    e.store.approve(&b.request_id).unwrap();
    let db = rusqlite::Connection::open(e.state.approvals_db_path()).unwrap();
    let b_text: String = db
        .query_row(
            "SELECT record FROM approvals WHERE request_id = ?1",
            [&b.request_id],
            |r| r.get(0),
        )
        .unwrap();
    db.execute(
        "UPDATE approvals SET record = ?1 WHERE request_id = ?2",
        (&b_text, &a.request_id),
    )
    .unwrap();
    let err = e
        .store
        .consume(&a.request_id, Operation::WriteFile)
        .unwrap_err();
    assert_eq!(err.code(), "STORE_MALFORMED");
    assert!(e.store.list().is_err());
    db.execute(
        "UPDATE approvals SET record = '{}' WHERE request_id = ?1",
        [&a.request_id],
    )
    .unwrap();
    assert_eq!(
        e.store.status(&a.request_id).unwrap_err().code(),
        "STORE_MALFORMED"
    );
}

#[test]
fn the_database_is_private_to_its_owner() {
    use std::os::unix::fs::PermissionsExt;
    let e = env();
    e.store
        .create(Operation::WriteFile, json!({}), "t")
        .unwrap();
    for suffix in ["", "-wal", "-shm"] {
        let mut path = e.state.approvals_db_path().into_os_string();
        path.push(suffix);
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600, "approvals.sqlite3{suffix}");
    }
}

/// An `approvals.json` that holds one request twice is not migrated: it is malformed, and the
/// file stays as it was.
#[test]
fn an_approvals_json_holding_a_request_twice_is_refused() {
    let e = env();
    let record = synthetic(&e, 3, ApprovalStatus::Pending, json!(null));
    let twice = json_form(&[record.clone(), record]);
    std::fs::write(e.state.approvals_path(), &twice).unwrap();
    let err = e.store.list().unwrap_err();
    assert_eq!(err.code(), "STORE_MALFORMED", "{err:?}");
    assert!(err.to_string().contains("twice"), "{err}");
    assert_eq!(std::fs::read(e.state.approvals_path()).unwrap(), twice);
    assert!(!e.state.approvals_db_path().exists());
}

/// Beside an existing database, an `approvals.json` that cannot be read is an error, not a
/// file to overlook.
#[test]
fn an_unreadable_approvals_json_beside_the_database_is_an_error() {
    let e = env();
    e.store
        .create(Operation::WriteFile, json!({}), "t")
        .unwrap();
    std::fs::create_dir(e.state.approvals_path()).unwrap();
    let fresh = ApprovalStore::new(&e.state, e.clock.clone(), Duration::from_secs(600));
    assert!(fresh.list().is_err());
}

/// The README's restore, with an export older than the store it replaces: a request
/// approved in the export and consumed since stays consumed, so its command cannot run twice;
/// a rejected one stays rejected, and what the ledger does not name comes back as exported.
#[test]
fn an_older_export_restored_cannot_revive_a_decided_request() {
    let e = env();
    let create = || {
        e.store
            .create(Operation::WriteFile, json!({"path": "a"}), "t")
            .unwrap()
            .request_id
    };
    let (used, refused, open) = (create(), create(), create());
    e.store.approve(&used).unwrap();
    e.store.approve(&open).unwrap();
    let backup = e.store.export().unwrap();
    e.store.consume(&used, Operation::WriteFile).unwrap();
    e.store.reject(&refused).unwrap();
    // Restore: ToolHub stopped, approvals.sqlite3* moved away, the export put in place.
    drop(e.store);
    for suffix in ["", "-wal", "-shm"] {
        let mut name = e.state.approvals_db_path().into_os_string();
        name.push(suffix);
        let _ = std::fs::remove_file(name);
    }
    std::fs::write(e.state.approvals_path(), &backup).unwrap();
    let restored = ApprovalStore::new(&e.state, e.clock.clone(), TTL);
    assert_eq!(
        restored
            .consume(&used, Operation::WriteFile)
            .unwrap_err()
            .code(),
        "APPROVAL_CONSUMED"
    );
    let status = |id: &str| restored.status(id).unwrap().unwrap().status;
    assert_eq!(status(&refused), ApprovalStatus::Rejected);
    assert_eq!(status(&open), ApprovalStatus::Approved);
    restored.consume(&open, Operation::WriteFile).unwrap();
}

/// The ledger survives a torn last line: it is skipped when read and cut off before the next
/// append, so two entries are never glued into one.
#[test]
fn a_torn_ledger_line_is_skipped_and_never_glued() {
    let e = env();
    let id = e
        .store
        .create(Operation::WriteFile, json!({}), "t")
        .unwrap()
        .request_id;
    let ledger = decided::path_beside(&e.state.approvals_db_path());
    std::fs::write(&ledger, b"{\"workspace_id\":\"w\",\"requ").unwrap();
    e.store.reject(&id).unwrap();
    let text = std::fs::read_to_string(&ledger).unwrap();
    assert_eq!(text.lines().count(), 1, "{text}");
    assert!(
        text.starts_with("{\"workspace_id\":\"") && text.contains(&id),
        "{text}"
    );
    let read = decided::read(&ledger).unwrap();
    assert_eq!(read.len(), 1);
    std::fs::write(&ledger, format!("{text}not json\n")).unwrap();
    assert_eq!(
        decided::read(&ledger).unwrap_err().code(),
        "STORE_MALFORMED"
    );
}
