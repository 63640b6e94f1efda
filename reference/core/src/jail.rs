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

use std::fmt;
use std::fs::File;
use std::io::{Read, Write};
use std::os::fd::{AsFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use nix::dir::Dir;
use nix::errno::Errno;
use nix::fcntl::{AtFlags, OFlag, openat, renameat};
use nix::sys::stat::{FileStat, Mode, SFlag, fchmod, fstat, fstatat, mkdirat};
use nix::unistd::{UnlinkatFlags, fsync, unlinkat};
use serde::Serialize;

use crate::config::ConfigError;
use crate::digest::{sha256_hex, to_hex};
use sha2::{Digest, Sha256};

/// Longest accepted relative path, in bytes.
pub const MAX_PATH_BYTES: usize = 4096;
/// Longest accepted path component, in bytes.
pub const MAX_COMPONENT_BYTES: usize = 255;

/// A validated path relative to the workspace root.
///
/// Accepted: `/`-separated components; empty components and `.` are dropped (`a//./b` is
/// `a/b`); `""` and `"."` are the root itself (useful for listing). Refused: absolute paths
/// (`PATH_ABSOLUTE`), any `..` component even when it would stay inside
/// (`PATH_TRAVERSAL`), NUL bytes, backslashes (so a Windows-style `..\x` can never be
/// reinterpreted), over-long paths or components (`PATH_INVALID`).
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RelPath {
    normalized: String,
}

impl RelPath {
    /// The workspace root.
    pub fn root() -> Self {
        RelPath {
            normalized: String::new(),
        }
    }

    /// Parses and normalizes; see the type documentation for the rules.
    pub fn parse(raw: &str) -> Result<Self, JailError> {
        if raw.contains('\0') {
            return Err(JailError::PathInvalid {
                reason: "path contains a NUL byte",
            });
        }
        if raw.starts_with('/') {
            return Err(JailError::PathAbsolute);
        }
        if raw.contains('\\') {
            return Err(JailError::PathInvalid {
                reason: "path contains a backslash",
            });
        }
        if raw.len() > MAX_PATH_BYTES {
            return Err(JailError::PathInvalid {
                reason: "path is too long",
            });
        }
        let mut parts: Vec<&str> = Vec::new();
        for comp in raw.split('/') {
            match comp {
                "" | "." => {}
                ".." => return Err(JailError::PathTraversal),
                c if c.len() > MAX_COMPONENT_BYTES => {
                    return Err(JailError::PathInvalid {
                        reason: "path component is too long",
                    });
                }
                c => parts.push(c),
            }
        }
        Ok(RelPath {
            normalized: parts.join("/"),
        })
    }

    /// The normalized form (`""` for the root).
    pub fn as_str(&self) -> &str {
        &self.normalized
    }

    /// True for the workspace root.
    pub fn is_root(&self) -> bool {
        self.normalized.is_empty()
    }

    /// The components, in order.
    pub fn components(&self) -> impl Iterator<Item = &str> {
        self.normalized.split('/').filter(|c| !c.is_empty())
    }

    /// The last component, or `None` for the root.
    pub fn file_name(&self) -> Option<&str> {
        self.components().last()
    }

    /// A human-readable form: `.` for the root, else the normalized path.
    pub fn display(&self) -> &str {
        if self.is_root() {
            "."
        } else {
            &self.normalized
        }
    }

    fn split_parent(&self) -> Option<(Vec<&str>, &str)> {
        let mut comps: Vec<&str> = self.components().collect();
        let last = comps.pop()?;
        Some((comps, last))
    }
}

impl TryFrom<&str> for RelPath {
    type Error = JailError;
    fn try_from(raw: &str) -> Result<Self, JailError> {
        RelPath::parse(raw)
    }
}

impl fmt::Display for RelPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.display())
    }
}

impl fmt::Debug for RelPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "RelPath({:?})", self.normalized)
    }
}

