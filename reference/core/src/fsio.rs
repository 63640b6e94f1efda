//! Durable file primitives for the trusted state: atomic replacement and a cross-process lock.

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use nix::errno::Errno;
use nix::fcntl::{Flock, FlockArg};

/// How long state operations wait for a lock by default.
pub const DEFAULT_LOCK_TIMEOUT: Duration = Duration::from_secs(10);

/// Replaces `path` with `bytes` atomically and durably: a temporary file in the same
/// directory (`O_CREAT|O_EXCL|O_NOFOLLOW`, mode 0600), `fsync`, `rename` over `path`, `fsync`
/// of the directory. Readers see either the old or the new content, never a mix; after a
/// crash the file is one of the two.
pub fn atomic_write(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "path has no file name"))?;
    let suffix = crate::ids::random_hex(8)?;
    let tmp = dir.join(format!(".{}.{suffix}.tmp", name.to_string_lossy()));
    let result = (|| {
        let mut f = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .custom_flags(libc_o_nofollow())
            .open(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        drop(f);
        std::fs::rename(&tmp, path)?;
        File::open(dir)?.sync_all()
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// Opens a log file for appending: created mode 0600, never through a symlink in its last
/// component, not inherited by children. The audit log and the safe-mcp trail share it.
pub fn open_append_private(path: &Path) -> io::Result<File> {
    OpenOptions::new()
        .append(true)
        .create(true)
        .mode(0o600)
        .custom_flags(nix::fcntl::OFlag::O_NOFOLLOW.bits() | nix::fcntl::OFlag::O_CLOEXEC.bits())
        .open(path)
}

fn libc_o_nofollow() -> i32 {
    nix::fcntl::OFlag::O_NOFOLLOW.bits() | nix::fcntl::OFlag::O_CLOEXEC.bits()
}

/// Why a lock could not be taken.
#[derive(Debug, thiserror::Error)]
pub enum LockError {
    /// Another holder kept the lock past the deadline.
    #[error("timed out after {waited_ms} ms waiting for a lock")]
    Timeout {
        /// How long we tried.
        waited_ms: u64,
    },
    /// The lock file could not be opened or locked.
    #[error("cannot lock: {0}")]
    Io(#[from] io::Error),
}

impl LockError {
    /// A stable machine code: `LOCK_TIMEOUT` or `LOCK_IO`.
    pub fn code(&self) -> &'static str {
        match self {
            LockError::Timeout { .. } => "LOCK_TIMEOUT",
            LockError::Io(_) => "LOCK_IO",
        }
    }
}

/// An exclusive `flock(2)` on a lock file, released when dropped (or when the process dies,
/// so a crashed holder never wedges the store). `flock` locks belong to the open file
/// description, so two `FileLock`s on the same path exclude each other even within one
/// process (threads included).
#[derive(Debug)]
pub struct FileLock {
    _lock: Flock<File>,
    path: PathBuf,
}

impl FileLock {
    /// Takes the lock, retrying non-blocking attempts (with a short growing pause between
    /// them) until `timeout` has passed; then [`LockError::Timeout`]. The lock file is created
    /// (mode 0600) if missing; its content is irrelevant.
    pub fn acquire(path: &Path, timeout: Duration) -> Result<FileLock, LockError> {
        let start = Instant::now();
        let deadline = start + timeout;
        let mut pause = Duration::from_millis(1);
        let mut file = open_lock_file(path)?;
        loop {
            match Flock::lock(file, FlockArg::LockExclusiveNonblock) {
                Ok(lock) => {
                    return Ok(FileLock {
                        _lock: lock,
                        path: path.to_path_buf(),
                    });
                }
                Err((f, Errno::EWOULDBLOCK)) | Err((f, Errno::EINTR)) => file = f,
                Err((_, e)) => return Err(LockError::Io(e.into())),
            }
            let now = Instant::now();
            if now >= deadline {
                return Err(LockError::Timeout {
                    waited_ms: now.duration_since(start).as_millis() as u64,
                });
            }
            std::thread::sleep(pause.min(deadline - now));
            pause = (pause * 2).min(Duration::from_millis(10));
        }
    }

    /// One non-blocking attempt: `Ok(None)` if someone else holds it.
    pub fn try_acquire(path: &Path) -> Result<Option<FileLock>, LockError> {
        let file = open_lock_file(path)?;
        match Flock::lock(file, FlockArg::LockExclusiveNonblock) {
            Ok(lock) => Ok(Some(FileLock {
                _lock: lock,
                path: path.to_path_buf(),
            })),
            Err((_, Errno::EWOULDBLOCK)) => Ok(None),
            Err((_, e)) => Err(LockError::Io(e.into())),
        }
    }

    /// The lock file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

fn open_lock_file(path: &Path) -> io::Result<File> {
    OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .mode(0o600)
        .custom_flags(libc_o_nofollow())
        .open(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atomic_write_replaces_and_leaves_no_temp() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("state.json");
        atomic_write(&p, b"one").unwrap();
        atomic_write(&p, b"two").unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"two");
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("state.json")]);
    }

    #[test]
    fn atomic_write_missing_dir_fails_cleanly() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("nope").join("state.json");
        assert!(atomic_write(&p, b"x").is_err());
    }

    #[test]
    fn lock_excludes_and_times_out_then_releases_on_drop() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("x.lock");
        let held = FileLock::acquire(&p, Duration::from_secs(1)).unwrap();
        assert_eq!(held.path(), p);
        assert!(FileLock::try_acquire(&p).unwrap().is_none());
        let t0 = Instant::now();
        let err = FileLock::acquire(&p, Duration::from_millis(60)).unwrap_err();
        assert!(matches!(err, LockError::Timeout { .. }), "{err:?}");
        assert_eq!(err.code(), "LOCK_TIMEOUT");
        assert!(t0.elapsed() >= Duration::from_millis(60));
        assert!(t0.elapsed() < Duration::from_secs(5));
        drop(held);
        let again = FileLock::acquire(&p, Duration::from_millis(0)).unwrap();
        drop(again);
    }

    #[test]
    fn lock_waits_for_release_by_another_thread() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("x.lock");
        let held = FileLock::acquire(&p, Duration::from_secs(1)).unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        let p2 = p.clone();
        let h = std::thread::spawn(move || {
            tx.send(()).unwrap();
            FileLock::acquire(&p2, Duration::from_secs(20)).map(|_| ())
        });
        rx.recv().unwrap();
        drop(held);
        h.join().unwrap().unwrap();
    }
}
