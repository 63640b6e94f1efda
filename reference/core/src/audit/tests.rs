use super::*;
use crate::clock::ManualClock;
use serde_json::json;
use std::fs::OpenOptions;
use std::io::Write;
use std::sync::Arc;

struct Env {
    _tmp: tempfile::TempDir,
    state: StateRoot,
    clock: Arc<ManualClock>,
    log: AuditLog,
}

fn env() -> Env {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    std::fs::create_dir_all(&ws).unwrap();
    let state = crate::state::test_root(tmp.path(), &ws);
    let clock = ManualClock::shared(Timestamp::from_unix_millis(1_800_000_000_000));
    let log = AuditLog::new(&state, clock.clone());
    Env {
        _tmp: tmp,
        state,
        clock,
        log,
    }
}

fn append_n(e: &Env, n: usize) {
    for i in 0..n {
        e.log
            .append(&AuditEvent::new(
                "tool.call",
                "toolhub.ping",
                format!("trace_{i}"),
            ))
            .unwrap();
        e.clock.advance(Duration::from_millis(1));
    }
}

fn traces(v: &[Value]) -> Vec<String> {
    v.iter()
        .map(|e| e["trace_id"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn append_writes_one_bounded_redacted_line() {
    let e = env();
    let long = "é".repeat(2000);
    let line = e
        .log
        .append(
            &AuditEvent::new("approval.created", "filesystem.write_file", "trace_1")
                .request_id("req_1")
                .outcome("APPROVAL_REQUIRED")
                .details(json!({
                    "path": "notes.txt",
                    "api_token": "SENTINEL-1",
                    "argv": ["curl", "-H", "Authorization: Bearer SENTINEL2abcdefgh"],
                    "long": long,
                    "deep": {"a": {"b": {"c": {"d": {"e": {"f": {"g": 1}}}}}}},
                    "many": (0..100).collect::<Vec<_>>(),
                })),
        )
        .unwrap();
    let text = std::fs::read_to_string(e.state.audit_path()).unwrap();
    assert_eq!(text, format!("{line}\n"));
    assert!(!text.contains("SENTINEL"), "{text}");
    let v: Value = serde_json::from_str(&line).unwrap();
    assert_eq!(v["ts"], "2027-01-15T08:00:00.000Z");
    assert_eq!(v["event"], "approval.created");
    assert_eq!(v["tool"], "filesystem.write_file");
    assert_eq!(v["trace_id"], "trace_1");
    assert_eq!(v["request_id"], "req_1");
    assert_eq!(v["outcome"], "APPROVAL_REQUIRED");
    assert_eq!(v["details"]["path"], "notes.txt");
    assert_eq!(v["details"]["api_token"], "[REDACTED]");
    let long = v["details"]["long"].as_str().unwrap();
    assert_eq!(
        long.chars().count(),
        MAX_STRING_CHARS + TRUNCATION_MARKER.chars().count()
    );
    assert_eq!(v["details"]["deep"]["a"]["b"]["c"]["d"]["e"], "[too deep]");
    assert_eq!(
        v["details"]["many"].as_array().unwrap().len(),
        MAX_CONTAINER_ITEMS + 1
    );
    // Optional fields are omitted, not null.
    let line = e.log.append(&AuditEvent::new("x", "y", "z")).unwrap();
    let v: Value = serde_json::from_str(&line).unwrap();
    assert!(v.get("request_id").is_none() && v.get("outcome").is_none());
}

#[test]
fn oversized_details_are_replaced_by_a_marker() {
    let big: Map<String, Value> = (0..60)
        .map(|i| (format!("k{i}"), Value::String("y".repeat(400))))
        .collect();
    let v = bound_details(&Value::Object(big));
    assert_eq!(v["truncated"], true);
    assert!(v["original_bytes"].as_u64().unwrap() > MAX_DETAILS_BYTES as u64);
    // Top-level string fields are bounded too.
    let line = AuditEvent::new("e".repeat(600), "t", "x").to_line(Timestamp::EPOCH);
    let v: Value = serde_json::from_str(&line).unwrap();
    assert!(v["event"].as_str().unwrap().ends_with(TRUNCATION_MARKER));
}

#[test]
fn bounds_are_exact_at_their_edges() {
    // Containers: exactly MAX_CONTAINER_ITEMS kept whole; beyond, cut with the count left out.
    let arr = |n: usize| Value::Array((0..n).map(|i| json!(i)).collect());
    let obj = |n: usize| Value::Object((0..n).map(|i| (format!("k{i}"), json!(i))).collect());
    assert_eq!(
        bound_details(&arr(MAX_CONTAINER_ITEMS)),
        arr(MAX_CONTAINER_ITEMS)
    );
    let cut = bound_details(&arr(MAX_CONTAINER_ITEMS + 2));
    assert_eq!(cut.as_array().unwrap().len(), MAX_CONTAINER_ITEMS + 1);
    assert_eq!(cut[MAX_CONTAINER_ITEMS], "[2 more items]");
    assert_eq!(
        bound_details(&obj(MAX_CONTAINER_ITEMS)),
        obj(MAX_CONTAINER_ITEMS)
    );
    let cut = bound_details(&obj(MAX_CONTAINER_ITEMS + 3));
    assert_eq!(cut.as_object().unwrap().len(), MAX_CONTAINER_ITEMS + 1);
    assert_eq!(cut["_truncated_members"], 3);
    // Depth counts arrays as it counts objects: MAX_DETAILS_DEPTH levels kept, the next replaced.
    let (mut deep, mut want) = (json!(1), json!("[too deep]"));
    for _ in 0..=MAX_DETAILS_DEPTH {
        deep = json!([deep]);
    }
    for _ in 0..MAX_DETAILS_DEPTH {
        want = json!([want]);
    }
    assert_eq!(bound_details(&deep), want);
    // Size: exactly MAX_DETAILS_BYTES serialized is kept; one byte more is replaced.
    let sized = |total: usize| {
        let mut v: Vec<Value> = (0..16).map(|_| json!("x".repeat(500))).collect();
        v.push(json!(""));
        let base = Value::Array(v.clone()).to_string().len();
        v[16] = json!("x".repeat(total - base));
        Value::Array(v)
    };
    let at = sized(MAX_DETAILS_BYTES);
    assert_eq!(at.to_string().len(), MAX_DETAILS_BYTES);
    assert_eq!(bound_details(&at), at);
    let over = bound_details(&sized(MAX_DETAILS_BYTES + 1));
    assert_eq!(
        over,
        json!({ "truncated": true, "original_bytes": MAX_DETAILS_BYTES + 1 })
    );
}

#[test]
fn recent_is_chronological_and_filterable() {
    let e = env();
    assert!(e.log.recent(10).unwrap().is_empty());
    append_n(&e, 5);
    assert_eq!(
        traces(&e.log.recent(3).unwrap()),
        ["trace_2", "trace_3", "trace_4"]
    );
    assert_eq!(e.log.recent(100).unwrap().len(), 5);
    assert!(e.log.recent(0).unwrap().is_empty());
    assert_eq!(
        traces(&e.log.recent_for_trace("trace_1", 10).unwrap()),
        ["trace_1"]
    );
    // Junk lines are skipped by readers.
    let mut f = OpenOptions::new()
        .append(true)
        .open(e.state.audit_path())
        .unwrap();
    f.write_all(b"garbage\n[1]\n").unwrap();
    assert_eq!(e.log.recent(100).unwrap().len(), 5);
}

#[test]
fn recent_reads_long_logs_backwards_across_chunks() {
    let e = env();
    // Lines of ~1 KiB so the 64 KiB chunks split lines.
    for i in 0..300 {
        e.log
            .append(
                &AuditEvent::new("e", "t", format!("t{i}"))
                    .details(json!({"pad": "p".repeat(400), "more": "q".repeat(400)})),
            )
            .unwrap();
    }
    let all = e.log.recent(1000).unwrap();
    assert_eq!(all.len(), 300);
    let want: Vec<String> = (0..300).map(|i| format!("t{i}")).collect();
    assert_eq!(traces(&all), want);
    assert_eq!(traces(&e.log.recent(2).unwrap()), ["t298", "t299"]);
    assert_eq!(traces(&e.log.recent_for_trace("t7", 5).unwrap()), ["t7"]);
    // A final line without newline still counts.
    let mut f = OpenOptions::new()
        .append(true)
        .open(e.state.audit_path())
        .unwrap();
    f.write_all(br#"{"trace_id":"tail"}"#).unwrap();
    assert_eq!(traces(&e.log.recent(1).unwrap()), ["tail"]);
}

#[test]
fn recent_reads_a_line_break_that_opens_a_chunk() {
    // The first read chunk starts exactly at the newline that ends the first line.
    let e = env();
    let first = r#"{"trace_id":"first"}"#;
    let mut rest = String::new();
    let mut n = 0;
    while rest.len() < READ_CHUNK as usize - 1 {
        let left = READ_CHUNK as usize - 1 - rest.len();
        let line = format!(r#"{{"trace_id":"t{n}","pad":""}}"#);
        let pad = if left > 1000 + line.len() {
            1000
        } else {
            left - line.len() - 1
        };
        rest.push_str(&format!(
            r#"{{"trace_id":"t{n}","pad":"{}"}}"#,
            "p".repeat(pad)
        ));
        rest.push('\n');
        n += 1;
    }
    assert_eq!(rest.len(), READ_CHUNK as usize - 1);
    let path = e.state.audit_path();
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, format!("{first}\n{rest}")).unwrap();
    let all = e.log.recent(10_000).unwrap();
    let mut want = vec!["first".to_string()];
    want.extend((0..n).map(|i| format!("t{i}")));
    assert_eq!(traces(&all), want);
}

#[test]
fn compaction_keep_last_edges() {
    let e = env();
    // Missing log: nothing to do, nothing created.
    let r = e.log.compact_keep_last(3, true).unwrap();
    assert_eq!((r.total, r.kept, r.removed), (0, 0, 0));
    assert!(!e.state.audit_path().exists());

    append_n(&e, 5);
    let before = std::fs::read(e.state.audit_path()).unwrap();
    // Dry run counts only.
    let r = e.log.compact_keep_last(2, false).unwrap();
    assert_eq!((r.total, r.kept, r.removed, r.applied), (5, 2, 3, false));
    assert_eq!(std::fs::read(e.state.audit_path()).unwrap(), before);
    // keep_last >= total keeps everything, byte-identical and not rewritten.
    let inode =
        || std::os::unix::fs::MetadataExt::ino(&std::fs::metadata(e.state.audit_path()).unwrap());
    let before_inode = inode();
    let r = e.log.compact_keep_last(5, true).unwrap();
    assert_eq!((r.kept, r.removed), (5, 0));
    assert_eq!(std::fs::read(e.state.audit_path()).unwrap(), before);
    assert_eq!(
        inode(),
        before_inode,
        "rewritten though nothing was dropped"
    );
    let r = e.log.compact_keep_last(50, true).unwrap();
    assert_eq!((r.kept, r.removed), (5, 0));
    // Keep the newest 2, in original order.
    let r = e.log.compact_keep_last(2, true).unwrap();
    assert_eq!((r.total, r.kept, r.removed, r.applied), (5, 2, 3, true));
    assert_eq!(traces(&e.log.recent(10).unwrap()), ["trace_3", "trace_4"]);
    // Appends continue after compaction.
    e.log.append(&AuditEvent::new("x", "y", "after")).unwrap();
    assert_eq!(
        traces(&e.log.recent(10).unwrap()),
        ["trace_3", "trace_4", "after"]
    );
    // keep_last 0 empties a valid log.
    let r = e.log.compact_keep_last(0, true).unwrap();
    assert_eq!((r.total, r.kept, r.removed), (3, 0, 3));
    assert_eq!(std::fs::read(e.state.audit_path()).unwrap(), b"");
}

#[test]
fn compaction_refuses_malformed_content_and_changes_nothing() {
    for junk in [
        &b"not json\n"[..],
        b"[1,2]\n",
        b"\"string\"\n",
        b"{\"truncated\": \n",
        b"\xff\xfe\n",
    ] {
        let e = env();
        append_n(&e, 3);
        let mut f = OpenOptions::new()
            .append(true)
            .open(e.state.audit_path())
            .unwrap();
        f.write_all(junk).unwrap();
        drop(f);
        append_n(&e, 1);
        let before = std::fs::read(e.state.audit_path()).unwrap();
        for apply in [false, true] {
            let err = e.log.compact_keep_last(1, apply).unwrap_err();
            assert!(matches!(err, AuditError::Malformed { line: 4 }), "{err:?}");
            assert_eq!(err.code(), "AUDIT_MALFORMED");
        }
        assert_eq!(std::fs::read(e.state.audit_path()).unwrap(), before);
    }
    // Blank lines are not events and are not an error.
    let e = env();
    append_n(&e, 2);
    let mut f = OpenOptions::new()
        .append(true)
        .open(e.state.audit_path())
        .unwrap();
    f.write_all(b"\n\n").unwrap();
    let r = e.log.compact_keep_last(10, false).unwrap();
    assert_eq!(r.total, 2);
}

#[test]
fn an_unreadable_log_is_an_error_not_an_empty_one() {
    // No log yet is an empty one.
    let e = env();
    assert!(e.log.recent(10).unwrap().is_empty());
    assert_eq!(e.log.compact_keep_last(1, false).unwrap().total, 0);
    // A log that cannot be opened (a symlink to itself: ELOOP) is an error, never "empty":
    // an operator must not be told there is nothing to audit.
    let path = e.state.audit_path();
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink(&path, &path).unwrap();
    assert!(e.log.recent(10).is_err());
    assert!(e.log.compact_keep_last(1, false).is_err());
    assert!(e.log.compact_keep_last(1, true).is_err());
}

#[test]
fn append_fails_cleanly_when_locked_or_unwritable() {
    let e = env();
    let held = FileLock::acquire(&e.state.audit_lock_path(), Duration::from_secs(1)).unwrap();
    let log = e.log.clone().with_lock_timeout(Duration::from_millis(20));
    let err = log.append(&AuditEvent::new("a", "b", "c")).unwrap_err();
    assert_eq!(err.code(), "LOCK_TIMEOUT");
    // Compaction shares the lock.
    assert_eq!(
        log.compact_keep_last(0, true).unwrap_err().code(),
        "LOCK_TIMEOUT"
    );
    drop(held);
    // A directory where the log should be: an error, not a panic.
    std::fs::create_dir(e.state.audit_path()).unwrap();
    assert_eq!(
        log.append(&AuditEvent::new("a", "b", "c"))
            .unwrap_err()
            .code(),
        "AUDIT_IO"
    );
}

#[test]
fn concurrent_appends_interleave_whole_lines() {
    let e = env();
    let log = Arc::new(e.log.clone());
    let handles: Vec<_> = (0..4)
        .map(|t| {
            let log = log.clone();
            std::thread::spawn(move || {
                for i in 0..25 {
                    log.append(
                        &AuditEvent::new("e", "t", format!("{t}-{i}"))
                            .details(json!({"pad": "p".repeat(300)})),
                    )
                    .unwrap();
                }
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    let r = e.log.compact_keep_last(1000, false).unwrap();
    assert_eq!(r.total, 100);
}

#[test]
fn a_torn_tail_is_reported_by_compaction_and_never_glued_to_the_next_event() {
    let e = env();
    append_n(&e, 2);
    let mut f = OpenOptions::new()
        .append(true)
        .open(e.state.audit_path())
        .unwrap();
    f.write_all(b"{\"ts\":\"2026-01-01T00:00:00Z\",\"eve")
        .unwrap();
    drop(f);
    let r = e.log.compact_keep_last(10, false).unwrap();
    assert_eq!((r.total, r.torn_tail), (2, true));
    // The next append ends the log's last line first: every line is one event.
    append_n(&e, 1);
    let text = std::fs::read_to_string(e.state.audit_path()).unwrap();
    assert_eq!(text.lines().count(), 3, "{text}");
    for line in text.lines() {
        assert!(
            serde_json::from_str::<Value>(line).unwrap().is_object(),
            "{line}"
        );
    }
    let r = e.log.compact_keep_last(10, true).unwrap();
    assert_eq!((r.total, r.torn_tail), (3, false));
}
