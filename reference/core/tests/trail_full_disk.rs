//! A full disk must not tear an audit line: with `RLIMIT_FSIZE` making the write fail
//! halfway through a record (as `ENOSPC` or `EFBIG` do), the record is refused, the file goes
//! back to its previous length, and the next record is a line of its own. Its own test binary
//! with one test: the limit and the `SIGXFSZ` disposition are the whole process's.

#![allow(unsafe_code)]

use mcp_safety_core::trail::{AuditTrail, FailMode};
use nix::sys::signal::{SigHandler, Signal, signal};
use serde_json::{Value, json};

#[test]
fn a_record_cut_short_by_a_full_disk_leaves_the_file_as_it_was() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("audit.jsonl");
    let trail = AuditTrail::new(path.clone(), FailMode::Closed);
    trail
        .record(&json!({"event": "first"}))
        .expect("first record");
    let before = std::fs::read(&path).expect("read");
    // SAFETY: the only test of this binary; a write past the limit then fails with EFBIG
    // instead of the signal killing the process.
    unsafe { signal(Signal::SIGXFSZ, SigHandler::SigIgn) }.expect("ignore SIGXFSZ");
    let saved = file_size_limit(None);
    file_size_limit(Some(before.len() as u64 + 40));
    let big = json!({"event": "second", "details": "x".repeat(200)});
    for _ in 0..3 {
        let err = trail
            .record(&big)
            .expect_err("a record past the limit fails");
        assert!(
            matches!(
                err.raw_os_error(),
                Some(nix::libc::EFBIG | nix::libc::ENOSPC)
            ),
            "{err}"
        );
        assert_eq!(
            std::fs::read(&path).expect("read"),
            before,
            "cut back whole"
        );
    }
    file_size_limit(Some(saved));
    trail
        .record(&json!({"event": "third"}))
        .expect("third record");
    let text = std::fs::read_to_string(&path).expect("read");
    let events: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).expect("every line is one event"))
        .collect();
    assert_eq!(
        events,
        [json!({"event": "first"}), json!({"event": "third"})]
    );
}

/// Sets the soft `RLIMIT_FSIZE` (when `Some`) and returns the soft limit before.
fn file_size_limit(soft: Option<u64>) -> u64 {
    let mut limit = nix::libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: plain system calls on a valid struct.
    unsafe {
        assert_eq!(nix::libc::getrlimit(nix::libc::RLIMIT_FSIZE, &mut limit), 0);
        let before = limit.rlim_cur;
        if let Some(soft) = soft {
            limit.rlim_cur = soft;
            assert_eq!(nix::libc::setrlimit(nix::libc::RLIMIT_FSIZE, &limit), 0);
        }
        before
    }
}
