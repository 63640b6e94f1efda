//! An approved command's whole process tree dies with `mcp-toolhub serve`, however the
//! server goes away mid-command: stdin closed, SIGTERM, SIGINT, SIGHUP, SIGKILL; and with
//! `mcp-hub` when the hub is SIGKILLed with ToolHub as its upstream. Real processes and real
//! signals; every wait polls a condition against a deadline.

#![allow(clippy::unwrap_used)]

mod common;

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

use common::{SERVER, Sandbox};
use serde_json::{Value, json};

/// How long the probe processes would live on their own.
const COMMAND_RUNTIME_SECS: u64 = 60;
/// How long, after the server is told to go, any probe process may take to die.
const GRACE: Duration = Duration::from_secs(5);
/// Pid files the probe tree writes (in the workspace, its working directory).
const PROBES: [&str; 4] = ["main.pid", "plain.pid", "setsid.pid", "ignore.pid"];

/// The probe: a plain background child, a `setsid` one, one ignoring SIGTERM, and the main
/// process itself; each records its own pid, then everything sleeps.
const TREE: &str = r#"
sh -c 'echo $$ > plain.pid.tmp && mv plain.pid.tmp plain.pid; exec sleep 60' &
setsid sh -c 'echo $$ > setsid.pid.tmp && mv setsid.pid.tmp setsid.pid; exec sleep 60' &
sh -c 'trap "" TERM; echo $$ > ignore.pid.tmp && mv ignore.pid.tmp ignore.pid; exec sleep 60' &
echo $$ > main.pid.tmp && mv main.pid.tmp main.pid
exec sleep 60
"#;

fn alive(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => {
            let state = stat.rsplit(')').next().unwrap_or("").trim_start();
            !state.starts_with('Z') && !state.starts_with('X')
        }
        Err(_) => false,
    }
}

/// Polls `cond` until it holds or `deadline` passes.
fn wait_until(deadline: Instant, mut cond: impl FnMut() -> bool) -> bool {
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

/// A line client over a spawned stdio server.
struct Client {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
}

impl Client {
    fn spawn(mut cmd: Command) -> Client {
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let stdin = child.stdin.take();
        Client {
            child,
            stdin,
            lines,
        }
    }

    fn send(&mut self, m: &Value) {
        let stdin = self.stdin.as_mut().unwrap();
        writeln!(stdin, "{m}").unwrap();
        stdin.flush().unwrap();
    }

    fn request(&mut self, id: u64, method: &str, params: Value) -> Value {
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        let deadline = Instant::now() + Duration::from_secs(15);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = self.lines.recv_timeout(left).expect("no response in time");
            let m: Value = serde_json::from_str(&line).unwrap();
            if m.get("id") == Some(&json!(id)) {
                return m;
            }
        }
    }

    fn initialize(&mut self) {
        let r = self.request(
            1,
            "initialize",
            json!({"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "server-death", "version": "1"}}),
        );
        assert!(r.get("result").is_some(), "{r}");
        self.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    }

    /// Tool names are prefixed by the hub (`prefix`), not by ToolHub itself.
    fn tool(&mut self, id: u64, name: &str, args: Value) -> Value {
        let r = self.request(id, "tools/call", json!({"name": name, "arguments": args}));
        r["result"]["structuredContent"].clone()
    }
}

/// Starts the probe tree through `shell.run` → approval → `shell.run_approved` (tool names
/// prefixed with `prefix`), without waiting for the call; returns the probe pids.
fn start_tree(sb: &Sandbox, c: &mut Client, prefix: &str) -> Vec<i32> {
    c.initialize();
    let r = c.tool(
        2,
        &format!("{prefix}shell.run"),
        json!({"program": "/bin/sh", "args": ["-c", TREE],
               "timeout_seconds": COMMAND_RUNTIME_SECS + 30}),
    );
    assert_eq!(r["outcome"], "APPROVAL_REQUIRED", "{r}");
    let rid = r["approval"]["request_id"].as_str().unwrap().to_string();
    sb.admin(&["approve", &rid], "APPROVE\n").success();
    c.send(&json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                   "params": {"name": format!("{prefix}shell.run_approved"),
                              "arguments": {"request_id": rid}}}));
    let deadline = Instant::now() + Duration::from_secs(15);
    let mut pids = Vec::new();
    let recorded = wait_until(deadline, || {
        pids = PROBES
            .iter()
            .filter_map(|f| std::fs::read_to_string(sb.workspace.join(f)).ok())
            .filter_map(|s| s.trim().parse().ok())
            .collect();
        pids.len() == PROBES.len()
    });
    assert!(recorded, "the probe tree did not start: {pids:?}");
    assert!(pids.iter().all(|&p| alive(p)), "{pids:?}");
    pids
}

