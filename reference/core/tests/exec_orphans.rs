//! Orphans that escaped an execution before any walk of the tree could record them: they
//! left its session and were reparented to us (the child subreaper). Such an orphan is
//! claimed only when no other execution is live, so this binary runs its executions one
//! after another, never beside another test.

#![allow(clippy::unwrap_used)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use mcp_safety_core::exec::{
    DEFAULT_GRACE, ExecSpec, MAX_CAPTURE_BYTES_PER_STREAM, Termination, run,
};
use mcp_testkit::procs::alive;

fn sh(script: &str, cwd: &Path) -> ExecSpec {
    ExecSpec {
        program: PathBuf::from("/bin/sh"),
        args: vec!["-c".into(), script.into()],
        cwd: cwd.to_path_buf(),
        env: BTreeMap::from([("PATH".into(), "/usr/bin:/bin".into())]),
        identity: None,
        timeout: Duration::from_secs(30),
        grace: DEFAULT_GRACE,
        capture_limit: MAX_CAPTURE_BYTES_PER_STREAM,
    }
}

/// `setsid -f` forks, and its child leaves the session at once; the parent exits, so the
/// child is orphaned to us within a few milliseconds, usually before the first walk (10 ms).
/// The main shell exits only once the orphan is ours (its parent is the main shell's parent).
const ESCAPE: &str = r#"
setsid -f sh -c 'echo $$ > orphan.pid.tmp && mv orphan.pid.tmp orphan.pid; exec sleep 60' \
  </dev/null >/dev/null 2>&1
while [ ! -s orphan.pid ]; do sleep 0.01; done
while [ "$(cut -d' ' -f4 /proc/$(cat orphan.pid)/stat)" != "$PPID" ]; do sleep 0.01; done
echo escaped"#;

/// The second execution's orphan is claimed too: the first one, finished, no longer counts
/// as live (a finished execution that stayed registered would make every later orphan
/// "someone else's" and leave it running).
#[test]
fn an_orphan_that_escaped_is_killed_after_earlier_executions_finished() {
    let dir = tempfile::tempdir().unwrap();
    let first = run(&sh("echo first", dir.path())).unwrap();
    assert_eq!(first.termination, Termination::Exited(0));
    for round in 0..3 {
        std::fs::remove_file(dir.path().join("orphan.pid")).ok();
        let r = run(&sh(ESCAPE, dir.path())).unwrap();
        assert_eq!(r.termination, Termination::Exited(0));
        assert_eq!(r.stdout.text_with_marker(), "escaped\n");
        let pid: i32 = std::fs::read_to_string(dir.path().join("orphan.pid"))
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        let survived = alive(pid);
        if survived {
            let _ =
                nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), nix::sys::signal::SIGKILL);
        }
        assert!(
            !survived,
            "round {round}: orphan {pid} outlived its execution"
        );
        assert_eq!(r.descendants_killed, 1, "round {round}");
    }
}
