//! Processes and files outside the sandbox (`engine/outdir/`): process trees and servers
//! ended at teardown, and `poll` attempts recorded by the server.

use std::path::Path;
use std::time::{Duration, Instant};

use crate::{ENGINE, ENGINE_TARGET, marked_position, repo, run};

/// A copy of the engine target with `vars: {outdir: DIR}`, written into DIR.
fn outdir_target(dir: &Path) -> String {
    let mut text = std::fs::read_to_string(repo().join(ENGINE_TARGET)).expect("engine target");
    assert!(
        !text.lines().any(|l| l.starts_with("vars:")),
        "the engine target must not declare vars (the tests add them)"
    );
    let outdir = serde_json::to_string(&dir.display().to_string()).expect("a JSON string");
    text.push_str(&format!("\nvars:\n  outdir: {outdir}\n"));
    let path = dir.join("target.yaml");
    std::fs::write(&path, text).expect("write target");
    path.display().to_string()
}

/// Pids listed one per line in a file.
fn pids(path: &Path) -> Vec<i32> {
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("read {}: {e}", path.display()))
        .lines()
        .filter_map(|l| l.trim().parse().ok())
        .collect()
}

/// True while `pid` is a live (not zombie) `mcp-conformance` process. Checking the name
/// keeps a recycled pid from counting as a survivor.
fn running_ours(pid: i32) -> bool {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return false;
    };
    let Some((head, rest)) = stat.rsplit_once(')') else {
        return false;
    };
    let comm = head.split_once('(').map(|(_, c)| c).unwrap_or("");
    let state = rest.trim_start().chars().next().unwrap_or('X');
    comm.starts_with("mcp-conformanc") && !matches!(state, 'Z' | 'X' | 'x')
}

/// Waits (bounded) until none of `pids` runs; returns the survivors. The runner has already
/// sent SIGKILL when the run ends; this only absorbs the kernel's delivery latency.
fn survivors(pids: &[i32]) -> Vec<i32> {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let alive: Vec<i32> = pids.iter().copied().filter(|p| running_ours(*p)).collect();
        if alive.is_empty() || Instant::now() > deadline {
            return alive;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn has_proc() -> bool {
    Path::new("/proc/self/stat").exists()
}

#[test]
fn recorded_process_tree_is_killed_at_teardown() {
    if !has_proc() {
        return;
    }
    let out = tempfile::tempdir().expect("outdir");
    let target = outdir_target(out.path());
    let o = run(&target, &[&format!("{ENGINE}/outdir/processes.yaml")], &[]);
    assert_eq!(o.code, 0, "{}", o.dump());
    let tree = pids(&out.path().join("tree.pids"));
    assert_eq!(tree.len(), 7, "the probe and its 6 descendants: {tree:?}");
    let left = survivors(&tree);
    assert!(left.is_empty(), "processes survived the run: {left:?}");
}

#[test]
fn teardown_ends_servers_with_pending_calls_and_servers_ignoring_eof() {
    if !has_proc() {
        return;
    }
    let out = tempfile::tempdir().expect("outdir");
    for sub in ["main", "liar"] {
        std::fs::create_dir(out.path().join(sub)).expect("server folder");
    }
    let target = outdir_target(out.path());
    let o = run(&target, &[&format!("{ENGINE}/outdir/teardown.yaml")], &[]);
    assert_eq!(o.code, 0, "{}", o.dump());
    let mut servers = pids(&out.path().join("main/server.pids"));
    servers.extend(pids(&out.path().join("liar/server.pids")));
    assert_eq!(servers.len(), 2, "{servers:?}");
    assert!(
        o.wall < Duration::from_secs(30),
        "teardown does not wait for the liar's 10 minutes: {:?}",
        o.wall
    );
    let left = survivors(&servers);
    assert!(left.is_empty(), "servers survived the run: {left:?}");
}

#[test]
fn poll_repeats_its_call_until_within_ends() {
    let out = tempfile::tempdir().expect("outdir");
    let target = outdir_target(out.path());
    let file = format!("{ENGINE}/outdir/poll-attempts.yaml");
    let o = run(&target, &[&file], &[]);
    assert_eq!(o.code, 1, "{}", o.dump());
    let f = &o.scenario("engine/outdir/poll-attempts")["failure"];
    assert_eq!(f["kind"], "assertion");
    assert!(
        f["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("still not matched after 400ms")),
        "{f}"
    );
    assert_eq!(f["expected"], "done");
    assert_eq!(f["actual"], "pending");
    let (line, column) = marked_position(&file);
    assert_eq!(f["position"]["line"], line);
    assert_eq!(f["position"]["column"], column);
    let record = std::fs::read_to_string(out.path().join("rec.jsonl")).expect("record");
    let calls = record
        .lines()
        .filter(|l| l.contains("\"method\":\"tools/call\""))
        .count();
    assert!(
        calls >= 3,
        "poll called {calls} time(s) in 400ms every 20ms"
    );
}
