//! Explicit pruning: which records are eligible at the cutoff, dry runs, and an apply that removes nothing writes nothing.

use super::*;
use serde_json::json;

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
