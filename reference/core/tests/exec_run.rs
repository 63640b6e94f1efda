//! End-to-end tests of `exec::run`: results, environment, identity, capture and containment.
//!
//! Tests run in parallel threads of one process (which is the child subreaper for all of
//! them), so they also check that concurrent executions never kill each other's trees.
//! Nothing here sleeps to synchronise: children may sleep, the tests only wait for `run`.

#![allow(clippy::unwrap_used)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use mcp_safety_core::exec::{
    DEFAULT_GRACE, ExecError, ExecSpec, ExecutableIdentity, IdentityError,
    MAX_CAPTURE_BYTES_PER_STREAM, Termination, run,
};

fn spec(program: &str, args: &[&str]) -> ExecSpec {
    ExecSpec {
        program: PathBuf::from(program),
        args: args.iter().map(|a| (*a).to_owned()).collect(),
        cwd: PathBuf::from("/"),
        env: BTreeMap::new(),
        identity: None,
        timeout: Duration::from_secs(30),
        grace: DEFAULT_GRACE,
        capture_limit: MAX_CAPTURE_BYTES_PER_STREAM,
    }
}

/// `/bin/sh -c script` with a minimal PATH.
fn sh(script: &str) -> ExecSpec {
    let mut s = spec("/bin/sh", &["-c", script]);
    s.env.insert("PATH".into(), "/usr/bin:/bin".into());
    s
}

fn stdout(r: &mcp_safety_core::exec::ExecResult) -> String {
    r.stdout.text_with_marker()
}

/// Pids written one per line by a test script.
fn read_pids(path: &Path) -> Vec<i32> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| l.trim().parse().unwrap())
        .collect()
}

/// The process is gone entirely: not running and not left as anyone's zombie.
fn assert_gone(pids: &[i32]) {
    for pid in pids {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat"));
        assert!(stat.is_err(), "process {pid} still exists: {stat:?}");
    }
}

#[test]
fn exit_zero_with_output() {
    let r = run(&spec("/bin/echo", &["hello", "world"])).unwrap();
    assert_eq!(r.termination, Termination::Exited(0));
    assert_eq!(stdout(&r), "hello world\n");
    assert_eq!(r.stderr.total_bytes, 0);
    assert_eq!(r.descendants_killed, 0);
    assert!(!r.pipes_forced_closed);
}

#[test]
fn nonzero_exit_code_and_stderr() {
    let r = run(&sh("echo oops >&2; exit 7")).unwrap();
    assert_eq!(r.termination, Termination::Exited(7));
    assert_eq!(r.stderr.text_with_marker(), "oops\n");
    assert_eq!(r.stdout.total_bytes, 0);
}

#[test]
fn signal_termination_is_reported() {
    let r = run(&sh("kill -9 $$")).unwrap();
    assert_eq!(r.termination, Termination::Signaled(9));
}

#[test]
fn environment_is_exactly_the_given_map() {
    let r = run(&spec("/usr/bin/env", &[])).unwrap();
    assert_eq!(r.termination, Termination::Exited(0));
    assert_eq!(stdout(&r), "");
    let mut s = spec("/usr/bin/env", &[]);
    s.env.insert("B".into(), "two words".into());
    s.env.insert("A".into(), "1".into());
    let r = run(&s).unwrap();
    let mut lines: Vec<String> = stdout(&r).lines().map(str::to_owned).collect();
    lines.sort();
    assert_eq!(lines, ["A=1", "B=two words"]);
}

#[test]
fn cwd_is_honoured() {
    let dir = tempfile::tempdir().unwrap();
    let cwd = std::fs::canonicalize(dir.path()).unwrap();
    let mut s = spec("/bin/pwd", &[]);
    s.cwd = cwd.clone();
    let r = run(&s).unwrap();
    assert_eq!(stdout(&r), format!("{}\n", cwd.display()));
}

#[test]
fn invalid_specs_and_missing_programs_fail_to_spawn() {
    let err = run(&spec("relative/prog", &[])).unwrap_err();
    assert_eq!(err.code(), "SPAWN_FAILED");
    let err = run(&spec("/nonexistent/program", &[])).unwrap_err();
    assert!(matches!(err, ExecError::Spawn(_)), "{err:?}");
    let mut s = spec("/bin/true", &[]);
    s.cwd = PathBuf::from("/nonexistent/dir");
    assert_eq!(run(&s).unwrap_err().code(), "SPAWN_FAILED");
}

