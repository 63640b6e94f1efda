//! The store's JSON form: its shape, the export and restore, and what a file to migrate may not be.

use super::*;
use serde_json::json;

#[test]
fn malformed_store_fails_closed_and_is_never_reset() {
    let e = env();
    for bad in [
        &b"{not json"[..],
        b"",
        b"[]",
        b"{\"version\":1}",
        b"{\"version\":1,\"records\":[{}]}",
    ] {
        std::fs::write(e.state.approvals_path(), bad).unwrap();
        let err = e
            .store
            .create(Operation::WriteFile, json!({}), "t")
            .unwrap_err();
        assert_eq!(
            err.code(),
            "STORE_MALFORMED",
            "{:?}",
            String::from_utf8_lossy(bad)
        );
        assert!(e.store.list().is_err());
        assert!(e.store.prune(Duration::ZERO, true).is_err());
        assert_eq!(std::fs::read(e.state.approvals_path()).unwrap(), bad);
        assert!(!e.state.approvals_db_path().exists(), "no store made of it");
    }
    std::fs::write(e.state.approvals_path(), b"{\"version\":2,\"records\":[]}").unwrap();
    let err = e
        .store
        .create(Operation::WriteFile, json!({}), "t")
        .unwrap_err();
    assert_eq!(err.code(), "STORE_UNSUPPORTED_VERSION");
}

#[test]
fn serialized_shape() {
    let e = env();
    let rec = e
        .store
        .create(
            Operation::ShellRun,
            json!({"argv": ["git", "status"]}),
            "tr",
        )
        .unwrap();
    let v: Value = serde_json::from_slice(&file_bytes(&e).unwrap()).unwrap();
    assert_eq!(v["version"], 1);
    let r = &v["records"][0];
    assert_eq!(r["request_id"], rec.request_id.as_str());
    assert_eq!(r["operation"], "shell_run");
    assert_eq!(r["status"], "PENDING");
    assert_eq!(r["created_at"], "2027-01-15T08:00:00.000Z");
    assert_eq!(r["expires_at"], "2027-01-15T08:10:00.000Z");
    assert_eq!(r["workspace_id"], e.state.workspace_id());
    assert!(r["decided_at"].is_null());
    for op in Operation::ALL {
        assert!(op.resume_tool().starts_with(op.initial_tool()));
    }
}

#[test]
fn the_export_is_the_json_form_and_restores_byte_for_byte() {
    let e = env();
    for i in 0..3 {
        e.store
            .create(
                Operation::WriteFile,
                json!({"i": i, "nested": {"b": 1, "a": "é"}}),
                "t",
            )
            .unwrap();
    }
    let id = e.store.list().unwrap()[1].request_id.clone();
    e.store.approve(&id).unwrap();
    let bytes = e.store.export().unwrap();
    assert_eq!(e.store.stats().unwrap().bytes, bytes.len() as u64);
    let v: Value = serde_json::from_slice(&bytes).unwrap();
    assert_eq!(v["records"].as_array().unwrap().len(), 3);
    assert!(bytes.ends_with(b"]}\n"));
    // Restored into a fresh root of the same workspace: the same store, byte for byte.
    let restored = env_sharing_workspace(&e);
    std::fs::write(restored.state.approvals_path(), &bytes).unwrap();
    assert_eq!(restored.store.export().unwrap(), bytes);
    assert_eq!(
        restored.store.status(&id).unwrap().unwrap().status,
        ApprovalStatus::Approved
    );
    // Payload key order is preserved.
    let full = restored.store.get_full(&id).unwrap().unwrap();
    let keys: Vec<_> = full.payload["nested"]
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect();
    assert_eq!(keys, ["b", "a"]);
}

#[test]
fn an_unreadable_store_is_an_error_and_an_unknown_version_is_named() {
    let e = env();
    // A store that cannot be read is not an empty store (that would forget every approval):
    // here the `approvals.json` to migrate is a folder.
    std::fs::create_dir(e.state.approvals_path()).unwrap();
    assert!(
        e.store
            .status("req_00000000000000000000000000000000")
            .is_err()
    );
    std::fs::remove_dir(e.state.approvals_path()).unwrap();
    // A later version in a shape this one cannot read is reported as that version.
    std::fs::write(
        e.state.approvals_path(),
        br#"{"version":2,"records":{"new":"shape"}}"#,
    )
    .unwrap();
    let err = e
        .store
        .status("req_00000000000000000000000000000000")
        .unwrap_err();
    assert!(matches!(err, StoreError::UnsupportedVersion(2)), "{err:?}");
}
