use super::*;
use crate::clock::{Clock, ManualClock};
use crate::jail::Workspace;
use serde_json::json;
use std::sync::Arc;

pub(super) const T0: i64 = 1_800_000_000_000;
pub(super) const TTL: Duration = Duration::from_secs(600);

pub(super) struct Env {
    _tmp: tempfile::TempDir,
    ws: std::path::PathBuf,
    pub(super) state: StateRoot,
    pub(super) clock: Arc<ManualClock>,
    pub(super) store: ApprovalStore,
}

pub(super) fn env() -> Env {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    std::fs::create_dir_all(&ws).unwrap();
    env_for(tmp, ws)
}

/// A fresh state root (in a temporary folder of its own) for `workspace`.
pub(super) fn env_for(tmp: tempfile::TempDir, ws: std::path::PathBuf) -> Env {
    let w = Workspace::open(ws.to_str().unwrap()).unwrap();
    let state = StateRoot::resolve(
        &w,
        Some(tmp.path().join("state").to_str().unwrap()),
        &|_| None,
    )
    .unwrap();
    let clock = ManualClock::shared(Timestamp::from_unix_millis(T0));
    let store = ApprovalStore::new(&state, clock.clone(), TTL);
    Env {
        _tmp: tmp,
        ws,
        state,
        clock,
        store,
    }
}

/// Another, fresh state root for `e`'s workspace (a restore target).
pub(super) fn env_sharing_workspace(e: &Env) -> Env {
    env_for(tempfile::tempdir().unwrap(), e.ws.clone())
}

/// The whole store in its JSON form: two equal snapshots mean nothing changed.
pub(super) fn file_bytes(e: &Env) -> Option<Vec<u8>> {
    e.state
        .approvals_db_path()
        .exists()
        .then(|| e.store.export().unwrap())
}

/// The JSON form of `records`, as an earlier version's `approvals.json` or an export holds it.
pub(super) fn json_form(records: &[ApprovalRecord]) -> Vec<u8> {
    let texts: Vec<String> = records
        .iter()
        .map(|r| schema::record_text(&stored::StoredRecord::from_public(r).unwrap()).unwrap())
        .collect();
    json_form::serialize(texts.iter().map(String::as_str))
}

pub(super) fn synthetic(
    e: &Env,
    i: usize,
    status: ApprovalStatus,
    payload: Value,
) -> ApprovalRecord {
    let now = Timestamp::from_unix_millis(T0);
    ApprovalRecord {
        request_id: format!("req_{i:032x}"),
        trace_id: "t".into(),
        operation: Operation::WriteFile,
        workspace_id: e.state.workspace_id().to_string(),
        status,
        payload,
        created_at: now,
        expires_at: now.saturating_add(TTL),
        decided_at: None,
        consumed_at: None,
        terminal_at: None,
    }
}

/// A store holding `records`, restored the way an operator restores one: `approvals.json` in a
/// state root without a database, migrated when the store is first used.
pub(super) fn write_store(e: &Env, records: Vec<ApprovalRecord>) {
    assert!(
        !e.state.approvals_db_path().exists(),
        "restore into a fresh root"
    );
    std::fs::write(e.state.approvals_path(), json_form(&records)).unwrap();
}

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
fn status_and_list_never_persist_lazy_expiry() {
    let e = env();
    let id = e
        .store
        .create(Operation::ShellRun, json!({"argv": ["ls"]}), "tr")
        .unwrap()
        .request_id;
    let before = file_bytes(&e).unwrap();
    e.clock.advance(TTL); // exactly at expires_at: expired
    let v = e.store.status(&id).unwrap().unwrap();
    assert_eq!(v.status, ApprovalStatus::Expired);
    assert_eq!(v.terminal_at, Some(v.expires_at));
    assert_eq!(e.store.list().unwrap()[0].status, ApprovalStatus::Expired);
    assert_eq!(
        e.store.get_full(&id).unwrap().unwrap().status,
        ApprovalStatus::Pending
    );
    let _ = e.store.prune(Duration::ZERO, false).unwrap();
    assert_eq!(file_bytes(&e).unwrap(), before, "reads changed the store");
    // One millisecond before expiry it was still pending.
    e.clock.advance(Duration::ZERO);
    e.clock.set(Timestamp::from_unix_millis(T0 + 600_000 - 1));
    assert_eq!(
        e.store.status(&id).unwrap().unwrap().status,
        ApprovalStatus::Pending
    );
}