/// A relative program or cwd is refused before anything starts, even where it would resolve
/// (a PATH lookup, the server's own working directory): what runs never depends on them.
#[test]
fn relative_program_or_cwd_is_refused_even_when_it_would_resolve() {
    let invalid_input = |s: &ExecSpec| match run(s) {
        Err(ExecError::Spawn(e)) => e.kind() == std::io::ErrorKind::InvalidInput,
        other => panic!("{other:?}"),
    };
    let mut on_path = spec("true", &[]);
    on_path.env.insert("PATH".into(), "/usr/bin:/bin".into());
    assert!(invalid_input(&on_path));
    let mut relative_cwd = spec("/bin/true", &[]);
    relative_cwd.cwd = PathBuf::from(".");
    assert!(invalid_input(&relative_cwd));
}

#[test]
fn identity_is_verified_before_anything_runs() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("ran");
    let script = dir.path().join("tool.sh");
    std::fs::write(
        &script,
        format!("#!/bin/sh\necho x > '{}'\n", marker.display()),
    )
    .unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let identity = ExecutableIdentity::of(&script).unwrap();
    let mut s = spec(script.to_str().unwrap(), &[]);
    s.identity = Some(identity.clone());

    // Same size, different bytes: the hash catches it.
    std::fs::write(
        &script,
        format!("#!/bin/sh\necho y > '{}'\n", marker.display()),
    )
    .unwrap();
    let err = run(&s).unwrap_err();
    assert!(
        matches!(
            err,
            ExecError::Identity(IdentityError::Changed { what: "sha256" })
        ),
        "{err:?}"
    );
    assert_eq!(err.code(), "EXECUTABLE_CHANGED");
    assert!(!marker.exists(), "the changed program ran");

    std::fs::write(
        &script,
        format!("#!/bin/sh\necho x > '{}'\n", marker.display()),
    )
    .unwrap();
    let r = run(&s).unwrap();
    assert_eq!(r.termination, Termination::Exited(0));
    assert!(marker.exists());

    std::fs::remove_file(&script).unwrap();
    assert_eq!(run(&s).unwrap_err().code(), "PROGRAM_NOT_FOUND");
}

#[test]
fn large_concurrent_stdout_and_stderr_are_counted_exactly() {
    let r = run(&sh(
        "head -c 2097152 /dev/zero & head -c 3145728 /dev/zero >&2 & wait",
    ))
    .unwrap();
    assert_eq!(r.termination, Termination::Exited(0));
    // "Each stream retains at most 256 KiB (MAX_CAPTURE_BYTES_PER_STREAM)": the number, not
    // the constant, so a changed constant fails here.
    let cap = 256 * 1024;
    assert_eq!(MAX_CAPTURE_BYTES_PER_STREAM as u64, cap);
    for (c, total) in [(&r.stdout, 2_097_152u64), (&r.stderr, 3_145_728)] {
        assert_eq!(c.total_bytes, total);
        assert_eq!(c.retained_bytes, cap);
        assert_eq!(c.dropped_bytes, total - cap);
        assert!(c.bytes.iter().all(|&b| b == 0));
        assert!(c.text_with_marker().ends_with(&format!(
            "\n[ToolHub discarded {} output bytes]",
            total - cap
        )));
    }
    assert!(!r.pipes_forced_closed);
}

