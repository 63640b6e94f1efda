//! Requests through their lifecycle: creation, every transition, single use, ids of other workspaces, names, the lock.

use super::*;
use serde_json::json;

#[test]
fn lifecycle_write_approve_consume_once() {
    let e = env();
    let rec = e
        .store
        .create(
            Operation::WriteFile,
            json!({"path": "a.txt", "content": "x"}),
            "trace_1",
        )
        .unwrap();
    assert!(rec.request_id.starts_with("req_") && rec.request_id.len() == 36);
    assert_eq!(rec.status, ApprovalStatus::Pending);
    assert_eq!(
        rec.expires_at.unix_millis() - rec.created_at.unix_millis(),
        600_000
    );
    let v = e.store.status(&rec.request_id).unwrap().unwrap();
    assert_eq!(v.status, ApprovalStatus::Pending);
    assert_eq!(v.resume_tool, "filesystem.write_file_approved");
    assert_eq!(v.trace_id, "trace_1");
    assert!(serde_json::to_value(&v).unwrap().get("payload").is_none());
    let pending = e
        .store
        .consume(&rec.request_id, Operation::WriteFile)
        .unwrap_err();
    assert_eq!(pending.code(), "APPROVAL_PENDING");
    e.clock.advance(Duration::from_secs(5));
    let approved = e.store.approve(&rec.request_id).unwrap();
    assert_eq!(approved.status, ApprovalStatus::Approved);
    assert_eq!(approved.decided_at, Some(e.clock.now()));
    let got = e
        .store
        .consume(&rec.request_id, Operation::WriteFile)
        .unwrap();
    assert_eq!(got.status, ApprovalStatus::Consumed);
    assert_eq!(got.payload["path"], "a.txt");
    assert_eq!(got.consumed_at, Some(e.clock.now()));
    let again = e
        .store
        .consume(&rec.request_id, Operation::WriteFile)
        .unwrap_err();
    assert_eq!(again.code(), "APPROVAL_CONSUMED");
    assert_eq!(again.view().unwrap().trace_id, "trace_1");
    // Consumed stays consumed, even past expiry.
    e.clock.advance(Duration::from_secs(3600));
    assert_eq!(
        e.store.status(&rec.request_id).unwrap().unwrap().status,
        ApprovalStatus::Consumed
    );
    assert_eq!(
        e.store
            .consume(&rec.request_id, Operation::WriteFile)
            .unwrap_err()
            .code(),
        "APPROVAL_CONSUMED"
    );
}

/// Every (starting state, action) pair.
#[test]
fn transition_table() {
    #[derive(Clone, Copy, Debug)]
    enum Start {
        Pending,
        Approved,
        Rejected,
        Consumed,
        ExpiredPending,
        ExpiredApproved,
    }
    #[derive(Clone, Copy, Debug)]
    enum Act {
        Approve,
        Reject,
        Consume,
        ConsumeOtherOp,
    }
    use ApprovalStatus as S;
    let table: &[(Start, Act, Result<S, &str>, S)] = &[
        (Start::Pending, Act::Approve, Ok(S::Approved), S::Approved),
        (Start::Pending, Act::Reject, Ok(S::Rejected), S::Rejected),
        (
            Start::Pending,
            Act::Consume,
            Err("APPROVAL_PENDING"),
            S::Pending,
        ),
        (
            Start::Pending,
            Act::ConsumeOtherOp,
            Err("OPERATION_MISMATCH"),
            S::Pending,
        ),
        (
            Start::Approved,
            Act::Approve,
            Err("INVALID_TRANSITION"),
            S::Approved,
        ),
        (
            Start::Approved,
            Act::Reject,
            Err("INVALID_TRANSITION"),
            S::Approved,
        ),
        (Start::Approved, Act::Consume, Ok(S::Consumed), S::Consumed),
        (
            Start::Approved,
            Act::ConsumeOtherOp,
            Err("OPERATION_MISMATCH"),
            S::Approved,
        ),
        (
            Start::Rejected,
            Act::Approve,
            Err("INVALID_TRANSITION"),
            S::Rejected,
        ),
        (
            Start::Rejected,
            Act::Reject,
            Err("INVALID_TRANSITION"),
            S::Rejected,
        ),
        (
            Start::Rejected,
            Act::Consume,
            Err("APPROVAL_REJECTED"),
            S::Rejected,
        ),
        (
            Start::Consumed,
            Act::Approve,
            Err("INVALID_TRANSITION"),
            S::Consumed,
        ),
        (
            Start::Consumed,
            Act::Reject,
            Err("INVALID_TRANSITION"),
            S::Consumed,
        ),
        (
            Start::Consumed,
            Act::Consume,
            Err("APPROVAL_CONSUMED"),
            S::Consumed,
        ),
        (
            Start::ExpiredPending,
            Act::Approve,
            Err("REQUEST_EXPIRED"),
            S::Expired,
        ),
        (
            Start::ExpiredPending,
            Act::Reject,
            Err("REQUEST_EXPIRED"),
            S::Expired,
        ),
        (
            Start::ExpiredPending,
            Act::Consume,
            Err("APPROVAL_EXPIRED"),
            S::Expired,
        ),
        (
            Start::ExpiredApproved,
            Act::Approve,
            Err("REQUEST_EXPIRED"),
            S::Expired,
        ),
        (
            Start::ExpiredApproved,
            Act::Consume,
            Err("APPROVAL_EXPIRED"),
            S::Expired,
        ),
    ];
    for (start, act, want, after) in table {
        let e = env();
        let id = e
            .store
            .create(Operation::ApplyPatch, json!({"diff": "d"}), "tr")
            .unwrap()
            .request_id;
        match start {
            Start::Pending => {}
            Start::Approved => {
                e.store.approve(&id).unwrap();
            }
            Start::Rejected => {
                e.store.reject(&id).unwrap();
            }
            Start::Consumed => {
                e.store.approve(&id).unwrap();
                e.store.consume(&id, Operation::ApplyPatch).unwrap();
            }
            Start::ExpiredPending => e.clock.advance(TTL),
            Start::ExpiredApproved => {
                e.store.approve(&id).unwrap();
                e.clock.advance(TTL);
            }
        }
        let got: Result<S, &str> = match act {
            Act::Approve => e.store.approve(&id).map(|r| r.status).map_err(|x| x.code()),
            Act::Reject => e.store.reject(&id).map(|r| r.status).map_err(|x| x.code()),
            Act::Consume => e
                .store
                .consume(&id, Operation::ApplyPatch)
                .map(|r| r.status)
                .map_err(|x| x.code()),
            Act::ConsumeOtherOp => e
                .store
                .consume(&id, Operation::ShellRun)
                .map(|r| r.status)
                .map_err(|x| x.code()),
        };
        assert_eq!(&got, want, "{start:?} {act:?}");
        let view = e.store.status(&id).unwrap().unwrap();
        assert_eq!(view.status, *after, "{start:?} {act:?}");
    }
}