/// Ends the server with `how` ("eof" or a signal name), then asserts it exits within
/// [`GRACE`] and no probe process survives it by more than [`GRACE`].
fn end_and_check(c: &mut Client, pids: &[i32], how: &str) {
    let started = Instant::now();
    if how == "eof" {
        drop(c.stdin.take());
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

fn toolhub(sb: &Sandbox) -> Client {
    let mut cmd = Command::new(SERVER);
    cmd.arg("serve")
        .env_clear()
        .envs(sb.env())
        .env("PATH", std::env::var("PATH").unwrap_or_default());
    Client::spawn(cmd)
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

/// `mcp-hub`, next to `mcp-toolhub` in the same target directory, built here under cargo so
/// it is never stale.
fn hub_bin() -> std::path::PathBuf {
    let dir = std::path::Path::new(SERVER).parent().unwrap();
    if let (Some(cargo), Some(target)) = (std::env::var_os("CARGO"), dir.parent()) {
        let profile = match dir.file_name().and_then(|n| n.to_str()) {
            Some("debug") | None => "dev".to_owned(),
            Some(other) => other.to_owned(),
        };
        let status = Command::new(cargo)
            .args(["build", "--quiet", "-p", "mcp-hub", "--bin", "mcp-hub"])
            .args(["--profile", &profile, "--target-dir"])
            .arg(target)
            .stdout(Stdio::null())
            .status()
            .unwrap();
        assert!(status.success(), "building mcp-hub failed");
    }
    dir.join("mcp-hub")
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
    let mut cmd = Command::new(hub_bin());
    cmd.arg(&config)
        .env_remove("MCP_HUB_CONFIG")
        .env_remove("RUST_LOG")
        .env_remove("MCP_HUB_STARTUP_TIMEOUT_MS");
    let mut c = Client::spawn(cmd);
    let pids = start_tree(&sb, &mut c, "th.");
    end_and_check(&mut c, &pids, "KILL");
}

/// Runs `program args` through approval and returns the `shell.run_approved` result.
fn run_approved(sb: &Sandbox, c: &mut Client, id: u64, program: &str, args: Value) -> Value {
    let r = c.tool(
        id,
        "shell.run",
        json!({"program": program, "args": args, "timeout_seconds": 2}),
    );
    assert_eq!(r["outcome"], "APPROVAL_REQUIRED", "{r}");
    let rid = r["approval"]["request_id"].as_str().unwrap().to_string();
    sb.admin(&["approve", &rid], "APPROVE\n").success();
    c.tool(id + 1, "shell.run_approved", json!({"request_id": rid}))
}

/// Through the supervisor, the server still reports what the command did: its exit code,
/// the signal that killed it (SIGTERM and SIGINT included, which the supervisor itself
/// blocks), a timeout ended by SIGTERM within the grace period, and output.
#[test]
fn exit_status_signal_and_timeout_are_reported_as_before() {
    let sb = Sandbox::new();
    let mut c = toolhub(&sb);
    c.initialize();
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
