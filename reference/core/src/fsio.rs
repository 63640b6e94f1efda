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
/// directory (`O_CREAT|O_EXCL`, which never follows a symlink; mode 0600), `fsync`, `rename`
/// over `path`, `fsync` of the directory. Readers see either the old or the new content, never
/// a mix; after a crash the file is one of the two. (Rust opens every file `O_CLOEXEC`.)
pub fn atomic_write(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let (dir, tmp) = temp_beside(path, &crate::ids::random_hex(8)?)?;
    let result = (|| {
        let mut f = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
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

/// The directory of `path` (`.` for a bare name) and a temporary name in it, `suffix` making it
/// unique: the rename must stay within one directory, and so one filesystem. The approval
/// store builds its database under such a name too.
pub(crate) fn temp_beside<'a>(path: &'a Path, suffix: &str) -> io::Result<(&'a Path, PathBuf)> {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "path has no file name"))?;
    let tmp = dir.join(format!(".{}.{suffix}.tmp", name.to_string_lossy()));
    Ok((dir, tmp))
}

/// Opens a log file for appending: created mode 0600, never through a symlink in its last
/// component, not inherited by children (Rust opens every file `O_CLOEXEC`). The audit log
/// and the safe-mcp trail share it.
pub fn open_append_private(path: &Path) -> io::Result<File> {
    OpenOptions::new()
        // Read too: an append first looks at the last line ([`crate::jsonl::append_line`]).
        .read(true)
        .append(true)
        .create(true)
        .mode(0o600)
        .custom_flags(nix::fcntl::OFlag::O_NOFOLLOW.bits())
        .open(path)
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
        .custom_flags(nix::fcntl::OFlag::O_NOFOLLOW.bits())
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
    fn the_temporary_file_is_beside_its_target() {
        let (dir, tmp) = temp_beside(Path::new("state/ns/approvals.json"), "ab12").unwrap();
        assert_eq!(dir, Path::new("state/ns"));
        assert_eq!(tmp, Path::new("state/ns/.approvals.json.ab12.tmp"));
        let (dir, tmp) = temp_beside(Path::new("approvals.json"), "ab12").unwrap();
        assert_eq!(dir, Path::new("."));
        assert_eq!(tmp, Path::new("./.approvals.json.ab12.tmp"));
        assert!(temp_beside(Path::new("/"), "ab12").is_err());
    }

    #[test]
    fn logs_and_locks_are_never_opened_through_a_symlink() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("elsewhere.log");
        std::fs::write(&target, b"keep\n").unwrap();
        let link = dir.path().join("audit.log");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        let loops = |r: io::Result<File>| r.unwrap_err().raw_os_error() == Some(nix::libc::ELOOP);
        assert!(loops(open_append_private(&link)));
        assert!(loops(open_lock_file(&link)));
        assert_eq!(std::fs::read(&target).unwrap(), b"keep\n");
        // A real file is appended to, and created 0600.
        let real = dir.path().join("trail.log");
        open_append_private(&real).unwrap();
        let mode = std::os::unix::fs::PermissionsExt::mode(
            &std::fs::metadata(&real).unwrap().permissions(),
        ) & 0o777;
        assert_eq!(mode, 0o600);
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
        let free = FileLock::try_acquire(&p).unwrap();
        assert!(free.is_some(), "a free lock is taken at once");
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
