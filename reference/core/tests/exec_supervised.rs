//! `exec::run` as the servers use it: with the per-execution supervisor enabled.
//!
//! The supervisor is the server's own executable started with a hidden first argument, so it
//! can only be exercised from a binary whose `main` calls `dispatch_if_requested`: this test
//! is such a binary (`harness = false`). It plays three roles:
//! - started with the supervisor's marker: the supervisor (never returns);
//! - started with `MCP_CORE_SUPERVISED_ROLE=server`: a "server" that runs the probe tree
//!   through `exec::run` and blocks until the test SIGKILLs it;
//! - otherwise: the test harness, running each case below and exiting non-zero on a failure.
//!
//! Every command gets `MCP_CORE_SUPERVISED_NESTED=1` in its environment (the supervisor runs
//! with exactly the command's environment): a build in which the supervisor is started
//! without its marker finds it and exits at once instead of starting the harness again.
//! Nothing here sleeps to synchronise: commands may sleep or poll, the tests wait for `run`
//! or for a condition with a deadline.

#![allow(clippy::unwrap_used)]

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::{Duration, Instant};

use mcp_safety_core::exec::{
    DEFAULT_GRACE, ExecError, ExecSpec, MAX_CAPTURE_BYTES_PER_STREAM, Termination, run, supervisor,
};
use mcp_testkit::procs::{PROBE_TREE_SCRIPT, alive, probe_pids, wait_until};

const ROLE: &str = "MCP_CORE_SUPERVISED_ROLE";
const NESTED: &str = "MCP_CORE_SUPERVISED_NESTED";
/// For the "server": a script to run instead of the probe tree.
const SCRIPT: &str = "MCP_CORE_SUPERVISED_SCRIPT";
/// Exit code of this binary when it finds itself started where a supervisor should run.
const MISDISPATCHED: u8 = 99;
/// How long a command may run in a case: a supervisor that never reports the command's exit
/// shows up as a timeout, well before a test-wide one.
const CASE_TIMEOUT: Duration = Duration::from_secs(10);
/// How long the tree and the supervisor may outlive a SIGKILLed server. The supervisor polls
/// its parent every 200 ms; its own kill loop gives up after 10 s.
const AFTER_DEATH: Duration = Duration::from_secs(5);

fn main() -> ExitCode {
    supervisor::dispatch_if_requested();
    if std::env::args_os().nth(1).as_deref() == Some(OsStr::new(supervisor::MARKER)) {
        eprintln!("dispatch_if_requested returned for a supervisor's arguments");
        return ExitCode::from(MISDISPATCHED);
    }
    if std::env::var_os(NESTED).is_some() {
        eprintln!("started with a command's environment but without the supervisor's marker");
        return ExitCode::from(MISDISPATCHED);
    }
    if std::env::var_os(ROLE).is_some_and(|r| r == "server") {
        return server();
    }
    supervisor::enable().unwrap();
    harness()
}

/// The cases, by name; `cargo test --test exec_supervised NAME` runs those containing NAME.
const CASES: &[(&str, fn())] = &[
    ("exit_code_passes_through", exit_code_passes_through),
    ("signal_passes_through", signal_passes_through),
    (
        "orphans_exits_are_not_the_commands",
        orphans_exits_are_not_the_commands,
    ),
    (
        "start_failures_are_reported_as_a_direct_spawns",
        start_failures_are_reported_as_a_direct_spawns,
    ),
    (
        "command_starts_with_no_blocked_or_ignored_signal",
        command_starts_with_no_blocked_or_ignored_signal,
    ),
    (
        "server_sigkill_ends_the_tree_and_the_supervisor",
        server_sigkill_ends_the_tree_and_the_supervisor,
    ),
    (
        "a_tree_forking_while_it_is_killed_leaves_nothing",
        a_tree_forking_while_it_is_killed_leaves_nothing,
    ),
];

