//! The temporary file of an atomic write, made so that a process killed mid-write leaves
//! nothing in the workspace.
//!
//! The content is written to an unnamed file (`O_TMPFILE` in the target's directory), which
//! the kernel discards if the process dies; it gets a name (`.toolhub-tmp-<random>`, through
//! `linkat` of `/proc/self/fd/N`) only just before the rename over the target, so the named
//! window is two system calls. Where the filesystem or `/proc` cannot do that, the file is
//! created with its name from the start, as before. Either way the writer holds an exclusive
//! `flock` on the file while it has a name, so [`sweep`] can tell a leftover (its writer
//! gone: the lock is free) from a temporary another process is still using, and removes the
//! leftovers of a directory before each write into it.

use std::fs::File;
use std::os::fd::{AsRawFd, OwnedFd};

use nix::dir::Dir;
use nix::errno::Errno;
use nix::fcntl::{AT_FDCWD, AtFlags, Flock, FlockArg, OFlag, openat};
use nix::sys::stat::{Mode, SFlag, fstatat};
use nix::unistd::{UnlinkatFlags, linkat, unlinkat};

use super::JailError;
use super::walk::map_errno;

/// The name prefix of every temporary file.
pub const PREFIX: &str = ".toolhub-tmp-";

/// The temporary file being written: locked while it exists, named once [`Temp::name`] ran
/// (or from the start, where the filesystem cannot make it unnamed).
pub struct Temp {
    file: Flock<File>,
    name: Option<String>,
}

impl Temp {
    /// A new temporary file in `parent`, locked, unnamed where the filesystem allows.
    pub fn create(parent: &OwnedFd) -> Result<Temp, JailError> {
        match openat(
            parent,
            ".",
            OFlag::O_TMPFILE | OFlag::O_WRONLY | OFlag::O_CLOEXEC,
            Mode::from_bits_truncate(0o644),
        ) {
            Ok(fd) => Ok(Temp {
                file: lock(fd)?,
                name: None,
            }),
            // Not supported here (the filesystem, an old kernel): a named file.
            Err(Errno::EOPNOTSUPP | Errno::EISDIR | Errno::EINVAL | Errno::ENOENT) => {
                let (name, fd) = create_named(parent)?;
                Ok(Temp {
                    file: lock(fd)?,
                    name: Some(name),
                })
            }
            Err(e) => Err(map_errno(e, ".".into(), "create")),
        }
    }

    /// The open file, to write to.
    pub fn file(&mut self) -> &mut File {
        &mut self.file
    }

    /// Gives the file a name in `parent` (if it has none yet) and returns it.
    pub fn name(&mut self, parent: &OwnedFd) -> Result<String, JailError> {
        if let Some(name) = &self.name {
            return Ok(name.clone());
        }
        let proc_path = format!("/proc/self/fd/{}", self.file.as_raw_fd());
        for _ in 0..8 {
            let name = format!("{PREFIX}{}", random_suffix()?);
            match linkat(
                AT_FDCWD,
                proc_path.as_str(),
                parent,
                name.as_str(),
                AtFlags::AT_SYMLINK_FOLLOW,
            ) {
                Ok(()) => {
                    self.name = Some(name.clone());
                    return Ok(name);
                }
                Err(Errno::EEXIST) => continue,
                Err(e) => return Err(JailError::io("link", e)),
            }
        }
        Err(unique_failed())
    }

    /// Removes the file's name, if it has one (after a failure).
    pub fn discard(&self, parent: &OwnedFd) {
        if let Some(name) = &self.name {
            let _ = unlinkat(parent, name.as_str(), UnlinkatFlags::NoRemoveDir);
        }
    }
}

fn lock(fd: OwnedFd) -> Result<Flock<File>, JailError> {
    Flock::lock(File::from(fd), FlockArg::LockExclusiveNonblock)
        .map_err(|(_, e)| JailError::io("lock", e))
}

fn random_suffix() -> Result<String, JailError> {
    crate::ids::random_hex(12).map_err(|e| JailError::io_std("random", &e))
}

fn unique_failed() -> JailError {
    JailError::Io {
        op: "create",
        reason: "could not create a unique temporary file".into(),
    }
}

