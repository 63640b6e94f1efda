//! An approved command's whole process tree dies with `mcp-toolhub serve`, however the
//! server goes away mid-command: stdin closed, SIGTERM, SIGINT, SIGHUP, SIGKILL; and with
//! `mcp-hub` when the hub is SIGKILLed with ToolHub as its upstream. Real processes and real
//! signals; every wait polls a condition against a deadline.

#![allow(clippy::unwrap_used)]

mod common;

use std::process::Command;
use std::time::{Duration, Instant};

use common::{SERVER, Sandbox};
use mcp_testkit::bins::workspace_bin;
use mcp_testkit::lines::LineClient;
use mcp_testkit::procs::{PROBE_TREE_SCRIPT, alive, probe_pids, wait_until};
use serde_json::{Value, json};

/// How long the probe processes would live on their own.
const COMMAND_RUNTIME_SECS: u64 = 60;
/// How long, after the server is told to go, any probe process may take to die.
const GRACE: Duration = Duration::from_secs(5);

/// Calls a tool and returns its structured result (names prefixed by a hub, if any).
fn tool(c: &mut LineClient, id: u64, name: &str, args: Value) -> Value {
    let r = c.request(id, "tools/call", json!({"name": name, "arguments": args}));
    r["result"]["structuredContent"].clone()
}

/// Starts the probe tree through `shell.run` → approval → `shell.run_approved` (tool names
/// prefixed with `prefix`), without waiting for the call; returns the probe pids.
fn start_tree(sb: &Sandbox, c: &mut LineClient, prefix: &str) -> Vec<i32> {
    c.initialize("server-death");
    let r = tool(
        c,
        2,
        &format!("{prefix}shell.run"),
        json!({"program": "/bin/sh", "args": ["-c", PROBE_TREE_SCRIPT],
               "timeout_seconds": COMMAND_RUNTIME_SECS + 30}),
    );
    assert_eq!(r["outcome"], "APPROVAL_REQUIRED", "{r}");
    let rid = r["approval"]["request_id"].as_str().unwrap().to_string();
    sb.admin(&["approve", &rid], "APPROVE\n").success();
    c.send(&json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                   "params": {"name": format!("{prefix}shell.run_approved"),
                              "arguments": {"request_id": rid}}}));
    let pids = probe_pids(&sb.workspace, Instant::now() + Duration::from_secs(15));
    assert!(pids.iter().all(|&p| alive(p)), "{pids:?}");
    pids
}

/// Ends the server with `how` ("eof" or a signal name), then asserts it exits within
/// [`GRACE`] and no probe process survives it by more than [`GRACE`].
fn end_and_check(c: &mut LineClient, pids: &[i32], how: &str) {
    let started = Instant::now();
    if how == "eof" {
        c.close_stdin();
    } else {
        let status = Command::new("kill")
            .arg(format!("-{how}"))
            .arg(c.child.id().to_string())
            .status()
            .unwrap();
        assert!(status.success());
    }
    let exited = wait_until(started + GRACE, || c.child.try_wait().unwrap().is_some());
    let all_dead = wait_until(Instant::now() + GRACE, || pids.iter().all(|&p| !alive(p)));
    let survivors: Vec<i32> = pids.iter().copied().filter(|&p| alive(p)).collect();
    for &p in &survivors {
        let _ = Command::new("kill")
            .arg("-KILL")
            .arg(p.to_string())
            .status();
    }
    let _ = c.child.kill();
    let _ = c.child.wait();
    assert!(exited, "{how}: the server did not exit within {GRACE:?}");
    assert!(
        started.elapsed() < Duration::from_secs(COMMAND_RUNTIME_SECS / 2),
        "{how}: took {:?}",
        started.elapsed()
    );
    assert!(all_dead, "{how}: survivors {survivors:?} of {pids:?}");
}