#[test]
fn unknown_and_foreign_ids_are_indistinguishable() {
    let e = env();
    let mut foreign = synthetic(&e, 1, ApprovalStatus::Approved, json!({"secret": 1}));
    foreign.workspace_id = "0".repeat(64);
    let foreign_id = foreign.request_id.clone();
    write_store(&e, vec![foreign]);
    for id in [foreign_id.as_str(), "req_doesnotexist", ""] {
        assert!(e.store.status(id).unwrap().is_none());
        assert!(e.store.get_full(id).unwrap().is_none());
        assert!(matches!(
            e.store.consume(id, Operation::WriteFile),
            Err(ConsumeError::NotFound)
        ));
        assert_eq!(e.store.approve(id).unwrap_err().code(), "REQUEST_NOT_FOUND");
        assert_eq!(e.store.reject(id).unwrap_err().code(), "REQUEST_NOT_FOUND");
    }
    assert!(e.store.list().unwrap().is_empty());
    e.clock.advance(Duration::from_secs(100_000));
    assert_eq!(e.store.prune(Duration::ZERO, true).unwrap().eligible, 0);
    assert_eq!(e.store.stats().unwrap().records, 1);
}

#[test]
fn names_are_the_stored_forms() {
    // The stored file, the operator's display and error messages use these names; serde's
    // form is what the store writes.
    for op in Operation::ALL {
        assert_eq!(serde_json::to_value(op).unwrap(), op.as_str());
    }
    let tools: Vec<_> = Operation::ALL
        .iter()
        .map(|op| (op.as_str(), op.initial_tool(), op.resume_tool()))
        .collect();
    assert_eq!(
        tools,
        [
            (
                "write_file",
                "filesystem.write_file",
                "filesystem.write_file_approved"
            ),
            (
                "apply_patch",
                "filesystem.apply_patch",
                "filesystem.apply_patch_approved"
            ),
            ("shell_run", "shell.run", "shell.run_approved"),
        ]
    );
    use ApprovalStatus::*;
    for (status, terminal) in [
        (Pending, false),
        (Approved, false),
        (Rejected, true),
        (Expired, true),
        (Consumed, true),
    ] {
        assert_eq!(serde_json::to_value(status).unwrap(), status.as_str());
        assert_eq!(status.is_terminal(), terminal, "{status:?}");
    }
    let e = StoreError::InvalidTransition { from: Approved };
    assert_eq!(e.to_string(), "request is APPROVED, not PENDING");
}

#[test]
fn lock_timeout_is_reported_and_changes_nothing() {
    let e = env();
    e.store
        .create(Operation::WriteFile, json!({}), "t")
        .unwrap();
    let before = file_bytes(&e).unwrap();
    // Another process's write transaction holds the store's write lock.
    let mut other = rusqlite::Connection::open(e.state.approvals_db_path()).unwrap();
    let held = other
        .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
        .unwrap();
    let store = e.store.clone().with_lock_timeout(Duration::from_millis(30));
    let err = store
        .create(Operation::WriteFile, json!({}), "t")
        .unwrap_err();
    assert_eq!(err.code(), "LOCK_TIMEOUT");
    let id = store.list().unwrap()[0].request_id.clone();
    assert_eq!(store.approve(&id).unwrap_err().code(), "LOCK_TIMEOUT");
    assert_eq!(
        store.consume(&id, Operation::WriteFile).unwrap_err().code(),
        "LOCK_TIMEOUT"
    );
    // Reads don't need the lock.
    assert_eq!(
        store.status(&id).unwrap().unwrap().status,
        ApprovalStatus::Pending
    );
    drop(held);
    assert_eq!(file_bytes(&e).unwrap(), before);
    store.approve(&id).unwrap();
}
