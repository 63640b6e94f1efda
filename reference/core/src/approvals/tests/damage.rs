//! What the store does with what other programs did to it: a symlinked or
//! foreign database file, a 0-byte one, a damaged record, a write lock held elsewhere.

use serde_json::json;

use super::*;

fn db_file(e: &Env, suffix: &str) -> std::path::PathBuf {
    db_path(&e.state, suffix)
}

fn db_path(state: &StateRoot, suffix: &str) -> std::path::PathBuf {
    let mut name = state.approvals_db_path().into_os_string();
    name.push(suffix);
    name.into()
}

/// A symlink in place of the database or its `-wal`/`-shm` is refused before SQLite opens
/// anything, and what the link points at is not touched.
#[test]
fn a_symlinked_database_or_log_is_refused_and_its_target_untouched() {
    for suffix in ["", "-wal", "-shm"] {
        let e = env();
        e.store.stats().unwrap();
        drop(e.store);
        let elsewhere = e.ws.join(format!("elsewhere{suffix}"));
        let link = db_path(&e.state, suffix);
        if link.exists() {
            std::fs::rename(&link, &elsewhere).unwrap();
        } else {
            std::fs::write(&elsewhere, b"").unwrap();
        }
        let before = std::fs::read(&elsewhere).unwrap();
        std::os::unix::fs::symlink(&elsewhere, &link).unwrap();
        let store = ApprovalStore::new(&e.state, e.clock.clone(), TTL);
        let err = store.stats().unwrap_err();
        assert_eq!(err.code(), "STORE_MALFORMED", "{suffix}: {err}");
        assert!(err.to_string().contains("symbolic link"), "{suffix}: {err}");
        assert_eq!(std::fs::read(&elsewhere).unwrap(), before, "{suffix}");
    }
}

/// A 0-byte (or any non-SQLite) database file is refused and left byte for byte as it was.
#[test]
fn a_database_file_that_is_not_sqlite_is_refused_without_a_write() {
    for content in [
        &b""[..],
        b"not a database at all, but long enough",
        b"SQLite",
    ] {
        let e = env();
        std::fs::create_dir_all(e.state.dir()).unwrap();
        std::fs::write(e.state.approvals_db_path(), content).unwrap();
        let err = e.store.stats().unwrap_err();
        assert_eq!(err.code(), "STORE_MALFORMED", "{err}");
        assert!(err.to_string().contains("not a SQLite database"), "{err}");
        assert_eq!(std::fs::read(e.state.approvals_db_path()).unwrap(), content);
        assert!(!db_file(&e, "-wal").exists() && !db_file(&e, "-shm").exists());
    }
}

/// One damaged record: the server's calls on it fail closed as malformed; the operator's
/// readable listing, export and prune show the rest and name it; removing it leaves a store
/// whose every call works again, and the damaged request unknown.
#[test]
fn a_damaged_record_is_malformed_named_and_removable() {
    let e = env();
    let create = || {
        e.store
            .create(Operation::WriteFile, json!({"path": "a"}), "t")
            .unwrap()
            .request_id
    };
    let (good, bad, blob, bytes) = (create(), create(), create(), create());
    let other = rusqlite::Connection::open(e.state.approvals_db_path()).unwrap();
    other
        .execute(
            "UPDATE approvals SET record = '{\"request_id\": tru' WHERE request_id = ?1",
            [&bad],
        )
        .unwrap();
    other
        .execute(
            "UPDATE approvals SET record = x'00ff' WHERE request_id = ?1",
            [&blob],
        )
        .unwrap();
    other
        .execute(
            "UPDATE approvals SET record = CAST(x'7bff7d' AS TEXT) WHERE request_id = ?1",
            [&bytes],
        )
        .unwrap();
    drop(other);
    assert_eq!(
        e.store.status(&bytes).unwrap_err().code(),
        "STORE_MALFORMED"
    );
    assert_eq!(e.store.status(&bad).unwrap_err().code(), "STORE_MALFORMED");
    assert_eq!(
        e.store
            .consume(&blob, Operation::WriteFile)
            .unwrap_err()
            .code(),
        "STORE_MALFORMED"
    );
    assert_eq!(e.store.list().unwrap_err().code(), "STORE_MALFORMED");
    let (views, damaged) = e.store.list_readable().unwrap();
    assert_eq!(
        views.iter().map(|v| &v.request_id).collect::<Vec<_>>(),
        [&good]
    );
    let named: Vec<&String> = damaged.iter().map(|d| &d.request_id).collect();
    assert_eq!(named, [&bad, &blob, &bytes]);
    assert!(damaged[1].reason.contains("not text"), "{damaged:?}");
    let (export, left_out) = e.store.export_readable().unwrap();
    assert_eq!(left_out, damaged);
    let v: Value = serde_json::from_slice(&export).unwrap();
    assert_eq!(v["records"].as_array().unwrap().len(), 1);
    let report = e.store.prune(Duration::ZERO, false).unwrap();
    assert_eq!((report.total, report.damaged.len()), (4, 3));
    assert_eq!(e.store.remove_damaged(false).unwrap(), damaged);
    assert_eq!(e.store.list_readable().unwrap().1.len(), 3, "a dry run");
    assert_eq!(e.store.remove_damaged(true).unwrap(), damaged);
    assert_eq!(e.store.list().unwrap().len(), 1);
    assert!(e.store.status(&bad).unwrap().is_none());
    assert_eq!(
        e.store
            .consume(&blob, Operation::WriteFile)
            .unwrap_err()
            .code(),
        "REQUEST_NOT_FOUND"
    );
}

/// Another process holding the store's write lock: each call of this process waits at most
/// its own lock timeout, side by side (not one after the other), and a read does not wait at
/// all: it answers while the writers still wait.
#[test]
fn a_foreign_write_lock_holds_each_call_only_its_own_deadline() {
    let e = env();
    let known = e
        .store
        .create(Operation::WriteFile, json!({}), "t")
        .unwrap()
        .request_id;
    let timeout = Duration::from_millis(600);
    let store = ApprovalStore::new(&e.state, e.clock.clone(), TTL).with_lock_timeout(timeout);
    let holder = rusqlite::Connection::open(e.state.approvals_db_path()).unwrap();
    holder.execute_batch("BEGIN IMMEDIATE").unwrap();
    let (tx, rx) = std::sync::mpsc::channel::<(&str, Result<(), String>)>();
    let started = std::time::Instant::now();
    std::thread::scope(|scope| {
        for _ in 0..3 {
            let (store, tx) = (store.clone(), tx.clone());
            scope.spawn(move || {
                let r = store.create(Operation::WriteFile, json!({}), "t");
                let _ = tx.send(("write", r.map(|_| ()).map_err(|e| e.code().to_owned())));
            });
        }
        let (store, reader_tx, known) = (store.clone(), tx.clone(), known.clone());
        scope.spawn(move || {
            // Started after the writers, so it finds them waiting.
            let r = store.status(&known);
            let _ = reader_tx.send(("read", r.map(|_| ()).map_err(|e| e.code().to_owned())));
        });
        drop(tx);
        let order: Vec<(&str, Result<(), String>)> = rx.iter().collect();
        assert_eq!(order[0], ("read", Ok(())), "{order:?}");
        for (what, r) in &order[1..] {
            assert_eq!(
                (*what, r.as_ref().map_err(String::as_str)),
                ("write", Err("LOCK_TIMEOUT"))
            );
        }
    });
    // Queued, the three would take three timeouts; side by side they take about one.
    let took = started.elapsed();
    assert!(took < timeout * 2, "{took:?}");
    holder.execute_batch("ROLLBACK").unwrap();
}
