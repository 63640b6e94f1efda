//! Pipes read and written by blocking threads.
//!
//! The guard reads stdin on a thread of its own, and mcp-hub reads each upstream's stdout
//! the same way: a thread blocked in `read` wakes once per line, where a readiness loop
//! (`epoll_wait`, then `read`, then a task switch) costs two more system calls and a wakeup.
//! A descriptor may still be in non-blocking mode (a pipe made by tokio, or a parent that
//! set the flag on a description it shares with us): [`Blocking`] then waits in `poll` for
//! the pipe to be ready, so either way a read or write blocks until it can proceed.

use std::fs::File;
use std::io::{ErrorKind, Read, Write};
use std::os::fd::{AsFd, OwnedFd};

use nix::fcntl::{FcntlArg, OFlag, fcntl};
use nix::poll::{PollFd, PollFlags, PollTimeout, poll};

/// A descriptor whose reads and writes block, whatever its mode.
#[derive(Debug)]
pub struct Blocking<F>(F);

impl Blocking<File> {
    /// Takes `fd` (one of this process's own pipe ends, shared with no other process) and
    /// clears its non-blocking flag, so reads and writes block in the kernel.
    pub fn own(fd: OwnedFd) -> Self {
        if let Ok(flags) = fcntl(&fd, FcntlArg::F_GETFL) {
            let flags = OFlag::from_bits_truncate(flags) - OFlag::O_NONBLOCK;
            let _ = fcntl(&fd, FcntlArg::F_SETFL(flags));
        }
        Self(File::from(fd))
    }

    /// Shares `fd` without changing its flags (stdin and stdout: the description may be
    /// shared with the parent, which set them as it wants them).
    pub fn shared(fd: OwnedFd) -> Self {
        Self(File::from(fd))
    }
}

impl<F: AsFd> Blocking<F> {
    /// Waits until the descriptor is ready for `flags`.
    fn wait(&self, flags: PollFlags) -> std::io::Result<()> {
        let mut fds = [PollFd::new(self.0.as_fd(), flags)];
        match poll(&mut fds, PollTimeout::NONE) {
            Ok(_) | Err(nix::errno::Errno::EINTR) => Ok(()),
            Err(e) => Err(e.into()),
        }
    }
}

impl<F: AsFd + Read> Read for Blocking<F> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        loop {
            match self.0.read(buf) {
                Err(e) if e.kind() == ErrorKind::WouldBlock => self.wait(PollFlags::POLLIN)?,
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                other => return other,
            }
        }
    }
}

impl<F: AsFd + Write> Write for Blocking<F> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        loop {
            match self.0.write(buf) {
                Err(e) if e.kind() == ErrorKind::WouldBlock => self.wait(PollFlags::POLLOUT)?,
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                other => return other,
            }
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.0.flush()
    }
}

/// The process's stdin and stdout for the guard's threads: duplicates of descriptors 0 and
/// 1, read and written directly (no buffer of std's in between); std's handles when they
/// cannot be duplicated.
pub fn process_stdio() -> (Box<dyn Read + Send>, Box<dyn Write + Send>) {
    let input: Box<dyn Read + Send> = match std::io::stdin().as_fd().try_clone_to_owned() {
        Ok(fd) => Box::new(Blocking::shared(fd)),
        Err(_) => Box::new(std::io::stdin()),
    };
    let output: Box<dyn Write + Send> = match std::io::stdout().as_fd().try_clone_to_owned() {
        Ok(fd) => Box::new(Blocking::shared(fd)),
        Err(_) => Box::new(std::io::stdout()),
    };
    (input, output)
}

#[cfg(test)]
mod tests {
    use std::io::{BufRead, BufReader};

    use super::*;
    use crate::test_io::Interrupted;

    /// Puts `fd` in non-blocking mode, as tokio or a parent may have left it.
    fn set_non_blocking(fd: &OwnedFd) {
        let flags = OFlag::from_bits_truncate(fcntl(fd, FcntlArg::F_GETFL).expect("flags"));
        fcntl(fd, FcntlArg::F_SETFL(flags | OFlag::O_NONBLOCK)).expect("set");
    }

    #[test]
    fn a_non_blocking_pipe_still_blocks_until_it_has_data() {
        let (reader, mut writer) = std::io::pipe().expect("pipe");
        let fd = OwnedFd::from(reader);
        set_non_blocking(&fd);
        let mut lines = BufReader::new(Blocking::shared(fd));
        let writes = std::thread::spawn(move || {
            for line in ["one\n", "two\n"] {
                writer.write_all(line.as_bytes()).expect("write");
            }
        });
        let mut line = String::new();
        lines.read_line(&mut line).expect("read");
        assert_eq!(line, "one\n");
        writes.join().expect("writer");
        line.clear();
        lines.read_line(&mut line).expect("read");
        assert_eq!(line, "two\n");
        line.clear();
        assert_eq!(lines.read_line(&mut line).expect("eof"), 0);
    }

