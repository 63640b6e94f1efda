//! Atomic, precondition-checked writes through the parent's descriptor.

use std::io::Write;
use std::os::fd::{AsFd, OwnedFd};

use nix::errno::Errno;
use nix::fcntl::renameat;
use nix::sys::stat::{Mode, fchmod};
use nix::unistd::fsync;

use super::temp::{self, Temp};
use super::{JailError, Precondition, RelPath, Workspace, WriteOutcome};
use crate::digest::sha256_hex;

impl Workspace {
    /// Replaces (or creates) the file at `path` atomically with `bytes`; see
    /// [`Self::write_file_checked`]. No precondition.
    pub fn write_file_atomic(
        &self,
        path: &RelPath,
        bytes: &[u8],
        create_parents: bool,
    ) -> Result<WriteOutcome, JailError> {
        self.write_file_checked(path, bytes, create_parents, &Precondition::Any)
    }

    /// Replaces (or creates) the file at `path` atomically: temp file in the same directory
    /// (opened through the parent descriptor), fsync, `renameat` over the target, fsync the
    /// directory. Refuses when the target is a symlink, a directory or another non-file, or
    /// when any parent is a symlink or not a directory. With `create_parents`, missing parent
    /// directories are created (each with `mkdirat` relative to its parent's descriptor).
    /// `expect` is checked against the target immediately before the rename; a mismatch is
    /// [`JailError::Conflict`] and nothing is changed. An existing file's permission bits are
    /// kept; new files get `0644` minus the umask.
    pub fn write_file_checked(
        &self,
        path: &RelPath,
        bytes: &[u8],
        create_parents: bool,
        expect: &Precondition,
    ) -> Result<WriteOutcome, JailError> {
        let (parents, name) = path.split_parent().ok_or_else(|| JailError::NotAFile {
            path: path.display().to_string(),
        })?;
        let parent = self.walk(&parents, create_parents)?;
        // What writers killed here before left behind (their locks are free).
        temp::sweep(&parent);

        // Write the temp file first so the check-to-rename window is as narrow as possible.
        let new_sha256 = sha256_hex(bytes);
        let mut tmp = Temp::create(&parent)?;
        let cleanup = |parent: &OwnedFd, tmp: &Temp| tmp.discard(parent);
        let written = tmp.file().write_all(bytes);
        if let Err(e) = written.and_then(|()| tmp.file().sync_all()) {
            cleanup(&parent, &tmp);
            return Err(JailError::io_std("write", &e));
        }

        let previous = match self.inspect_target(&parent, name, path) {
            Ok(p) => p,
            Err(e) => {
                cleanup(&parent, &tmp);
                return Err(e);
            }
        };
        let previous_sha256 = previous.as_ref().map(|(h, _)| h.clone());
        let conflict = match expect {
            Precondition::Any => false,
            Precondition::Absent => previous_sha256.is_some(),
            Precondition::Sha256(want) => previous_sha256
                .as_deref()
                .is_none_or(|have| !have.eq_ignore_ascii_case(want)),
        };
        if conflict {
            cleanup(&parent, &tmp);
            return Err(JailError::Conflict {
                expected: match expect {
                    Precondition::Sha256(h) => Some(h.to_ascii_lowercase()),
                    _ => None,
                },
                actual: previous_sha256,
            });
        }
        if let Some((_, mode)) = &previous
            && let Err(e) = fchmod(tmp.file().as_fd(), Mode::from_bits_truncate(*mode & 0o777))
        {
            cleanup(&parent, &tmp);
            return Err(JailError::io("chmod", e));
        }
        // Named only now: a process killed before this line leaves nothing behind.
        let tmp_name = match tmp.name(&parent) {
            Ok(n) => n,
            Err(e) => {
                cleanup(&parent, &tmp);
                return Err(e);
            }
        };
        if let Err(e) = renameat(&parent, tmp_name.as_str(), &parent, name) {
            cleanup(&parent, &tmp);
            return Err(match e {
                Errno::EISDIR | Errno::ENOTEMPTY | Errno::EEXIST => JailError::NotAFile {
                    path: path.display().to_string(),
                },
                e => JailError::io("rename", e),
            });
        }
        // The new content is in place; a failing directory fsync only weakens crash
        // durability, and reporting failure now would misdescribe the workspace.
        let _ = fsync(&parent);
        Ok(WriteOutcome {
            created: previous.is_none(),
            previous_sha256,
            new_sha256,
            bytes_written: bytes.len() as u64,
        })
    }
}
