//! Life of a descendant probe: set up as asked, record its pid, grow its own subtree,
//! report ready to its parent, then live for a bounded time.
//!
//! Descendants are what process-containment scenarios try to clean up, so they can leave
//! the session, ignore SIGTERM and hold (or drop) the inherited pipes on demand.

use std::fs::File;
use std::io::Write;
use std::os::fd::{FromRawFd, OwnedFd};
use std::os::unix::fs::FileTypeExt;
use std::process::ExitCode;
use std::time::Duration;

use nix::fcntl::{FcntlArg, FdFlag, fcntl};
use nix::sys::signal::{SigHandler, Signal, signal};

use super::info::append_pid;
use super::tree::{TreeSpec, spawn_children};

/// The longest a descendant lives, whatever `--descendant-sleep-ms` says.
const MAX_LIFETIME: Duration = Duration::from_secs(3600);

/// Runs a descendant whose parent listens for readiness on `ready_fd`.
pub fn run(ready_fd: i32, spec: &TreeSpec) -> ExitCode {
    let ready = adopt_ready_fd(ready_fd);
    if ready.is_none() {
        warn(&format!(
            "--ready-fd {ready_fd} is not an inherited pipe; not reporting ready"
        ));
    }
    if spec.new_session
        && let Err(e) = nix::unistd::setsid()
    {
        warn(&format!("setsid failed: {e}"));
    }
    if spec.ignore_sigterm
        && let Err(e) = ignore_sigterm()
    {
        warn(&format!("cannot ignore SIGTERM: {e}"));
    }
    if let Some(pidfile) = &spec.pidfile
        && let Err(e) = append_pid(pidfile)
    {
        warn(&format!(
            "cannot append to pidfile {}: {e}",
            pidfile.display()
        ));
    }
    if let Err(e) = spawn_children(spec) {
        warn(&e);
    }
    if let Some(mut ready) = ready {
        // The parent only counts bytes; a failure means it already gave up waiting.
        let _ = ready.write_all(b".");
    }
    std::thread::sleep(Duration::from_millis(spec.sleep_ms).min(MAX_LIFETIME));
    ExitCode::SUCCESS
}

fn warn(message: &str) {
    let _ = writeln!(
        std::io::stderr(),
        "probe (descendant {}): {message}",
        std::process::id()
    );
}

/// Takes ownership of the readiness pipe our parent passed by number, and keeps it from
/// leaking into our own children.
fn adopt_ready_fd(fd: i32) -> Option<File> {
    // Only adopt what is really an open pipe, so a hand-typed `--ready-fd` cannot make us
    // own (and later close) an unrelated descriptor.
    let is_pipe = [format!("/dev/fd/{fd}"), format!("/proc/self/fd/{fd}")]
        .iter()
        .any(|path| std::fs::metadata(path).is_ok_and(|meta| meta.file_type().is_fifo()));
    if fd <= 2 || !is_pipe {
        return None;
    }
    let owned = own_inherited_fd(fd);
    fcntl(&owned, FcntlArg::F_SETFD(FdFlag::FD_CLOEXEC)).ok()?;
    Some(File::from(owned))
}

#[allow(unsafe_code)]
fn own_inherited_fd(fd: i32) -> OwnedFd {
    // SAFETY: `fd` was checked above to be an open pipe descriptor (not stdio). It is the
    // readiness pipe our parent left open across exec for us alone; nothing else in this
    // process knows or uses it, so taking sole ownership cannot alias another owner.
    unsafe { OwnedFd::from_raw_fd(fd) }
}

#[allow(unsafe_code)]
fn ignore_sigterm() -> nix::Result<()> {
    // SAFETY: SIG_IGN installs no handler, so no code of ours ever runs in signal context;
    // the process is single-threaded here and nothing else manages SIGTERM.
    unsafe { signal(Signal::SIGTERM, SigHandler::SigIgn) }.map(drop)
}