fn toolhub(sb: &Sandbox) -> LineClient {
    let mut cmd = Command::new(SERVER);
    cmd.arg("serve")
        .env_clear()
        .envs(sb.env())
        .env("PATH", std::env::var("PATH").unwrap_or_default());
    LineClient::spawn(cmd, false)
}

fn check(how: &str) {
    let sb = Sandbox::new();
    let mut c = toolhub(&sb);
    let pids = start_tree(&sb, &mut c, "");
    end_and_check(&mut c, &pids, how);
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

/// SIGKILL of `mcp-hub` (which gives its upstreams a parent-death SIGKILL) reaches the
/// whole tree of a command ToolHub runs behind it.
#[test]
fn sigkill_of_the_hub_ends_the_tree_of_its_toolhub_upstream() {
    let sb = Sandbox::new();
    let toml_str = |s: &str| serde_json::to_string(s).unwrap();
    let mut env_table = String::new();
    for (k, v) in sb.env() {
        env_table.push_str(&format!("{k} = {}\n", toml_str(&v)));
    }
    let config = sb.dir.path().join("hub.toml");
    std::fs::write(
        &config,
        format!(
            "[servers.th]\nprefix = \"th\"\ncommand = {}\nargs = [\"serve\"]\nstderr = false\n\
             [servers.th.env]\n{env_table}",
            toml_str(SERVER)
        ),
    )
    .unwrap();
    let mut cmd = Command::new(workspace_bin("mcp-hub", SERVER));
    cmd.arg(&config)
        .env_remove("MCP_HUB_CONFIG")
        .env_remove("RUST_LOG")
        .env_remove("MCP_HUB_STARTUP_TIMEOUT_MS");
    let mut c = LineClient::spawn(cmd, false);
    let pids = start_tree(&sb, &mut c, "th.");
    end_and_check(&mut c, &pids, "KILL");
}

/// Runs `program args` through approval and returns the `shell.run_approved` result.
fn run_approved(sb: &Sandbox, c: &mut LineClient, id: u64, program: &str, args: Value) -> Value {
    let r = tool(
        c,
        id,
        "shell.run",
        json!({"program": program, "args": args, "timeout_seconds": 2}),
    );
    assert_eq!(r["outcome"], "APPROVAL_REQUIRED", "{r}");
    let rid = r["approval"]["request_id"].as_str().unwrap().to_string();
    sb.admin(&["approve", &rid], "APPROVE\n").success();
    tool(c, id + 1, "shell.run_approved", json!({"request_id": rid}))
}

/// Through the supervisor, the server still reports what the command did: its exit code,
/// the signal that killed it (SIGTERM and SIGINT included, which the supervisor itself
/// blocks), a timeout ended by SIGTERM within the grace period, and output.
#[test]
fn exit_status_signal_and_timeout_are_reported_as_before() {
    let sb = Sandbox::new();
    let mut c = toolhub(&sb);
    c.initialize("server-death");
    let r = run_approved(&sb, &mut c, 10, "/bin/sh", json!(["-c", "echo hi; exit 7"]));
    assert_eq!(
        (r["outcome"].clone(), r["returncode"].clone()),
        (json!("COMMAND_FAILED"), json!(7)),
        "{r}"
    );
    assert!(r.to_string().contains("hi"), "{r}");
    for (n, sig) in [(20, 15), (30, 2), (40, 9)] {
        let r = run_approved(
            &sb,
            &mut c,
            n,
            "/bin/sh",
            json!(["-c", format!("kill -{sig} $$")]),
        );
        assert_eq!(r["returncode"], json!(-sig), "{r}");
    }
    let started = Instant::now();
    let r = run_approved(&sb, &mut c, 50, "/bin/sleep", json!(["30"]));
    assert_eq!(r["outcome"], "TIMED_OUT", "{r}");
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
    let r = run_approved(&sb, &mut c, 60, "/bin/true", json!([]));
    assert_eq!(r["outcome"], "SUCCEEDED", "{r}");
}