#[test]
fn timeout_kills_the_whole_tree_and_reaps_it() {
    let dir = tempfile::tempdir().unwrap();
    let pids = dir.path().join("pids");
    let p = pids.display();
    // A setsid'd descendant, one ignoring SIGTERM, one holding the pipes; the main shell
    // itself ignores SIGTERM too, so the grace period must expire. It reports "ready" only
    // once all four pids are in the file.
    let script = format!(
        "trap '' TERM; echo $$ >> '{p}'
         setsid sh -c 'echo $$ >> \"$0\"; exec sleep 300' '{p}' &
         sh -c 'trap \"\" TERM; echo $$ >> \"$0\"; exec sleep 300' '{p}' &
         sh -c 'echo $$ >> \"$0\"; exec sleep 300' '{p}' &
         while [ \"$(wc -l < '{p}')\" -lt 4 ]; do sleep 0.01; done
         echo ready
         wait"
    );
    let mut s = sh(&script);
    s.timeout = Duration::from_secs(3);
    s.grace = Duration::from_millis(300);
    let started = Instant::now();
    let r = run(&s).unwrap();
    let elapsed = started.elapsed();
    assert_eq!(r.termination, Termination::TimedOut);
    assert_eq!(
        stdout(&r),
        "ready\n",
        "the tree was not set up before the timeout"
    );
    assert!(
        elapsed < s.timeout + s.grace + Duration::from_secs(2),
        "took {elapsed:?}"
    );
    let all = read_pids(&pids);
    assert_eq!(all.len(), 4);
    assert_gone(&all);
    assert!(r.descendants_killed >= 3, "{}", r.descendants_killed);
}

#[test]
fn success_path_kills_a_descendant_holding_the_pipes() {
    let dir = tempfile::tempdir().unwrap();
    let pidfile = dir.path().join("pid");
    let script = format!("sleep 300 & echo $! > '{}'; echo done", pidfile.display());
    let started = Instant::now();
    let r = run(&sh(&script)).unwrap();
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(r.termination, Termination::Exited(0));
    assert_eq!(stdout(&r), "done\n");
    assert_eq!(r.descendants_killed, 1);
    assert!(!r.pipes_forced_closed);
    assert_gone(&read_pids(&pidfile));
}

#[test]
fn escaped_and_orphaned_descendant_is_still_killed() {
    let dir = tempfile::tempdir().unwrap();
    let pidfile = dir.path().join("pid");
    let p = pidfile.display();
    // The descendant leaves the session, drops the pipes, and is orphaned when the main
    // shell exits (after living long enough for the tree walk to record it).
    let script = format!(
        "setsid sh -c 'echo $$ > \"$0\"; exec sleep 300' '{p}' </dev/null >/dev/null 2>&1 &
         while [ ! -s '{p}' ]; do sleep 0.01; done
         sleep 0.3; echo bye"
    );
    let r = run(&sh(&script)).unwrap();
    assert_eq!(r.termination, Termination::Exited(0));
    assert_eq!(stdout(&r), "bye\n");
    assert_eq!(r.descendants_killed, 1);
    assert_gone(&read_pids(&pidfile));
}

#[test]
fn concurrent_executions_do_not_touch_each_other() {
    let long = std::thread::spawn(|| run(&sh("sleep 1.5 & wait; echo survived")).unwrap());
    let others: Vec<_> = (0..6)
        .map(|i| {
            std::thread::spawn(move || {
                let mut s = sh("sleep 300 & sleep 300 & echo started; wait");
                s.timeout = Duration::from_millis(400 + 50 * i);
                s.grace = Duration::from_millis(50);
                let r = run(&s).unwrap();
                assert_eq!(r.termination, Termination::TimedOut);
                assert_eq!(r.descendants_killed, 2);
                let r = run(&sh("sleep 300 & echo quick")).unwrap();
                assert_eq!(r.termination, Termination::Exited(0));
                assert_eq!(r.descendants_killed, 1);
            })
        })
        .collect();
    for t in others {
        t.join().unwrap();
    }
    let r = long.join().unwrap();
    assert_eq!(r.termination, Termination::Exited(0));
    assert_eq!(stdout(&r), "survived\n");
    assert_eq!(r.descendants_killed, 0);
}

#[test]
fn small_capture_limit_marks_the_discarded_bytes() {
    let mut s = sh("printf 'abcdefghij'");
    s.capture_limit = 4;
    let r = run(&s).unwrap();
    assert_eq!(stdout(&r), "abcd\n[ToolHub discarded 6 output bytes]");
    assert_eq!(r.stdout.retained_chars(), 4);
}

/// Past the limit the bytes are moved to /dev/null in the kernel, and still counted, each one.
#[test]
fn output_far_past_the_limit_is_counted_exactly() {
    let mut s = sh("head -c 3000000 /dev/zero");
    s.capture_limit = 4;
    let r = run(&s).unwrap();
    assert_eq!(r.termination, Termination::Exited(0));
    assert_eq!(r.stdout.total_bytes, 3_000_000);
    assert_eq!(r.stdout.retained_bytes, 4);
    assert_eq!(r.stdout.discarded_bytes(), 2_999_996);
}

/// A writer that fills stderr before it writes a byte to stdout: the drain reads whichever
/// pipe has data, never blocks on the empty one while the other fills.
#[test]
fn a_writer_that_fills_stderr_before_stdout_is_drained() {
    let r = run(&sh(
        "head -c 600000 /dev/zero >&2; head -c 600000 /dev/zero",
    ))
    .unwrap();
    assert_eq!(r.termination, Termination::Exited(0));
    assert_eq!(r.stderr.total_bytes, 600_000);
    assert_eq!(r.stdout.total_bytes, 600_000);
}
