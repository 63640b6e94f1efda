//! Draining stdout and stderr concurrently into bounded captures.
//!
//! One thread polls both pipes from the moment the child exists, reading 64 KiB chunks, so
//! a child (or a descendant holding the pipes) never blocks on a full pipe. The supervisor
//! stops the drain with a deadline once the tree is gone; if a pipe has not reached EOF by
//! then, our read ends are dropped anyway (the "forced close" final unblock).

use std::fs::File;
use std::os::fd::{AsFd, OwnedFd};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use nix::errno::Errno;
use nix::fcntl::{FcntlArg, fcntl};
use nix::poll::{PollFd, PollFlags, PollTimeout, poll};

use super::capture::{CaptureBuffer, Captured};

/// Size of one read.
const READ_CHUNK: usize = 64 * 1024;
/// Most bytes moved to `/dev/null` by one splice once the capture is full.
const SPLICE_CHUNK: usize = 1024 * 1024;
/// Pipe capacity we ask for (4x the default), so a fast writer is switched away from less
/// often. Kept moderate because pipe capacity counts against the user's pipe-buffer limit
/// whether used or not. Failure is harmless.
const PIPE_SIZE: i32 = 256 * 1024;
/// How often the drain looks for a deadline while none is set.
const IDLE_CHECK: Duration = Duration::from_millis(50);

/// What the drain produced.
#[derive(Debug)]
pub(crate) struct DrainOutcome {
    pub stdout: Captured,
    pub stderr: Captured,
    /// The deadline passed before both pipes reached EOF.
    pub forced_closed: bool,
}

/// A running drain thread.
#[derive(Debug)]
pub(crate) struct Drain {
    deadline: Arc<Mutex<Option<Instant>>>,
    handle: Option<JoinHandle<DrainOutcome>>,
}

impl Drain {
    /// Starts draining both pipes, each into a capture of `limit` bytes.
    pub fn start(stdout: OwnedFd, stderr: OwnedFd, limit: usize) -> std::io::Result<Self> {
        for fd in [&stdout, &stderr] {
            let _ = fcntl(fd, FcntlArg::F_SETPIPE_SZ(PIPE_SIZE));
        }
        let deadline = Arc::new(Mutex::new(None));
        let shared = Arc::clone(&deadline);
        let handle = std::thread::Builder::new()
            .name("exec-drain".into())
            .spawn(move || drain([stdout, stderr], limit, &shared))?;
        Ok(Self {
            deadline,
            handle: Some(handle),
        })
    }

    /// Lets the drain continue until EOF on both pipes or `deadline`, then returns what it
    /// captured. `None` only if the drain thread panicked.
    pub fn finish(mut self, deadline: Instant) -> Option<DrainOutcome> {
        self.set_deadline(deadline);
        self.handle.take()?.join().ok()
    }

    fn set_deadline(&self, deadline: Instant) {
        let mut slot = self.deadline.lock().unwrap_or_else(PoisonError::into_inner);
        if slot.is_none_or(|d| deadline < d) {
            *slot = Some(deadline);
        }
    }
}

impl Drop for Drain {
    /// On an early exit the thread is not joined, but it is told to stop soon.
    fn drop(&mut self) {
        if self.handle.is_some() {
            self.set_deadline(Instant::now() + Duration::from_secs(1));
        }
    }
}

fn drain(fds: [OwnedFd; 2], limit: usize, deadline: &Mutex<Option<Instant>>) -> DrainOutcome {
    let mut open: [Option<OwnedFd>; 2] = fds.map(Some);
    let mut captures = [CaptureBuffer::new(limit), CaptureBuffer::new(limit)];
    let mut chunk = vec![0u8; READ_CHUNK];
    let mut forced_closed = false;
    // Past the cap, bytes are moved to /dev/null inside the kernel (no copy to us).
    let mut sink = File::options().write(true).open("/dev/null").ok();
    while open.iter().any(Option::is_some) {
        let limit_at = *deadline.lock().unwrap_or_else(PoisonError::into_inner);
        let wait = match limit_at {
            Some(at) => match at.checked_duration_since(Instant::now()) {
                Some(left) if !left.is_zero() => left,
                _ => {
                    forced_closed = true;
                    break;
                }
            },
            None => IDLE_CHECK,
        };
        let ready = match poll_ready(&open, wait) {
            Ok(ready) => ready,
            Err(Errno::EINTR) => continue,
            Err(_) => {
                forced_closed = true;
                break;
            }
        };
        for (i, is_ready) in ready.into_iter().enumerate() {
            if !is_ready {
                continue;
            }
            let Some(fd) = &open[i] else { continue };
            let result = match &sink {
                Some(null) if captures[i].is_full() => discard(fd, null, &mut captures[i]),
                _ => nix::unistd::read(fd, &mut chunk).inspect(|&n| captures[i].push(&chunk[..n])),
            };
            match result {
                Ok(0) => open[i] = None,
                Ok(_) | Err(Errno::EINTR | Errno::EAGAIN) => {}
                Err(Errno::EINVAL) if sink.is_some() => sink = None,
                Err(_) => open[i] = None,
            }
        }
    }
    // Dropping `open` closes whatever is left: the forced final unblock.
    drop(open);
    let [stdout, stderr] = captures.map(CaptureBuffer::finish);
    DrainOutcome {
        stdout,
        stderr,
        forced_closed,
    }
}