/// Creates a uniquely named temporary file in `parent` (`O_CREAT|O_EXCL|O_NOFOLLOW`).
fn create_named(parent: &OwnedFd) -> Result<(String, OwnedFd), JailError> {
    for _ in 0..8 {
        let name = format!("{PREFIX}{}", random_suffix()?);
        match openat(
            parent,
            name.as_str(),
            OFlag::O_WRONLY | OFlag::O_CREAT | OFlag::O_EXCL | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC,
            Mode::from_bits_truncate(0o644),
        ) {
            Ok(fd) => return Ok((name, fd)),
            Err(Errno::EEXIST) => continue,
            Err(e) => return Err(map_errno(e, ".".into(), "create")),
        }
    }
    Err(unique_failed())
}

/// Removes from `parent` the temporary files whose writer is gone: regular files named with
/// [`PREFIX`] (never through a symlink) whose lock can be taken at once. A file another
/// process is still writing keeps its lock and is left alone. Best effort: what cannot be
/// read or removed stays.
pub fn sweep(parent: &OwnedFd) {
    let Ok(mut dir) = Dir::openat(
        parent,
        ".",
        OFlag::O_RDONLY | OFlag::O_DIRECTORY | OFlag::O_CLOEXEC,
        Mode::empty(),
    ) else {
        return;
    };
    let names: Vec<String> = dir
        .iter()
        .filter_map(Result::ok)
        .filter_map(|entry| entry.file_name().to_str().ok().map(str::to_owned))
        .filter(|name| name.starts_with(PREFIX))
        .collect();
    for name in names {
        let regular =
            fstatat(parent, name.as_str(), AtFlags::AT_SYMLINK_NOFOLLOW).is_ok_and(|st| {
                SFlag::from_bits_truncate(st.st_mode) & SFlag::S_IFMT == SFlag::S_IFREG
            });
        if !regular {
            continue;
        }
        let Ok(fd) = openat(
            parent,
            name.as_str(),
            OFlag::O_RDONLY | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC | OFlag::O_NONBLOCK,
            Mode::empty(),
        ) else {
            continue;
        };
        if let Ok(held) = Flock::lock(File::from(fd), FlockArg::LockExclusiveNonblock) {
            let _ = unlinkat(parent, name.as_str(), UnlinkatFlags::NoRemoveDir);
            drop(held);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn dir_fd(path: &std::path::Path) -> OwnedFd {
        File::open(path).expect("open the directory").into()
    }

    fn names(path: &std::path::Path) -> Vec<String> {
        let mut out: Vec<String> = std::fs::read_dir(path)
            .expect("read_dir")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .collect();
        out.sort();
        out
    }

    #[test]
    fn the_content_is_written_without_a_name_and_named_only_at_the_end() {
        let tmp = tempfile::tempdir().expect("dir");
        let parent = dir_fd(tmp.path());
        let mut temp = Temp::create(&parent).expect("create");
        temp.file().write_all(b"content").expect("write");
        // tmpfs, ext4, xfs and btrfs all make unnamed files; this machine's /tmp does.
        assert_eq!(names(tmp.path()), Vec::<String>::new());
        let name = temp.name(&parent).expect("name");
        assert!(name.starts_with(PREFIX), "{name}");
        assert_eq!(names(tmp.path()), std::slice::from_ref(&name));
        assert_eq!(
            std::fs::read(tmp.path().join(&name)).expect("read"),
            b"content"
        );
        // Still being written (locked): a sweep leaves it.
        sweep(&parent);
        assert_eq!(names(tmp.path()), std::slice::from_ref(&name));
        temp.discard(&parent);
        assert_eq!(names(tmp.path()), Vec::<String>::new());
    }

    #[test]
    fn a_sweep_removes_only_leftovers_of_ours() {
        let tmp = tempfile::tempdir().expect("dir");
        let leftover = format!("{PREFIX}dead");
        std::fs::write(tmp.path().join(&leftover), b"x").expect("write");
        std::fs::write(tmp.path().join("keep.txt"), b"x").expect("write");
        std::fs::write(tmp.path().join("outside"), b"x").expect("write");
        std::os::unix::fs::symlink("outside", tmp.path().join(format!("{PREFIX}link")))
            .expect("symlink");
        std::fs::create_dir(tmp.path().join(format!("{PREFIX}dir"))).expect("mkdir");
        sweep(&dir_fd(tmp.path()));
        assert_eq!(
            names(tmp.path()),
            [
                format!("{PREFIX}dir"),
                format!("{PREFIX}link"),
                "keep.txt".to_owned(),
                "outside".to_owned()
            ]
        );
    }
}