/// A confinement or filesystem failure. Messages only ever name paths relative to the
/// workspace (never the workspace root or anything outside it) and OS reasons.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum JailError {
    /// Malformed path (NUL, backslash, too long).
    #[error("invalid path: {reason}")]
    PathInvalid {
        /// What is wrong.
        reason: &'static str,
    },
    /// An absolute path was given; paths are relative to the workspace.
    #[error("absolute paths are not allowed; use a path relative to the workspace")]
    PathAbsolute,
    /// A `..` component.
    #[error("path traversal ('..') is not allowed")]
    PathTraversal,
    /// The path would leave the workspace by some other route. Reserved for callers that
    /// resolve paths from other sources; the jail itself reports symlinks as `SymlinkRefused`.
    #[error("path is outside the workspace")]
    PathOutsideWorkspace,
    /// A symlink was found at `path` (a parent or the last component); never followed.
    #[error("symlinks are not followed: {path}")]
    SymlinkRefused {
        /// The relative path up to and including the symlink.
        path: String,
    },
    /// Nothing exists at `path`.
    #[error("not found: {path}")]
    NotFound {
        /// The relative path that is missing (possibly a parent).
        path: String,
    },
    /// `path` exists but is not a regular file.
    #[error("not a regular file: {path}")]
    NotAFile {
        /// The relative path.
        path: String,
    },
    /// `path` (or one of its parents) exists but is not a directory.
    #[error("not a directory: {path}")]
    NotADirectory {
        /// The relative path.
        path: String,
    },
    /// The file is larger than the caller's limit.
    #[error("file is too large: {size} bytes exceeds the limit of {limit} bytes")]
    TooLarge {
        /// Observed size.
        size: u64,
        /// The limit.
        limit: u64,
    },
    /// The file's current state does not match the caller's precondition.
    #[error("file changed: expected {}, found {}", describe_hash(.expected), describe_hash(.actual))]
    Conflict {
        /// What the caller expected (`None` = absent).
        expected: Option<String>,
        /// What is there now (`None` = absent).
        actual: Option<String>,
    },
    /// The OS refused access.
    #[error("permission denied: {path}")]
    PermissionDenied {
        /// The relative path.
        path: String,
    },
    /// Any other I/O failure; `reason` is the OS error description only.
    #[error("i/o error during {op}: {reason}")]
    Io {
        /// The operation that failed.
        op: &'static str,
        /// The OS reason.
        reason: String,
    },
}

fn describe_hash(h: &Option<String>) -> String {
    match h {
        Some(h) => format!("sha256 {h}"),
        None => "no file".to_string(),
    }
}