fn harness() -> ExitCode {
    let filters: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let chosen: Vec<_> = CASES
        .iter()
        .filter(|(name, _)| filters.is_empty() || filters.iter().any(|f| name.contains(f.as_str())))
        .collect();
    println!("\nrunning {} tests", chosen.len());
    let mut failed = Vec::new();
    for (name, case) in &chosen {
        let ok = std::panic::catch_unwind(case).is_ok();
        println!("test {name} ... {}", if ok { "ok" } else { "FAILED" });
        if !ok {
            failed.push(*name);
        }
    }
    let passed = chosen.len() - failed.len();
    if failed.is_empty() {
        println!("\ntest result: ok. {passed} passed; 0 failed\n");
        ExitCode::SUCCESS
    } else {
        println!(
            "\nfailures: {failed:?}\ntest result: FAILED. {passed} passed; {} failed\n",
            failed.len()
        );
        ExitCode::FAILURE
    }
}

/// `/bin/sh -c script` in `cwd`, with a minimal PATH and the nesting guard.
fn sh(script: &str, cwd: &Path) -> ExecSpec {
    let mut env = BTreeMap::new();
    env.insert("PATH".to_owned(), "/usr/bin:/bin".to_owned());
    env.insert(NESTED.to_owned(), "1".to_owned());
    ExecSpec {
        program: PathBuf::from("/bin/sh"),
        args: vec!["-c".to_owned(), script.to_owned()],
        cwd: cwd.to_path_buf(),
        env,
        identity: None,
        timeout: CASE_TIMEOUT,
        grace: DEFAULT_GRACE,
        capture_limit: MAX_CAPTURE_BYTES_PER_STREAM,
    }
}

fn exit_code_passes_through() {
    let dir = tempfile::tempdir().unwrap();
    let r = run(&sh("echo hello; exit 7", dir.path())).unwrap();
    assert_eq!(r.termination, Termination::Exited(7));
    assert_eq!(r.stdout.text_with_marker(), "hello\n");
    let r = run(&sh("exit 0", dir.path())).unwrap();
    assert_eq!(r.termination, Termination::Exited(0));
}

/// The supervisor re-raises the command's signal, so the server reports a signal, not 128+N.
fn signal_passes_through() {
    let dir = tempfile::tempdir().unwrap();
    for sig in [9, 15] {
        let r = run(&sh(&format!("kill -{sig} $$"), dir.path())).unwrap();
        assert_eq!(r.termination, Termination::Signaled(sig));
    }
}

/// Orphans of the command are reparented to the supervisor (a subreaper) and reaped by it;
/// their exit status or signal is not the command's. The command waits until both are
/// reaped (gone from /proc) before it exits 0.
fn orphans_exits_are_not_the_commands() {
    let dir = tempfile::tempdir().unwrap();
    let script = r#"
( sh -c 'exit 3' & echo $! > exited.pid )
( sh -c 'kill -9 $$' & echo $! > killed.pid )
for f in exited.pid killed.pid; do
  while [ -e /proc/$(cat $f) ]; do sleep 0.01; done
done
exit 0"#;
    let r = run(&sh(script, dir.path())).unwrap();
    assert_eq!(
        r.termination,
        Termination::Exited(0),
        "{}",
        r.stderr.text_with_marker()
    );
}

/// A command the supervisor cannot start is the same error as a direct spawn's, with the
/// errno of the failed exec.
fn start_failures_are_reported_as_a_direct_spawns() {
    let dir = tempfile::tempdir().unwrap();
    let mut missing = sh("", dir.path());
    missing.program = PathBuf::from("/nonexistent/program");
    let err = run(&missing).unwrap_err();
    assert!(
        matches!(&err, ExecError::Spawn(e) if e.raw_os_error() == Some(nix::libc::ENOENT)),
        "{err:?}"
    );
    // The supervisor that reported the failure was reaped before the error returned.
    assert_eq!(children_of_this_process(), Vec::<i32>::new());
    let not_executable = dir.path().join("data.txt");
    std::fs::write(&not_executable, "not a program\n").unwrap();
    let mut denied = sh("", dir.path());
    denied.program = not_executable;
    let err = run(&denied).unwrap_err();
    assert!(
        matches!(&err, ExecError::Spawn(e) if e.raw_os_error() == Some(nix::libc::EACCES)),
        "{err:?}"
    );
}