#[test]
fn refused_mutation_persists_expiry_so_a_clock_step_back_cannot_revive() {
    let e = env();
    let id = e
        .store
        .create(Operation::WriteFile, json!({}), "tr")
        .unwrap()
        .request_id;
    e.store.approve(&id).unwrap();
    e.clock.advance(TTL + Duration::from_secs(1));
    assert_eq!(
        e.store
            .consume(&id, Operation::WriteFile)
            .unwrap_err()
            .code(),
        "APPROVAL_EXPIRED"
    );
    e.clock.set(Timestamp::from_unix_millis(T0));
    assert_eq!(
        e.store
            .consume(&id, Operation::WriteFile)
            .unwrap_err()
            .code(),
        "APPROVAL_EXPIRED"
    );
    let r = e.store.get_full(&id).unwrap().unwrap();
    assert_eq!(r.status, ApprovalStatus::Expired);
    assert_eq!(r.terminal_at, Some(r.expires_at));
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
fn record_capacity_edges() {
    let e = env();
    let recs: Vec<_> = (0..MAX_RECORDS - 1)
        .map(|i| synthetic(&e, i, ApprovalStatus::Consumed, json!(null)))
        .collect();
    write_store(&e, recs);
    // The 10,000th is accepted.
    let last = e
        .store
        .create(Operation::WriteFile, json!({}), "t")
        .unwrap();
    assert_eq!(e.store.stats().unwrap().records, MAX_RECORDS);
    // The 10,001st is refused, store byte-identical.
    let before = file_bytes(&e).unwrap();
    let err = e
        .store
        .create(Operation::WriteFile, json!({}), "t")
        .unwrap_err();
    assert_eq!(err.code(), "STORE_FULL");
    assert!(matches!(
        err,
        StoreError::Full {
            limit: CapacityLimit::Records,
            max: 10_000,
            would_be: 10_001
        }
    ));
    assert_eq!(file_bytes(&e).unwrap(), before);
    // Transitions still work at the ceiling.
    e.store.approve(&last.request_id).unwrap();
    e.store
        .consume(&last.request_id, Operation::WriteFile)
        .unwrap();
}

#[test]
fn over_limit_store_still_allows_transitions_and_pruning() {
    let e = env();
    let mut recs: Vec<_> = (0..MAX_RECORDS + 5)
        .map(|i| synthetic(&e, i, ApprovalStatus::Pending, json!(null)))
        .collect();
    for r in recs.iter_mut().skip(10) {
        r.status = ApprovalStatus::Rejected;
        r.decided_at = Some(r.created_at);
        r.terminal_at = Some(r.created_at);
    }
    let first = recs[0].request_id.clone();
    let second = recs[1].request_id.clone();
    write_store(&e, recs);
    assert_eq!(
        e.store
            .create(Operation::WriteFile, json!({}), "t")
            .unwrap_err()
            .code(),
        "STORE_FULL"
    );
    e.store.approve(&first).unwrap();
    e.store.consume(&first, Operation::WriteFile).unwrap();
    e.store.reject(&second).unwrap();
    let report = e.store.prune(Duration::ZERO, true).unwrap();
    assert_eq!(report.removed, MAX_RECORDS + 5 - 10 + 2);
    assert_eq!(report.kept, 8);
    e.store
        .create(Operation::WriteFile, json!({}), "t")
        .unwrap();
}

#[test]
fn byte_capacity_edges() {
    let e = env();
    let probe_len = |payload_len: usize| {
        let mut r = synthetic(
            &e,
            0,
            ApprovalStatus::Pending,
            json!("x".repeat(payload_len)),
        );
        r.trace_id = "t".into();
        json_form(&[r]).len()
    };
    let base = probe_len(0);
    assert_eq!(probe_len(10), base + 10);
    let fill = MAX_STORE_BYTES - base;
    // One byte too many: refused, nothing written.
    let err = e
        .store
        .create(Operation::WriteFile, json!("x".repeat(fill + 1)), "t")
        .unwrap_err();
    assert!(
        matches!(
            err,
            StoreError::Full {
                limit: CapacityLimit::Bytes,
                ..
            }
        ),
        "{err:?}"
    );
    assert_eq!(e.store.stats().unwrap().records, 0);
    // Exactly at the limit: accepted.
    e.store
        .create(Operation::WriteFile, json!("x".repeat(fill)), "t")
        .unwrap();
    assert_eq!(e.store.stats().unwrap().bytes, MAX_STORE_BYTES as u64);
    assert_eq!(e.store.export().unwrap().len(), MAX_STORE_BYTES);
    // Anything more: refused, byte-identical.
    let before = file_bytes(&e).unwrap();
    let err = e
        .store
        .create(Operation::WriteFile, json!(null), "t")
        .unwrap_err();
    assert_eq!(err.code(), "STORE_FULL");
    assert_eq!(file_bytes(&e).unwrap(), before);
}

#[test]
fn prune_edges() {
    let e = env();
    let s = &e.store;
    let rejected = s
        .create(Operation::WriteFile, json!({}), "a")
        .unwrap()
        .request_id;
    s.reject(&rejected).unwrap(); // terminal at T0
    e.clock.advance(Duration::from_millis(1));
    let consumed = s
        .create(Operation::WriteFile, json!({}), "b")
        .unwrap()
        .request_id;
    s.approve(&consumed).unwrap();
    s.consume(&consumed, Operation::WriteFile).unwrap(); // terminal at T0+1
    let expiring = s
        .create(Operation::WriteFile, json!({}), "c")
        .unwrap()
        .request_id; // expires T0+1+TTL
    let approved_expiring = s
        .create(Operation::ShellRun, json!({}), "d")
        .unwrap()
        .request_id;
    s.approve(&approved_expiring).unwrap();
    // Later: valid pending and approved requests.
    e.clock
        .set(Timestamp::from_unix_millis(T0 + 1 + 600_000 + 50_000));
    let valid_pending = s
        .create(Operation::WriteFile, json!({}), "e")
        .unwrap()
        .request_id;
    let valid_approved = s
        .create(Operation::ApplyPatch, json!({}), "f")
        .unwrap()
        .request_id;
    s.approve(&valid_approved).unwrap();
    let now = e.clock.now().unix_millis();

    // Cutoff exactly at the rejected record's terminal time: only it qualifies.
    let older = Duration::from_millis((now - T0) as u64);
    let r = s.prune(older, false).unwrap();
    assert_eq!(r.cutoff.unix_millis(), T0);
    assert_eq!(r.eligible_request_ids, vec![rejected.clone()]);
    // One millisecond later the consumed one joins; expiries (T0+1+TTL) don't yet.
    let r = s.prune(older - Duration::from_millis(1), false).unwrap();
    assert_eq!(
        r.eligible_request_ids,
        vec![rejected.clone(), consumed.clone()]
    );
    // Cutoff exactly at the expiry: the lazily expired pending and approved count.
    let to_expiry = Duration::from_millis((now - (T0 + 1 + 600_000)) as u64);
    let before = file_bytes(&e).unwrap();
    let r = s.prune(to_expiry, false).unwrap();
    assert_eq!(
        r.eligible_request_ids,
        vec![
            rejected.clone(),
            consumed.clone(),
            expiring.clone(),
            approved_expiring.clone()
        ]
    );
    assert_eq!(
        (r.total, r.eligible, r.removed, r.kept, r.applied),
        (6, 4, 0, 6, false)
    );
    assert_eq!(file_bytes(&e).unwrap(), before, "dry run changed the store");
    // Even with older_than = 0, valid pending/approved are never eligible.
    let r = s.prune(Duration::ZERO, false).unwrap();
    assert_eq!(r.eligible, 4);
    // Apply recomputes under the lock: a rejection since the dry run is included.
    s.reject(&valid_pending).unwrap();
    let r = s.prune(Duration::ZERO, true).unwrap();
    assert_eq!(
        (r.total, r.eligible, r.removed, r.kept, r.applied),
        (6, 5, 5, 1, true)
    );
    let left: Vec<_> = s
        .list()
        .unwrap()
        .into_iter()
        .map(|v| v.request_id)
        .collect();
    assert_eq!(left, vec![valid_approved.clone()]);
    // Nothing eligible: apply does not rewrite.
    let before = file_bytes(&e).unwrap();
    let r = s.prune(Duration::ZERO, true).unwrap();
    assert_eq!(r.removed, 0);
    assert_eq!(file_bytes(&e).unwrap(), before);
    // Huge older_than saturates instead of panicking.
    assert_eq!(s.prune(Duration::MAX, true).unwrap().eligible, 0);
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
fn lazy_expiry_and_the_terminal_time_of_each_state() {
    let e = env();
    let t = |ms: i64| Timestamp::from_unix_millis(T0 + ms);
    let expires = t(600_000);
    let record = |status: ApprovalStatus| ApprovalRecord {
        decided_at: Some(t(10)),
        consumed_at: Some(t(20)),
        ..synthetic(&e, 0, status, json!({}))
    };
    use ApprovalStatus::*;
    for status in [Pending, Approved] {
        let r = record(status);
        assert!(!r.is_lazily_expired(t(599_999)), "{status:?} before expiry");
        assert_eq!(r.effective_status(t(599_999)), status);
        assert_eq!(r.effective_terminal_at(t(599_999)), None);
        assert!(r.is_lazily_expired(expires), "{status:?} at expiry");
        assert_eq!(r.effective_status(expires), Expired);
        assert_eq!(r.effective_terminal_at(t(700_000)), Some(expires));
    }
    // A terminal record never expires lazily, and keeps its own terminal time.
    for (status, at) in [(Rejected, t(10)), (Consumed, t(20)), (Expired, expires)] {
        let r = record(status);
        assert!(!r.is_lazily_expired(t(700_000)), "{status:?}");
        assert_eq!(r.effective_status(t(700_000)), status);
        assert_eq!(r.effective_terminal_at(t(700_000)), Some(at), "{status:?}");
        let stamped = ApprovalRecord {
            terminal_at: Some(t(30)),
            ..record(status)
        };
        assert_eq!(stamped.effective_terminal_at(t(700_000)), Some(t(30)));
    }
}

#[test]
fn pruning_nothing_writes_nothing() {
    let e = env();
    let report = e.store.prune(Duration::ZERO, true).unwrap();
    assert_eq!((report.total, report.eligible, report.removed), (0, 0, 0));
    e.store
        .create(Operation::WriteFile, json!({}), "t")
        .unwrap();
    let files = || {
        ["", "-wal"].map(|suffix| {
            let mut path = e.state.approvals_db_path().into_os_string();
            path.push(suffix);
            std::fs::read(path).unwrap()
        })
    };
    let before = files();
    assert_eq!(e.store.prune(Duration::ZERO, true).unwrap().removed, 0);
    assert!(before == files(), "the database or its log was written");
}

#[test]
fn a_full_store_says_which_limit_in_words() {
    let e = StoreError::Full {
        limit: CapacityLimit::Records,
        max: 10_000,
        would_be: 10_001,
    };
    assert_eq!(
        e.to_string(),
        "approval store is full: records would be 10001, the limit is 10000; prune old requests"
    );
    assert_eq!(CapacityLimit::Bytes.as_str(), "bytes");
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
