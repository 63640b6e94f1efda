//! A command's whole process tree dies with `safe-mcp terminal`, however the server goes
//! away mid-command: stdin closed, SIGTERM, SIGINT, SIGHUP, SIGKILL. Real processes and
//! real signals; every wait polls a condition against a deadline.

#![allow(clippy::unwrap_used)]

mod common;

use std::io::Write;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::{BASE_POLICY, BIN, Sandbox};
use mcp_testkit::procs::{PROBE_TREE_SCRIPT, alive, probe_pids, wait_until};
use serde_json::json;

/// How long the probe processes would live on their own.
const COMMAND_RUNTIME_SECS: u64 = 60;
/// How long, after the server is gone, any probe process may take to die.
const GRACE: Duration = Duration::from_secs(5);
/// A `safe-mcp terminal` with the probe tree running in its jail.
struct Running {
    child: Child,
    pids: Vec<i32>,
}

fn start_tree(sb: &Sandbox) -> Running {
    use std::os::unix::fs::PermissionsExt;
    let bin = sb.path("bin");
    std::fs::create_dir(&bin).unwrap();
    let script = bin.join("probe-tree");
    std::fs::write(&script, PROBE_TREE_SCRIPT).unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let body = BASE_POLICY
        .replace(
            "timeout_seconds = 10",
            &format!("timeout_seconds = {}", COMMAND_RUNTIME_SECS + 30),
        )
        .replace("\"false\"]", "\"false\", \"probe-tree\"]");
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut server = Command::new(BIN);
    mcp_testkit::procs::default_signal_dispositions(&mut server);
    let mut child = server
        .arg("terminal")
        .arg("--config")
        .arg(sb.policy(&body))
        .env_remove("SAFE_MCP_POLICY_FILE")
        .env_remove("SAFE_MCP_JAIL_ROOT")
        .env_remove("SAFE_MCP_AUDIT_LOG")
        .env_remove("SAFE_MCP_AUDIT_FAIL_MODE")
        .env("PATH", path)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdin = child.stdin.as_mut().unwrap();
    for m in [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
               "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                          "clientInfo": {"name": "server-death", "version": "1"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
               "params": {"name": "run_command", "arguments": {"command": "probe-tree"}}}),
    ] {
        writeln!(stdin, "{m}").unwrap();
    }
    stdin.flush().unwrap();
    let pids = probe_pids(&sb.path("jail"), Instant::now() + Duration::from_secs(15));
    assert!(pids.iter().all(|&p| alive(p)), "{pids:?}");
    Running { child, pids }
}

/// Ends the server with `how`, then asserts it exits and no probe process survives.
fn check(how: &str) {
    let sb = Sandbox::new();
    let mut r = start_tree(&sb);
    let started = Instant::now();
    if how == "eof" {
        drop(r.child.stdin.take());
    } else {
        let status = Command::new("kill")
            .arg(format!("-{how}"))
            .arg(r.child.id().to_string())
            .status()
            .unwrap();
        assert!(status.success());
    }
    let exited = wait_until(started + GRACE, || r.child.try_wait().unwrap().is_some());
    let all_dead = wait_until(Instant::now() + GRACE, || r.pids.iter().all(|&p| !alive(p)));
    let survivors: Vec<i32> = r.pids.iter().copied().filter(|&p| alive(p)).collect();
    for &p in &survivors {
        let _ = nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(p),
            nix::sys::signal::Signal::SIGKILL,
        );
    }
    let _ = r.child.kill();
    let _ = r.child.wait();
    assert!(exited, "{how}: the server did not exit within {GRACE:?}");
    assert!(
        started.elapsed() < Duration::from_secs(COMMAND_RUNTIME_SECS / 2),
        "{how}: took {:?}",
        started.elapsed()
    );
    assert!(all_dead, "{how}: survivors {survivors:?} of {:?}", r.pids);
}

#[test]
fn stdin_closed_ends_the_tree_and_the_server_promptly() {
    check("eof");
}

#[test]
fn sigterm_to_the_server_ends_the_tree() {
    check("TERM");
}

#[test]
fn sigint_to_the_server_ends_the_tree() {
    check("INT");
}

#[test]
fn sighup_to_the_server_ends_the_tree() {
    check("HUP");
}

#[test]
fn sigkill_of_the_server_ends_the_tree() {
    check("KILL");
}
