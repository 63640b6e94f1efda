//! The ceilings of 10,000 records and 16 MiB: exactly at them allowed, over them refused with nothing changed, an over-limit store still usable.

use super::*;
use serde_json::json;

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
