//! What reads and writes report: entry kinds, listings, file contents, write outcomes and
//! the precondition a write must meet.

use std::fmt;

use nix::sys::stat::{FileStat, SFlag};
use serde::Serialize;

/// What kind of directory entry something is. Symlinks are reported, never followed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum EntryKind {
    /// A regular file.
    File,
    /// A directory.
    Dir,
    /// A symbolic link (not followed).
    Symlink,
    /// Anything else (FIFO, socket, device).
    Other,
}

impl EntryKind {
    /// The kind of a `stat` result (without following a final symlink, when `lstat`ed).
    pub(super) fn from_stat(st: &FileStat) -> Self {
        let t = SFlag::from_bits_truncate(st.st_mode & SFlag::S_IFMT.bits());
        if t == SFlag::S_IFREG {
            EntryKind::File
        } else if t == SFlag::S_IFDIR {
            EntryKind::Dir
        } else if t == SFlag::S_IFLNK {
            EntryKind::Symlink
        } else {
            EntryKind::Other
        }
    }

    /// `file`, `dir`, `symlink` or `other`.
    pub fn as_str(self) -> &'static str {
        match self {
            EntryKind::File => "file",
            EntryKind::Dir => "dir",
            EntryKind::Symlink => "symlink",
            EntryKind::Other => "other",
        }
    }
}

/// One entry of a directory listing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DirEntry {
    /// The entry name (lossily converted if not UTF-8).
    pub name: String,
    /// Its kind, from `lstat` semantics (a symlink is a symlink).
    pub kind: EntryKind,
    /// Size in bytes for regular files; `None` otherwise.
    pub size: Option<u64>,
}

/// Metadata of one path (without following a final symlink).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EntryInfo {
    /// The kind.
    pub kind: EntryKind,
    /// Size in bytes (the `st_size` of whatever it is).
    pub size: u64,
}

/// The result of reading a file.
#[derive(Clone, PartialEq, Eq)]
pub struct FileRead {
    /// The contents.
    pub bytes: Vec<u8>,
    /// The size in bytes (`bytes.len()`).
    pub size: u64,
    /// Lowercase hex SHA-256 of `bytes`.
    pub sha256: String,
}

impl fmt::Debug for FileRead {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FileRead")
            .field("size", &self.size)
            .field("sha256", &self.sha256)
            .finish_non_exhaustive()
    }
}

/// The result of an atomic write.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct WriteOutcome {
    /// True if the file did not exist before.
    pub created: bool,
    /// SHA-256 of the replaced content, if there was a file.
    pub previous_sha256: Option<String>,
    /// SHA-256 of the written content.
    pub new_sha256: String,
    /// Bytes written.
    pub bytes_written: u64,
}

/// What the target must look like immediately before it is replaced (checked through the
/// parent descriptor just before the rename; the narrow remaining window is documented).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Precondition {
    /// No check.
    Any,
    /// The target must not exist.
    Absent,
    /// The target must be a regular file with this SHA-256 (lowercase or uppercase hex).
    Sha256(String),
}

impl Precondition {
    /// `Some(hash)` → `Sha256`, `None` → `Absent`: "the file must still be as I saw it".
    pub fn matching(observed: Option<&str>) -> Self {
        match observed {
            Some(h) => Precondition::Sha256(h.to_string()),
            None => Precondition::Absent,
        }
    }
}
