//! N separate processes race to consume one approved request; exactly one wins.
//!
//! The test binary re-executes itself: the `race_child` entry (ignored, and inert unless
//! `MCP_CORE_RACE_CHILD` is set) opens the store, prints a READY marker, blocks reading a line
//! from stdin, then consumes and prints its result. The parent releases all children at once
//! by writing to their stdin pipes once every child is READY: a pipe barrier, not a sleep.
#![allow(clippy::unwrap_used)]

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use mcp_safety_core::approvals::{ApprovalStatus, ApprovalStore, Operation};
use mcp_safety_core::clock::SystemClock;
use mcp_safety_core::jail::Workspace;
use mcp_safety_core::state::StateRoot;
use serde_json::json;

const CHILDREN: usize = 8;
const DEADLINE: Duration = Duration::from_secs(60);

fn open_store(ws: &str, state: &str) -> ApprovalStore {
    let w = Workspace::open(ws).unwrap();
    let s = StateRoot::resolve(&w, Some(state), &|_| None).unwrap();
    ApprovalStore::new(&s, SystemClock::shared(), Duration::from_secs(3600))
}

#[test]
#[ignore = "child process entry for consume_race_exactly_one_winner"]
fn race_child() {
    let Ok(spec) = std::env::var("MCP_CORE_RACE_CHILD") else {
        return;
    };
    let mut parts = spec.splitn(3, '\n');
    let (ws, state, id) = (
        parts.next().unwrap(),
        parts.next().unwrap(),
        parts.next().unwrap(),
    );
    let store = open_store(ws, state);
    println!("@@READY");
    std::io::stdout().flush().unwrap();
    let mut go = String::new();
    std::io::stdin().read_line(&mut go).unwrap();
    let result = match store.consume(id, Operation::ShellRun) {
        Ok(r) => format!("WON {}", r.payload["argv"][0].as_str().unwrap_or("?")),
        Err(e) => e.code().to_string(),
    };
    println!("@@RESULT {result}");
    std::io::stdout().flush().unwrap();
}

#[test]
fn consume_race_exactly_one_winner() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    std::fs::create_dir_all(&ws).unwrap();
    let state = tmp.path().join("state");
    let (ws, state) = (ws.to_str().unwrap(), state.to_str().unwrap());
    let store = open_store(ws, state);
    let rec = store
        .create(
            Operation::ShellRun,
            json!({"argv": ["git", "status"]}),
            "trace_race",
        )
        .unwrap();
    store.approve(&rec.request_id).unwrap();

    let exe = std::env::current_exe().unwrap();
    let (tx, rx) = mpsc::channel::<(usize, String)>();
    let mut children = Vec::new();
    for n in 0..CHILDREN {
        let mut child = Command::new(&exe)
            .args([
                "race_child",
                "--exact",
                "--ignored",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(
                "MCP_CORE_RACE_CHILD",
                format!("{ws}\n{state}\n{}", rec.request_id),
            )
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let tx = tx.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                // libtest may print "test race_child ... " on the same line.
                if let Some(at) = line.find("@@") {
                    let _ = tx.send((n, line[at + 2..].to_string()));
                }
            }
        });
        children.push(child);
    }
    drop(tx);
    let deadline = Instant::now() + DEADLINE;
    let next = |what: &str| -> (usize, String) {
        let left = deadline.saturating_duration_since(Instant::now());
        rx.recv_timeout(left)
            .unwrap_or_else(|e| panic!("no {what} from children before the deadline: {e}"))
    };
    for _ in 0..CHILDREN {
        let (_, msg) = next("READY");
        assert_eq!(msg, "READY");
    }
    // Everyone is parked on its stdin: release them together.
    for c in &mut children {
        c.stdin.as_mut().unwrap().write_all(b"go\n").unwrap();
    }
    for c in &mut children {
        c.stdin.as_mut().unwrap().flush().unwrap();
    }
    let mut results = Vec::new();
    for _ in 0..CHILDREN {
        let (_, msg) = next("RESULT");
        results.push(msg.strip_prefix("RESULT ").unwrap().to_string());
    }
    for mut c in children {
        assert!(c.wait().unwrap().success());
    }
    let winners = results.iter().filter(|r| r.starts_with("WON")).count();
    assert_eq!(winners, 1, "results: {results:?}");
    assert!(results.contains(&"WON git".to_string()));
    assert!(
        results
            .iter()
            .filter(|r| !r.starts_with("WON"))
            .all(|r| r == "APPROVAL_CONSUMED"),
        "results: {results:?}"
    );
    let v = store.status(&rec.request_id).unwrap().unwrap();
    assert_eq!(v.status, ApprovalStatus::Consumed);
}
