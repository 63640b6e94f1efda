//! Test doubles for the crate's readers and writers: real I/O with failures put in front.

use std::io::{ErrorKind, Read, Write};
use std::os::fd::{AsFd, BorrowedFd};

/// A reader or writer whose reads and writes each fail once first: interrupted by a signal,
/// or with `error` when one is given; flushes are counted.
pub struct Interrupted<F> {
    pub inner: F,
    interrupt: bool,
    error: Option<ErrorKind>,
    pub flushes: usize,
}

impl<F> Interrupted<F> {
    /// `inner`, each of whose reads and writes is preceded by one failure.
    pub fn new(inner: F, error: Option<ErrorKind>) -> Self {
        Self {
            inner,
            interrupt: false,
            error,
            flushes: 0,
        }
    }

    fn once(&mut self) -> std::io::Result<()> {
        self.interrupt = !self.interrupt;
        match self.interrupt {
            true => Err(self.error.unwrap_or(ErrorKind::Interrupted).into()),
            false => Ok(()),
        }
    }
}

impl<F: AsFd> AsFd for Interrupted<F> {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.inner.as_fd()
    }
}

impl<F: Read> Read for Interrupted<F> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.once()?;
        self.inner.read(buf)
    }
}

impl<F: Write> Write for Interrupted<F> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.once()?;
        self.inner.write(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.flushes += 1;
        self.inner.flush()
    }
}
