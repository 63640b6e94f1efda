//! Lazy expiry: computed by reads, persisted by a refused change, never revived by the clock.

use super::*;
use serde_json::json;

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