impl JailError {
    /// A stable machine code.
    pub fn code(&self) -> &'static str {
        match self {
            JailError::PathInvalid { .. } => "PATH_INVALID",
            JailError::PathAbsolute => "PATH_ABSOLUTE",
            JailError::PathTraversal => "PATH_TRAVERSAL",
            JailError::PathOutsideWorkspace => "PATH_OUTSIDE_WORKSPACE",
            JailError::SymlinkRefused { .. } => "SYMLINK_REFUSED",
            JailError::NotFound { .. } => "NOT_FOUND",
            JailError::NotAFile { .. } => "NOT_A_FILE",
            JailError::NotADirectory { .. } => "NOT_A_DIRECTORY",
            JailError::TooLarge { .. } => "TOO_LARGE",
            JailError::Conflict { .. } => "CONFLICT",
            JailError::PermissionDenied { .. } => "PERMISSION_DENIED",
            JailError::Io { .. } => "IO",
        }
    }

    /// True for refusals that come from the confinement policy itself (as opposed to the
    /// file's state or the OS): the path shape or a symlink.
    pub fn is_confinement_refusal(&self) -> bool {
        matches!(
            self,
            JailError::PathInvalid { .. }
                | JailError::PathAbsolute
                | JailError::PathTraversal
                | JailError::PathOutsideWorkspace
                | JailError::SymlinkRefused { .. }
        )
    }

    fn io(op: &'static str, e: Errno) -> Self {
        JailError::Io {
            op,
            reason: e.desc().to_lowercase(),
        }
    }

    fn io_std(op: &'static str, e: &std::io::Error) -> Self {
        JailError::Io {
            op,
            reason: crate::config::io_reason(e),
        }
    }
}

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
    fn from_stat(st: &FileStat) -> Self {
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

    /// Reads a regular file of at most `max_bytes` bytes. Symlinks (last component or any
    /// parent) are refused; FIFOs and devices are refused without blocking.
    pub fn read_file(&self, path: &RelPath, max_bytes: u64) -> Result<FileRead, JailError> {
        let (parents, name) = path.split_parent().ok_or_else(|| JailError::NotAFile {
            path: path.display().to_string(),
        })?;
        let parent = self.walk(&parents, false)?;
        let fd = match openat(&parent, name, READ_FLAGS, Mode::empty()) {
            Ok(fd) => fd,
            Err(e) => return Err(self.classify_last_error(&parent, name, path, e, "open")),
        };
        let st = fstat(&fd).map_err(|e| JailError::io("stat", e))?;
        if EntryKind::from_stat(&st) != EntryKind::File {
            return Err(JailError::NotAFile {
                path: path.display().to_string(),
            });
        }
        let size = st.st_size.max(0) as u64;
        if size > max_bytes {
            return Err(JailError::TooLarge {
                size,
                limit: max_bytes,
            });
        }
        let mut bytes = Vec::with_capacity(size as usize);
        File::from(fd)
            .take(max_bytes.saturating_add(1))
            .read_to_end(&mut bytes)
            .map_err(|e| JailError::io_std("read", &e))?;
        if bytes.len() as u64 > max_bytes {
            return Err(JailError::TooLarge {
                size: bytes.len() as u64,
                limit: max_bytes,
            });
        }
        let sha256 = sha256_hex(&bytes);
        Ok(FileRead {
            size: bytes.len() as u64,
            bytes,
            sha256,
        })
    }

    /// Metadata of `path` without following a final symlink (a symlink is reported as
    /// [`EntryKind::Symlink`]); symlinked parents are refused.
    pub fn stat(&self, path: &RelPath) -> Result<EntryInfo, JailError> {
        let Some((parents, name)) = path.split_parent() else {
            let st = fstat(&self.inner.fd).map_err(|e| JailError::io("stat", e))?;
            return Ok(EntryInfo {
                kind: EntryKind::from_stat(&st),
                size: st.st_size.max(0) as u64,
            });
        };
        let parent = self.walk(&parents, false)?;
        match fstatat(&parent, name, AtFlags::AT_SYMLINK_NOFOLLOW) {
            Ok(st) => Ok(EntryInfo {
                kind: EntryKind::from_stat(&st),
                size: st.st_size.max(0) as u64,
            }),
            Err(e) => Err(self.classify_last_error(&parent, name, path, e, "stat")),
        }
    }

    /// Lists a directory (the root for `RelPath::root()`), sorted by name. Entries are
    /// described with `lstat` semantics; a symlinked directory (or parent) is refused.
    pub fn list_dir(&self, path: &RelPath) -> Result<Vec<DirEntry>, JailError> {
        let comps: Vec<&str> = path.components().collect();
        let fd = self.walk(&comps, false)?;
        let mut dir = Dir::from_fd(fd).map_err(|e| JailError::io("opendir", e))?;
        let mut names = Vec::new();
        for entry in dir.iter() {
            let entry = entry.map_err(|e| JailError::io("readdir", e))?;
            let name = entry.file_name().to_bytes();
            if name == b"." || name == b".." {
                continue;
            }
            names.push(entry.file_name().to_owned());
        }
        let mut out = Vec::with_capacity(names.len());
        for name in names {
            let st = match fstatat(&dir, name.as_c_str(), AtFlags::AT_SYMLINK_NOFOLLOW) {
                Ok(st) => st,
                Err(Errno::ENOENT) => continue, // removed while listing
                Err(e) => return Err(JailError::io("stat", e)),
            };
            let kind = EntryKind::from_stat(&st);
            out.push(DirEntry {
                name: name.to_string_lossy().into_owned(),
                kind,
                size: (kind == EntryKind::File).then_some(st.st_size.max(0) as u64),
            });
        }
        out.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(out)
    }

    /// SHA-256 of the regular file at `path`, or `None` if nothing exists there. A symlink or
    /// a non-file is an error, never "absent".
    pub fn current_sha256(&self, path: &RelPath) -> Result<Option<String>, JailError> {
        let (parents, name) = path.split_parent().ok_or_else(|| JailError::NotAFile {
            path: path.display().to_string(),
        })?;
        let parent = match self.walk(&parents, false) {
            Ok(p) => p,
            Err(JailError::NotFound { .. }) => return Ok(None),
            Err(e) => return Err(e),
        };
        self.hash_existing(&parent, name, path)
    }

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

        // Write the temp file first so the check-to-rename window is as narrow as possible.
        let new_sha256 = sha256_hex(bytes);
        let (tmp_name, tmp_fd) = create_temp(&parent)?;
        let cleanup = |parent: &OwnedFd| {
            let _ = unlinkat(parent, tmp_name.as_str(), UnlinkatFlags::NoRemoveDir);
        };
        let mut tmp = File::from(tmp_fd);
        if let Err(e) = tmp.write_all(bytes).and_then(|_| tmp.sync_all()) {
            cleanup(&parent);
            return Err(JailError::io_std("write", &e));
        }

        let previous = match self.inspect_target(&parent, name, path) {
            Ok(p) => p,
            Err(e) => {
                cleanup(&parent);
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
            cleanup(&parent);
            return Err(JailError::Conflict {
                expected: match expect {
                    Precondition::Sha256(h) => Some(h.to_ascii_lowercase()),
                    _ => None,
                },
                actual: previous_sha256,
            });
        }
        if let Some((_, mode)) = &previous
            && let Err(e) = fchmod(tmp.as_fd(), Mode::from_bits_truncate(*mode & 0o777))
        {
            cleanup(&parent);
            return Err(JailError::io("chmod", e));
        }
        drop(tmp);
        if let Err(e) = renameat(&parent, tmp_name.as_str(), &parent, name) {
            cleanup(&parent);
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

    /// Opens the directory reached by `comps` from the root, refusing symlinks and
    /// non-directories at every step. With `create`, missing components are created.
    fn walk(&self, comps: &[&str], create: bool) -> Result<OwnedFd, JailError> {
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
    fn classify_last_error(
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
    fn inspect_target(
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
        // Stream the hash: the existing file may be far larger than anything we would read.
        let mut hasher = Sha256::new();
        let mut file = File::from(fd);
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            match file.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => hasher.update(&buf[..n]),
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(JailError::io_std("read", &e)),
            }
        }
        Ok(Some((to_hex(&hasher.finalize()), st.st_mode)))
    }

    fn hash_existing(
        &self,
        parent: &OwnedFd,
        name: &str,
        path: &RelPath,
    ) -> Result<Option<String>, JailError> {
        Ok(self.inspect_target(parent, name, path)?.map(|(h, _)| h))
    }
}

/// The workspace identifier for a canonical path string.
pub fn workspace_id_for(canonical: &str) -> String {
    sha256_hex(canonical.as_bytes())
}

fn lstat_kind(parent: &OwnedFd, name: &str) -> Option<EntryKind> {
    fstatat(parent, name, AtFlags::AT_SYMLINK_NOFOLLOW)
        .ok()
        .map(|st| EntryKind::from_stat(&st))
}

fn classify_dir_error(parent: &OwnedFd, name: &str, so_far: String, e: Errno) -> JailError {
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

fn map_errno(e: Errno, path: String, op: &'static str) -> JailError {
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

fn create_temp(parent: &OwnedFd) -> Result<(String, OwnedFd), JailError> {
    for _ in 0..8 {
        let suffix = crate::ids::random_hex(12).map_err(|e| JailError::io_std("random", &e))?;
        let name = format!(".toolhub-tmp-{suffix}");
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
    Err(JailError::Io {
        op: "create",
        reason: "could not create a unique temporary file".into(),
    })
}

#[cfg(test)]
mod tests;
