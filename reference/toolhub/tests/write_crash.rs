//! An approved write under SIGKILL: the server killed at a random moment while it writes a
//! large file leaves the target old or new, never torn, and no temporary file in the
//! workspace, neither after the kill nor after the next write (issue: kill -9 during an
//! approved write left `.toolhub-tmp-*` files of 40 kB each).
//!
//! The kill moments are drawn from a seeded generator (the trial number), spread over twice
//! the time one unkilled write takes; the delay chooses when to kill, it synchronises nothing.
//! `WRITE_CRASH_TRIALS` sets the number of trials (default 12).

mod common;

use std::time::{Duration, Instant};

use common::{Sandbox, Server};
use serde_json::{Value, json};

/// Near the write limit (1 MiB), so the write itself is most of the window.
const SIZE: usize = 900 * 1024;

/// The temporary files left in the workspace, wherever they are.
fn leftovers(sb: &Sandbox) -> Vec<String> {
    fn walk(dir: &std::path::Path, out: &mut Vec<String>) {
        for entry in std::fs::read_dir(dir).expect("read_dir").flatten() {
            let path = entry.path();
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                walk(&path, out);
            } else if entry.file_name().to_string_lossy().contains("toolhub-tmp") {
                out.push(path.display().to_string());
            }
        }
    }
    let mut out = Vec::new();
    walk(&sb.workspace, &mut out);
    out
}

/// A write of `content` to `docs/big.txt`, approved by the operator: its request id.
fn approved_write(sb: &Sandbox, server: &mut Server, content: &str) -> String {
    let made = server.structured(
        "filesystem.write_file",
        json!({"path": "docs/big.txt", "content": content, "create_parents": true}),
    );
    let Some(id) = made["request_id"].as_str() else {
        panic!("no request id: {made}");
    };
    let id = id.to_owned();
    sb.admin(&["approve", &id], "APPROVE\n").success();
    id
}

fn resume(id: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
           "params": {"name": "filesystem.write_file_approved", "arguments": {"request_id": id}}})
}

fn trial(n: u64, window_micros: u64) -> &'static str {
    let sb = Sandbox::new();
    let old = "o".repeat(SIZE);
    let new = char::from(b'A' + (n % 26) as u8).to_string().repeat(SIZE);
    sb.write("docs/big.txt", &old);
    let mut server = sb.server();
    server.initialize();
    let id = approved_write(&sb, &mut server, &new);
    server.send(&resume(&id).to_string());
    let delay =
        Duration::from_micros((n.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 11) % (window_micros + 1));
    let started = Instant::now();
    while started.elapsed() < delay {
        std::hint::spin_loop();
    }
    let answered = server
        .kill_now()
        .iter()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .any(|m| m["id"] == json!(7));
    let now = sb.read("docs/big.txt");
    assert!(now == old || now == new, "trial {n}: the target is torn");
    assert_eq!(
        leftovers(&sb),
        Vec::<String>::new(),
        "trial {n}: after the kill"
    );
    // The next start and write into the same directory finds nothing left to clean either.
    let mut server = sb.server();
    server.initialize();
    let again = approved_write(&sb, &mut server, "after\n");
    let done = server.structured(
        "filesystem.write_file_approved",
        json!({"request_id": again}),
    );
    assert_eq!(done["outcome"], "SUCCEEDED", "trial {n}: {done}");
    assert_eq!(
        leftovers(&sb),
        Vec::<String>::new(),
        "trial {n}: after the next write"
    );
    match (answered, now == new) {
        (true, _) => "answered before the kill",
        (false, true) => "written, killed before answering",
        (false, false) => "killed before the rename",
    }
}

#[test]
fn a_server_killed_mid_write_leaves_no_temporary_file() {
    let trials: u64 = std::env::var("WRITE_CRASH_TRIALS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(12);
    // One unkilled write, timed: the kills land in twice its span.
    let sb = Sandbox::new();
    let mut server = sb.server();
    server.initialize();
    let id = approved_write(&sb, &mut server, &"x".repeat(SIZE));
    let t = Instant::now();
    let done = server.structured("filesystem.write_file_approved", json!({"request_id": id}));
    let window = u64::try_from(t.elapsed().as_micros()).unwrap_or(u64::MAX) * 2;
    assert_eq!(done["outcome"], "SUCCEEDED", "{done}");
    let mut tally = std::collections::BTreeMap::<&str, usize>::new();
    for n in 0..trials {
        *tally.entry(trial(n, window)).or_default() += 1;
    }
    eprintln!("{trials} trials, kill window {window} µs");
    for (outcome, count) in &tally {
        eprintln!("  {count:>4}  {outcome}");
    }
}
