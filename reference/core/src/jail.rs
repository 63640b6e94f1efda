//! Workspace confinement.
//!
//! Every operation resolves a [`RelPath`] component by component with `openat(2)` relative to
//! an already-open directory descriptor, passing `O_NOFOLLOW` for every component (parents
//! with `O_DIRECTORY` too). A symlink anywhere in the path is therefore refused by the kernel
//! at the moment of use, rather than by a check on a path string that a concurrent rename could
//! invalidate. The workspace root itself is opened once, after canonicalization, and every
//! operation starts from that descriptor, so later renames of the root's ancestors cannot
//! redirect us either.
//!
//! Writes go to a temporary file created (`O_CREAT|O_EXCL|O_NOFOLLOW`) in the target's parent
//! via the parent's descriptor, are fsynced, then `renameat` replaces the target name and the
//! parent directory is fsynced. `renameat` replaces a directory entry and never follows a
//! symlink at the destination, so even a symlink swapped in at the last moment is replaced,
//! not written through.
//!
//! Not covered (documented limits): hard links to files outside the workspace that an
//! attacker created inside it beforehand, and bind mounts; neither is a symlink.

//! The module is split by job: `relpath` (parsing and normalizing relative paths), `error`
//! (refusals with stable codes), `types` (entry kinds, results and write preconditions),
//! `walk` (the descriptor walker and errno classification), `read` (reads, stat and
//! listings) and `write` (atomic, precondition-checked writes).

use std::fmt;
use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use nix::errno::Errno;
use nix::fcntl::OFlag;
use nix::sys::stat::{Mode, fstat};

use crate::config::ConfigError;
use crate::digest::sha256_hex;

mod error;
mod read;
mod relpath;
mod temp;
mod types;
mod walk;
mod write;

pub use error::JailError;
pub use relpath::RelPath;
pub use types::{DirEntry, EntryInfo, EntryKind, FileRead, Precondition, WriteOutcome};

/// Longest accepted relative path, in bytes.
pub const MAX_PATH_BYTES: usize = 4096;
/// Longest accepted path component, in bytes.
pub const MAX_COMPONENT_BYTES: usize = 255;
/// Largest existing file a write may replace (16 MiB). Replacing a file hashes it, at
/// submission and again just before the rename; a larger target is refused as
/// [`JailError::TooLarge`] from its size alone, before any of it is read.
pub const MAX_REPLACED_FILE_BYTES: u64 = 16 * 1024 * 1024;

struct Inner {
    root: PathBuf,
    root_str: String,
    id: String,
    fd: OwnedFd,
}

/// The frozen workspace: canonical root path plus an open descriptor of it. Cheap to clone.
#[derive(Clone)]
pub struct Workspace {
    inner: Arc<Inner>,
}

impl fmt::Debug for Workspace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Workspace")
            .field("root", &self.inner.root)
            .field("id", &self.inner.id)
            .finish()
    }
}

const DIR_FLAGS: OFlag = OFlag::O_RDONLY
    .union(OFlag::O_DIRECTORY)
    .union(OFlag::O_NOFOLLOW)
    .union(OFlag::O_CLOEXEC);

const READ_FLAGS: OFlag = OFlag::O_RDONLY
    .union(OFlag::O_NOFOLLOW)
    .union(OFlag::O_CLOEXEC)
    .union(OFlag::O_NONBLOCK)
    .union(OFlag::O_NOCTTY);

impl Workspace {
    /// Validates `raw` (non-empty, absolute, exists, is a directory), canonicalizes it once
    /// and opens it. The result is frozen for the life of the value.
    pub fn open(raw: &str) -> Result<Workspace, ConfigError> {
        if raw.is_empty() {
            return Err(ConfigError::WorkspaceMissing);
        }
        let p = Path::new(raw);
        if !p.is_absolute() {
            return Err(ConfigError::WorkspaceNotAbsolute);
        }
        let meta = match std::fs::metadata(p) {
            Ok(m) => m,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(ConfigError::WorkspaceNotFound);
            }
            Err(e) if e.raw_os_error() == Some(Errno::ENOTDIR as i32) => {
                return Err(ConfigError::WorkspaceNotFound);
            }
            Err(e) => return Err(ConfigError::WorkspaceIo(crate::config::io_reason(&e))),
        };
        if !meta.is_dir() {
            return Err(ConfigError::WorkspaceNotDirectory);
        }
        let canonical = std::fs::canonicalize(p)
            .map_err(|e| ConfigError::WorkspaceIo(crate::config::io_reason(&e)))?;
        let root_str = canonical
            .to_str()
            .ok_or(ConfigError::WorkspaceNotUtf8)?
            .to_string();
        // The canonical path has no symlinks left, so O_NOFOLLOW on the last component only
        // guards against a swap between canonicalize and open.
        let fd = nix::fcntl::open(canonical.as_path(), DIR_FLAGS, Mode::empty())
            .map_err(|e| ConfigError::WorkspaceIo(e.desc().to_lowercase()))?;
        let (a, b) = (
            fstat(&fd).map_err(|e| ConfigError::WorkspaceIo(e.desc().to_lowercase()))?,
            nix::sys::stat::stat(canonical.as_path())
                .map_err(|e| ConfigError::WorkspaceIo(e.desc().to_lowercase()))?,
        );
        if (a.st_dev, a.st_ino) != (b.st_dev, b.st_ino) {
            return Err(ConfigError::WorkspaceIo(
                "workspace changed while opening".into(),
            ));
        }
        let id = workspace_id_for(&root_str);
        Ok(Workspace {
            inner: Arc::new(Inner {
                root: canonical,
                root_str,
                id,
                fd,
            }),
        })
    }

    /// The canonical root path.
    pub fn root(&self) -> &Path {
        &self.inner.root
    }

    /// The canonical root path as a string.
    pub fn root_str(&self) -> &str {
        &self.inner.root_str
    }

    /// The deterministic workspace identifier: lowercase hex SHA-256 of the canonical path.
    /// Namespace separation, not a secret.
    pub fn id(&self) -> &str {
        &self.inner.id
    }

    /// True if the absolute, already-canonical `path` is the root or below it.
    pub fn contains_canonical(&self, path: &Path) -> bool {
        path.starts_with(&self.inner.root)
    }
}

/// The workspace identifier for a canonical path string.
pub fn workspace_id_for(canonical: &str) -> String {
    sha256_hex(canonical.as_bytes())
}

#[cfg(test)]
mod tests;