    /// A pipe end whose reads and writes each fail once first (see [`Interrupted`]).
    fn failing<F>(inner: F, error: Option<ErrorKind>) -> Blocking<Interrupted<F>> {
        Blocking(Interrupted::new(inner, error))
    }

    #[test]
    fn an_interrupted_read_or_write_is_retried() {
        let (reader, writer) = std::io::pipe().expect("pipe");
        let mut writer = failing(writer, None);
        let mut reader = failing(reader, None);
        assert_eq!(writer.write(b"line\n").expect("one write"), 5);
        writer.flush().expect("flush");
        assert_eq!(
            writer.0.flushes, 1,
            "a flush reaches the descriptor's writer"
        );
        let mut buf = [0; 16];
        assert_eq!(reader.read(&mut buf).expect("one read"), 5);
        assert_eq!(&buf[..5], b"line\n");
    }

    #[test]
    fn any_other_error_is_returned_at_once() {
        let (reader, writer) = std::io::pipe().expect("pipe");
        let mut writer = failing(writer, Some(ErrorKind::Other));
        let mut reader = failing(reader, Some(ErrorKind::Other));
        let written = writer.write(b"x").map_err(|e| e.kind());
        assert_eq!(written, Err(ErrorKind::Other));
        assert_eq!(writer.write(b"x").expect("the next write"), 1);
        let mut buf = [0; 4];
        assert_eq!(
            reader.read(&mut buf).map_err(|e| e.kind()),
            Err(ErrorKind::Other)
        );
        assert_eq!(reader.read(&mut buf).expect("the next read"), 1);
    }

    #[test]
    fn a_non_blocking_pipe_still_takes_a_write_larger_than_it_holds() {
        let (mut reader, writer) = std::io::pipe().expect("pipe");
        let fd = OwnedFd::from(writer);
        set_non_blocking(&fd);
        let mut writer = Blocking::shared(fd);
        // Sixteen times a pipe's default 64 KiB: the write waits for the reader again and again.
        const SIZE: usize = 1024 * 1024;
        let writes = std::thread::spawn(move || writer.write_all(&vec![b'x'; SIZE]));
        let mut read = Vec::new();
        reader.read_to_end(&mut read).expect("read");
        assert_eq!(read.len(), SIZE);
        writes.join().expect("writer").expect("the whole write");
    }

    /// Whether thread `tid` of this process is asleep in the kernel (`S` in its `stat`).
    fn asleep(tid: i32) -> bool {
        std::fs::read_to_string(format!("/proc/self/task/{tid}/stat"))
            .ok()
            .and_then(|stat| {
                let (_, after) = stat.rsplit_once(')')?;
                after.trim_start().chars().next()
            })
            == Some('S')
    }

    #[test]
    fn waiting_sleeps_until_the_pipe_is_ready() {
        let (reader, mut writer) = std::io::pipe().expect("pipe");
        let fd = OwnedFd::from(reader);
        set_non_blocking(&fd);
        let mut reader = Blocking::shared(fd);
        let (started, tid) = std::sync::mpsc::channel();
        let waiter = std::thread::spawn(move || {
            let _ = started.send(nix::unistd::gettid().as_raw());
            reader.wait(PollFlags::POLLIN).expect("wait");
            // Without blocking: after the wait, the byte is there.
            let mut byte = [0; 1];
            reader.0.read(&mut byte)
        });
        let tid = tid.recv().expect("the waiter started");
        // The byte is written once the waiter sleeps (nothing but the wait can put it to
        // sleep) or has given up waiting.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while !asleep(tid) && !waiter.is_finished() {
            assert!(
                std::time::Instant::now() < deadline,
                "the waiter neither slept nor ended"
            );
            std::thread::yield_now();
        }
        writer.write_all(b"x").expect("write");
        let read = waiter.join().expect("waiter");
        assert_eq!(read.expect("readable once the wait is over"), 1);
    }

    #[test]
    fn owning_clears_the_non_blocking_flag() {
        let (reader, _writer) = std::io::pipe().expect("pipe");
        let fd = OwnedFd::from(reader);
        set_non_blocking(&fd);
        let owned = Blocking::own(fd);
        let flags = OFlag::from_bits_truncate(fcntl(&owned.0, FcntlArg::F_GETFL).expect("flags"));
        assert!(!flags.contains(OFlag::O_NONBLOCK));
    }
}
