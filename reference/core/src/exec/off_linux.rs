//! The fallbacks of execution where Linux's process interfaces are missing (procfs, splice,
//! `sigtimedwait`, the child subreaper, `pipe2`).
//!
//! Only Linux is built and tested (README, "Platforms"). The fallbacks live in this one file,
//! compiled only off Linux, so mutation testing leaves it out (`.cargo/mutants.toml`): on the
//! machine that runs it a mutant here is never compiled, and its "miss" would prove nothing.

use std::fs::File;
use std::os::fd::OwnedFd;
use std::time::Duration;

use nix::errno::Errno;
use nix::sys::signal::SigSet;

use super::capture::CaptureBuffer;
use super::procfs::ProcInfo;

/// No procfs: no process is visible (the process group and the main child are still
/// signalled).
pub(crate) fn snapshot() -> Vec<ProcInfo> {
    Vec::new()
}

/// No `sigtimedwait`: polls (never used: the supervisor is enabled on Linux only).
pub(super) fn wait_signal(_set: &SigSet, timeout: Duration) {
    std::thread::sleep(timeout);
}

/// No splice: discarded bytes are read like any others (`EINVAL` makes the drain fall back
/// to reading).
pub(super) fn discard(_: &OwnedFd, _: &File, _: &mut CaptureBuffer) -> nix::Result<usize> {
    Err(Errno::EINVAL)
}

/// No child subreaper: nothing to turn on.
pub(super) fn set_subreaper() -> Result<(), i32> {
    Ok(())
}

/// No supervisor, so no status pipe.
pub(super) fn cloexec_pipe() -> nix::Result<(OwnedFd, OwnedFd)> {
    Err(Errno::ENOSYS)
}
