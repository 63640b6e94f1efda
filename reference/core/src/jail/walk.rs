//! The descriptor walker: opening directories component by component with `O_NOFOLLOW`,
//! inspecting a target through its parent, and classifying errno values into refusals.

use std::fs::File;
use std::io::Read;
use std::os::fd::OwnedFd;

use nix::errno::Errno;
use nix::fcntl::{AtFlags, openat};
use nix::sys::stat::{Mode, fstat, fstatat, mkdirat};
use nix::unistd::fsync;
use sha2::{Digest, Sha256};

use super::{DIR_FLAGS, EntryKind, JailError, READ_FLAGS, RelPath, Workspace};
use crate::digest::to_hex;

impl Workspace {
    /// Opens the directory reached by `comps` from the root, refusing symlinks and
    /// non-directories at every step. With `create`, missing components are created.
    pub(super) fn walk(&self, comps: &[&str], create: bool) -> Result<OwnedFd, JailError> {
        let mut cur = openat(&self.inner.fd, ".", DIR_FLAGS, Mode::empty())
            .map_err(|e| JailError::io("open", e))?;
        for (i, comp) in comps.iter().enumerate() {
            let so_far = || comps[..=i].join("/");
            let next = match openat(&cur, *comp, DIR_FLAGS, Mode::empty()) {
                Ok(fd) => fd,
                Err(Errno::ENOENT) if create => {
                    match mkdirat(&cur, *comp, Mode::from_bits_truncate(0o755)) {
                        Ok(()) | Err(Errno::EEXIST) => {}
                        Err(e) => return Err(map_errno(e, so_far(), "mkdir")),
                    }
                    fsync(&cur).map_err(|e| JailError::io("fsync", e))?;
                    match openat(&cur, *comp, DIR_FLAGS, Mode::empty()) {
                        Ok(fd) => fd,
                        Err(e) => return Err(classify_dir_error(&cur, comp, so_far(), e)),
                    }
                }
                Err(e) => return Err(classify_dir_error(&cur, comp, so_far(), e)),
            };
            cur = next;
        }
        Ok(cur)
    }

    /// Maps an error from opening/statting the last component.
    pub(super) fn classify_last_error(
        &self,
        parent: &OwnedFd,
        name: &str,
        path: &RelPath,
        e: Errno,
        op: &'static str,
    ) -> JailError {
        let p = path.display().to_string();
        match e {
            Errno::ELOOP | Errno::EMLINK => match lstat_kind(parent, name) {
                Some(EntryKind::Symlink) | None => JailError::SymlinkRefused { path: p },
                Some(_) => JailError::io(op, e),
            },
            other => map_errno(other, p, op),
        }
    }

    /// For a write target: `None` if absent, else `(sha256, mode)` of the regular file.
    pub(super) fn inspect_target(
        &self,
        parent: &OwnedFd,
        name: &str,
        path: &RelPath,
    ) -> Result<Option<(String, u32)>, JailError> {
        let fd = match openat(parent, name, READ_FLAGS, Mode::empty()) {
            Ok(fd) => fd,
            Err(Errno::ENOENT) => return Ok(None),
            Err(e) => return Err(self.classify_last_error(parent, name, path, e, "open")),
        };
        let st = fstat(&fd).map_err(|e| JailError::io("stat", e))?;
        if EntryKind::from_stat(&st) != EntryKind::File {
            return Err(JailError::NotAFile {
                path: path.display().to_string(),
            });
        }
        // Bounded work on agent input: a target over the limit is refused before a byte of it
        // is hashed (a 2 GiB sparse file took seconds), and a file that grows while we hash
        // it is cut off at the limit and refused.
        let limit = super::MAX_REPLACED_FILE_BYTES;
        let size = st.st_size.max(0) as u64;
        if size > limit {
            return Err(JailError::TooLarge { size, limit });
        }
        let mut hasher = Sha256::new();
        let mut hashed: u64 = 0;
        let mut file = File::from(fd).take(limit.saturating_add(1));
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            match file.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => {
                    hashed += n as u64;
                    if hashed > limit {
                        return Err(JailError::TooLarge {
                            size: hashed,
                            limit,
                        });
                    }
                    hasher.update(&buf[..n]);
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(JailError::io_std("read", &e)),
            }
        }
        Ok(Some((to_hex(&hasher.finalize()), st.st_mode)))
    }

    /// For a target: `None` if absent, else the SHA-256 of the regular file.
    pub(super) fn hash_existing(
        &self,
        parent: &OwnedFd,
        name: &str,
        path: &RelPath,
    ) -> Result<Option<String>, JailError> {
        Ok(self.inspect_target(parent, name, path)?.map(|(h, _)| h))
    }
}

/// The kind of `name` in `parent` without following it; `None` if it cannot be statted.
pub(super) fn lstat_kind(parent: &OwnedFd, name: &str) -> Option<EntryKind> {
    fstatat(parent, name, AtFlags::AT_SYMLINK_NOFOLLOW)
        .ok()
        .map(|st| EntryKind::from_stat(&st))
}

/// Maps an error from opening a directory component: symlink or not-a-directory.
pub(super) fn classify_dir_error(
    parent: &OwnedFd,
    name: &str,
    so_far: String,
    e: Errno,
) -> JailError {
    match e {
        Errno::ELOOP | Errno::ENOTDIR | Errno::EMLINK => match lstat_kind(parent, name) {
            Some(EntryKind::Symlink) => JailError::SymlinkRefused { path: so_far },
            Some(_) => JailError::NotADirectory { path: so_far },
            None if e == Errno::ENOTDIR => JailError::NotADirectory { path: so_far },
            None => JailError::SymlinkRefused { path: so_far },
        },
        other => map_errno(other, so_far, "open"),
    }
}

/// Maps an errno to a refusal naming `path` (relative), or an I/O error of `op`.
pub(super) fn map_errno(e: Errno, path: String, op: &'static str) -> JailError {
    match e {
        Errno::ENOENT => JailError::NotFound { path },
        Errno::ENOTDIR => JailError::NotADirectory { path },
        Errno::EACCES | Errno::EPERM => JailError::PermissionDenied { path },
        Errno::ENAMETOOLONG => JailError::PathInvalid {
            reason: "path is too long",
        },
        other => JailError::io(op, other),
    }
}
