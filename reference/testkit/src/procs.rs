//! Process trees a test can start through a server and then check for survivors.

use std::path::Path;
use std::time::{Duration, Instant};

/// Pid files the probe tree writes in its working directory.
pub const PROBE_PID_FILES: [&str; 4] = ["main.pid", "plain.pid", "setsid.pid", "ignore.pid"];

/// A shell script (`#!/bin/sh`) that starts a plain background child, a `setsid` one and one
/// ignoring SIGTERM, records each pid (and its own) atomically in [`PROBE_PID_FILES`], then
/// sleeps `60` seconds: the tree a server must not leave behind.
pub const PROBE_TREE_SCRIPT: &str = r#"#!/bin/sh
sh -c 'echo $$ > plain.pid.tmp && mv plain.pid.tmp plain.pid; exec sleep 60' &
setsid sh -c 'echo $$ > setsid.pid.tmp && mv setsid.pid.tmp setsid.pid; exec sleep 60' &
sh -c 'trap "" TERM; echo $$ > ignore.pid.tmp && mv ignore.pid.tmp ignore.pid; exec sleep 60' &
echo $$ > main.pid.tmp && mv main.pid.tmp main.pid
exec sleep 60
"#;

/// True while `pid` names a process that is neither gone nor a zombie.
pub fn alive(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => {
            let state = stat.rsplit(')').next().unwrap_or("").trim_start();
            !state.starts_with('Z') && !state.starts_with('X')
        }
        Err(_) => false,
    }
}

/// Polls `cond` (every 20 ms) until it holds, or gives up at `deadline`: the wait is on the
/// condition, the deadline only bounds it.
pub fn wait_until(deadline: Instant, mut cond: impl FnMut() -> bool) -> bool {
    loop {
        if cond() {
            return true;
        }
        if Instant::now() >= deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Waits until the probe tree started in `dir` has recorded every pid (bounded by
/// `deadline`) and returns them; panics naming what was recorded when it did not.
pub fn probe_pids(dir: &Path, deadline: Instant) -> Vec<i32> {
    let mut pids = Vec::new();
    let recorded = wait_until(deadline, || {
        pids = PROBE_PID_FILES
            .iter()
            .filter_map(|f| std::fs::read_to_string(dir.join(f)).ok())
            .filter_map(|s| s.trim().parse().ok())
            .collect();
        pids.len() == PROBE_PID_FILES.len()
    });
    assert!(recorded, "the probe tree did not start: {pids:?}");
    pids
}

/// Makes `cmd` start with every signal at its default disposition, as a server started from
/// a terminal would: under `nohup`, or in the background of a non-interactive shell, the test
/// process ignores SIGHUP or SIGINT, and a server inheriting that would not end on the signal
/// a test sends it, whatever the server does. Call it on every server a test later signals.
#[allow(unsafe_code)]
pub fn default_signal_dispositions(cmd: &mut std::process::Command) {
    use std::os::unix::process::CommandExt;
    // SAFETY: runs in the forked child before exec, as `reset_signal_dispositions` asks.
    unsafe {
        cmd.pre_exec(|| {
            mcp_conformance::process::reset_signal_dispositions();
            Ok(())
        });
    }
}