/// The supervisor blocks the signals it waits for; the command must not inherit that mask
/// (a blocked SIGTERM would make the timeout's polite stop useless).
#[allow(unsafe_code)]
fn command_starts_with_no_blocked_or_ignored_signal() {
    use nix::sys::signal::{SigHandler, Signal, signal};
    // A server started under `nohup`, or in the background of a non-interactive shell,
    // ignores SIGHUP or SIGINT and SIGQUIT; an ignored signal stays ignored across exec, so a
    // command would inherit that unless the execution resets it.
    let ignored = [Signal::SIGHUP, Signal::SIGINT, Signal::SIGQUIT];
    // SAFETY: SIG_IGN installs no handler; the harness runs its cases one at a time.
    let before: Vec<SigHandler> = ignored
        .iter()
        .map(|&sig| unsafe { signal(sig, SigHandler::SigIgn) }.unwrap())
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let r = run(&sh(
        "grep -E '^Sig(Blk|Ign):' /proc/self/status",
        dir.path(),
    ));
    for (&sig, &handler) in ignored.iter().zip(&before) {
        // SAFETY: puts back what was there.
        unsafe { signal(sig, handler) }.unwrap();
    }
    let r = r.unwrap();
    assert_eq!(r.termination, Termination::Exited(0));
    let text = r.stdout.text_with_marker();
    let mask = |name: &str| {
        let line = text.lines().find(|l| l.starts_with(name)).unwrap();
        u64::from_str_radix(line.rsplit('\t').next().unwrap(), 16).unwrap()
    };
    assert_eq!(mask("SigBlk:"), 0, "{text}");
    // Every signal but 32 and 33 (bits 31 and 32): those are the C library's own (thread
    // cancellation), which it will not let a program change and which the machine running
    // this may ignore already.
    assert_eq!(mask("SigIgn:") & !0x1_8000_0000, 0, "{text}");
}

/// A server killed with SIGKILL cleans nothing up itself: its supervisor must end the whole
/// probe tree (plain, setsid'd and TERM-ignoring descendants) and then exit.
fn server_sigkill_ends_the_tree_and_the_supervisor() {
    let dir = tempfile::tempdir().unwrap();
    let mut server = Command::new(std::env::current_exe().unwrap())
        .env(ROLE, "server")
        .current_dir(dir.path())
        .spawn()
        .unwrap();
    let pids = probe_pids(dir.path(), Instant::now() + Duration::from_secs(15));
    let main = pids[0];
    let supervisor = parent_of(main);
    assert_ne!(
        supervisor,
        server.id() as i32,
        "the command runs under a supervisor"
    );
    assert_eq!(parent_of(supervisor), server.id() as i32);
    server.kill().unwrap();
    let status = server.wait().unwrap();
    assert_eq!(status.signal(), Some(9));
    let mut all = pids.clone();
    all.push(supervisor);
    let gone = wait_until(Instant::now() + AFTER_DEATH, || {
        all.iter().all(|&p| !alive(p))
    });
    let survivors: Vec<i32> = all.iter().copied().filter(|&p| alive(p)).collect();
    for &p in &survivors {
        let _ = nix::sys::signal::kill(nix::unistd::Pid::from_raw(p), nix::sys::signal::SIGKILL);
    }
    assert!(
        gone,
        "survivors {survivors:?} of {all:?} (the last is the supervisor)"
    );
}