/// Moves up to [`SPLICE_CHUNK`] bytes from the pipe to `/dev/null`, counting them.
#[cfg(target_os = "linux")]
fn discard(fd: &OwnedFd, null: &File, capture: &mut CaptureBuffer) -> nix::Result<usize> {
    use nix::fcntl::{SpliceFFlags, splice};
    let n = splice(
        fd,
        None,
        null,
        None,
        SPLICE_CHUNK,
        SpliceFFlags::SPLICE_F_NONBLOCK,
    )?;
    capture.count_discarded(n as u64);
    Ok(n)
}

#[cfg(not(target_os = "linux"))]
use super::off_linux::discard;

/// Polls the open pipes for up to `wait`; which of them can be read (or hit EOF/error).
fn poll_ready(open: &[Option<OwnedFd>; 2], wait: Duration) -> nix::Result<[bool; 2]> {
    let mut slots = [usize::MAX; 2];
    let mut pollfds = Vec::with_capacity(2);
    for (i, fd) in open.iter().enumerate() {
        if let Some(fd) = fd {
            slots[i] = pollfds.len();
            pollfds.push(PollFd::new(fd.as_fd(), PollFlags::POLLIN));
        }
    }
    // Round up so a sub-millisecond remainder does not become a busy loop.
    let timeout =
        PollTimeout::try_from(wait.as_micros().div_ceil(1000)).unwrap_or(PollTimeout::MAX);
    let n = poll(&mut pollfds, timeout)?;
    let mut ready = [false; 2];
    if n > 0 {
        for i in 0..2 {
            if let Some(pfd) = pollfds.get(slots[i]) {
                // Unknown event bits still mean "look at this fd".
                ready[i] = pfd.any().unwrap_or(true);
            }
        }
    }
    Ok(ready)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use std::process::{Command, Stdio};
    use std::sync::mpsc;

    /// A pipe: (read end, write end).
    fn pipe() -> (OwnedFd, OwnedFd) {
        nix::unistd::pipe().unwrap()
    }

    /// `finish` on another thread, so a drain that never stops fails the test instead of
    /// hanging it.
    fn finish_within(drain: Drain, deadline: Instant, bound: Duration) -> DrainOutcome {
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let _ = tx.send(drain.finish(deadline));
        });
        rx.recv_timeout(bound)
            .expect("the drain did not stop at its deadline")
            .expect("the drain thread panicked")
    }

    #[test]
    fn a_pipe_still_held_open_is_closed_at_the_deadline() {
        let ((out_r, _out_w), (err_r, _err_w)) = (pipe(), pipe());
        let drain = Drain::start(out_r, err_r, 16).unwrap();
        let outcome = finish_within(
            drain,
            Instant::now() + Duration::from_millis(100),
            Duration::from_secs(5),
        );
        assert!(outcome.forced_closed);
    }

    /// Before its deadline the drain waits for EOF: output written after `finish` was called
    /// is still captured, and nothing is forced closed.
    #[test]
    fn output_that_comes_before_the_deadline_is_captured() {
        let (out_r, out_w) = pipe();
        let (err_r, err_w) = pipe();
        let mut writer = Command::new("/bin/sh")
            .args(["-c", "sleep 0.2; printf late"])
            .stdin(Stdio::null())
            .stdout(Stdio::from(out_w))
            .stderr(Stdio::from(err_w))
            .spawn()
            .unwrap();
        let drain = Drain::start(out_r, err_r, 16).unwrap();
        let outcome = finish_within(
            drain,
            Instant::now() + Duration::from_secs(10),
            Duration::from_secs(20),
        );
        writer.wait().unwrap();
        assert!(!outcome.forced_closed);
        assert_eq!(outcome.stdout.bytes, b"late");
        assert_eq!(outcome.stderr.total_bytes, 0);
    }

    /// A drain dropped without `finish` (an early error return) stops soon and closes its
    /// pipes, though nobody joins it: the writer sees its reader gone.
    #[test]
    fn a_dropped_drain_closes_its_pipes_soon() {
        let ((out_r, out_w), (err_r, _err_w)) = (pipe(), pipe());
        let drain = Drain::start(out_r, err_r, 16).unwrap();
        drop(drain);
        let deadline = Instant::now() + Duration::from_secs(5);
        let closed = loop {
            let mut fds = [PollFd::new(out_w.as_fd(), PollFlags::empty())];
            let _ = poll(&mut fds, PollTimeout::from(50u8));
            let revents = fds[0].revents().unwrap_or(PollFlags::empty());
            if revents.contains(PollFlags::POLLERR) {
                break true;
            }
            if Instant::now() >= deadline {
                break false;
            }
        };
        assert!(closed, "the reader of a dropped drain was never closed");
    }
}
