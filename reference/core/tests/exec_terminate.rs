//! `exec::terminate_all`: a server whose input closed ends its running executions at once,
//! and every later one. Its own test binary: the switch is process-wide and never turned off.

#![allow(clippy::unwrap_used)]

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use mcp_safety_core::exec::{
    DEFAULT_GRACE, ExecSpec, MAX_CAPTURE_BYTES_PER_STREAM, Termination, run, terminate_all,
};
use mcp_testkit::procs::wait_until;

fn sleeper(dir: &std::path::Path) -> ExecSpec {
    ExecSpec {
        program: PathBuf::from("/bin/sh"),
        args: vec!["-c".into(), "echo $$ > started; exec sleep 60".into()],
        cwd: dir.to_path_buf(),
        env: BTreeMap::from([("PATH".into(), "/usr/bin:/bin".into())]),
        identity: None,
        timeout: Duration::from_secs(60),
        grace: DEFAULT_GRACE,
        capture_limit: MAX_CAPTURE_BYTES_PER_STREAM,
    }
}

#[test]
fn running_and_later_executions_end_at_once_killed() {
    let dir = tempfile::tempdir().unwrap();
    let spec = sleeper(dir.path());
    let running = std::thread::spawn(move || run(&spec).unwrap());
    let started = dir.path().join("started");
    assert!(wait_until(Instant::now() + Duration::from_secs(10), || {
        started.exists()
    }));
    let asked = Instant::now();
    terminate_all();
    let r = running.join().unwrap();
    assert_eq!(r.termination, Termination::Signaled(9));
    assert!(
        asked.elapsed() < Duration::from_secs(5),
        "{:?}",
        asked.elapsed()
    );

    let later = Instant::now();
    let r = run(&sleeper(dir.path())).unwrap();
    assert_eq!(r.termination, Termination::Signaled(9));
    assert!(
        later.elapsed() < Duration::from_secs(5),
        "{:?}",
        later.elapsed()
    );
}