/// A command that keeps forking while its supervisor kills it: what was forked after one
/// look at the process table is only found by the next, so the supervisor must look again
/// until nothing is left, not kill once and leave.
fn a_tree_forking_while_it_is_killed_leaves_nothing() {
    let dir = tempfile::tempdir().unwrap();
    // Every process of the tree carries the token in its environment: survivors are found
    // by it wherever they were reparented.
    let token = format!(
        "storm-{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos()
    );
    let script = format!(
        "export FORK_STORM={token}; echo $$ > main.pid; \
         for s in 1 2 3 4; do (i=0; while [ $i -lt 800 ]; do sleep 1000 & i=$((i+1)); \
         if [ $i -eq 50 ]; then : > forking.$s; fi; done; wait) & done; wait"
    );
    let mut server = Command::new(std::env::current_exe().unwrap())
        .env(ROLE, "server")
        .env(SCRIPT, &script)
        .current_dir(dir.path())
        .spawn()
        .unwrap();
    // Four shells fork side by side, so some fork lands between any look and its kills.
    let started = wait_until(Instant::now() + Duration::from_secs(15), || {
        (1..=4).all(|s| dir.path().join(format!("forking.{s}")).exists())
    });
    let main: i32 = std::fs::read_to_string(dir.path().join("main.pid"))
        .unwrap_or_default()
        .trim()
        .parse()
        .unwrap_or(0);
    let supervisor = if main > 0 { parent_of(main) } else { 0 };
    server.kill().unwrap();
    server.wait().unwrap();
    assert!(started && supervisor > 0, "the storm never started");
    let supervisor_gone = wait_until(Instant::now() + AFTER_DEATH, || !alive(supervisor));
    // The supervisor reaps everything before it exits: nothing may be alive once it is gone
    // (a short wait only for processes already SIGKILLed but not yet torn down).
    let gone = wait_until(Instant::now() + Duration::from_secs(1), || {
        carrying(&token).is_empty()
    });
    let survivors = carrying(&token);
    // Clean up after a failure: survivors may still be forking, so until none is left.
    wait_until(Instant::now() + AFTER_DEATH, || {
        let left = carrying(&token);
        for &p in &left {
            let _ =
                nix::sys::signal::kill(nix::unistd::Pid::from_raw(p), nix::sys::signal::SIGKILL);
        }
        left.is_empty()
    });
    assert!(
        supervisor_gone,
        "the supervisor {supervisor} outlived its server"
    );
    assert!(
        gone,
        "{} processes of the tree survived its supervisor",
        survivors.len()
    );
}

/// Live processes whose environment carries `token`.
fn carrying(token: &str) -> Vec<i32> {
    let needle = format!("FORK_STORM={token}");
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i32>().ok())
        .filter(|&pid| {
            alive(pid)
                && std::fs::read(format!("/proc/{pid}/environ"))
                    .is_ok_and(|env| env.split(|&b| b == 0).any(|var| var == needle.as_bytes()))
        })
        .collect()
}

/// The "server": runs the probe tree (or the script it was given) in its working directory
/// and blocks until killed.
fn server() -> ExitCode {
    supervisor::enable().unwrap();
    let cwd = std::env::current_dir().unwrap();
    let script = std::env::var(SCRIPT).unwrap_or_else(|_| PROBE_TREE_SCRIPT.to_owned());
    let mut spec = sh(&script, &cwd);
    spec.timeout = Duration::from_secs(60);
    let r = run(&spec);
    eprintln!("the probe tree ended before the server was killed: {r:?}");
    ExitCode::FAILURE
}

/// Every process (zombies included) whose parent is this process.
fn children_of_this_process() -> Vec<i32> {
    let me = std::process::id().to_string();
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i32>().ok())
        .filter(|pid| {
            std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
                let after_name = stat.rsplit(')').next().unwrap_or("");
                after_name.split_whitespace().nth(1) == Some(me.as_str())
            })
        })
        .collect()
}

/// The parent pid of `pid`, from /proc.
fn parent_of(pid: i32) -> i32 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    let fields: Vec<&str> = stat
        .rsplit(')')
        .next()
        .unwrap()
        .split_whitespace()
        .collect();
    fields[1].parse().unwrap()
}
