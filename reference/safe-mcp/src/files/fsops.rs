//! Workspace filesystem operations for the organizer, all relative to directory handles
//! opened with `O_NOFOLLOW`: a symlink is never followed, in a parent or the last component.
//! Moves use `renameat2(RENAME_NOREPLACE)`, so an existing destination is never replaced.

use std::os::fd::{AsFd, OwnedFd};
use std::path::Path;

use nix::errno::Errno;
use nix::fcntl::{AtFlags, OFlag, RenameFlags, openat, renameat2};
use nix::sys::stat::{FileStat, Mode, SFlag, fstatat, mkdirat};

use serde::{Deserialize, Serialize};

/// What went wrong while touching the workspace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FsError {
    /// A symlink (or a non-directory) sits where a folder was expected.
    NotADirectory(String),
    /// Nothing at the path (or a parent folder is missing).
    NotFound(String),
    /// The destination already exists.
    Exists(String),
    /// The source turned out to be a symlink when it was renamed (swapped in after the
    /// last check); it was moved back, so nothing moved.
    SymlinkSwapped(String),
    /// A folder holds more than [`MAX_LISTED_ENTRIES`] entries: refused after reading one
    /// name past the limit, so a huge folder costs no more than that.
    TooManyEntries(String),
    /// Any other system error.
    Io(String),
}

/// Most entries one folder listing reads (`list_files`, `plan_organize`): bounded work on
/// agent input, whatever the folder holds.
pub const MAX_LISTED_ENTRIES: usize = 10_000;

impl std::fmt::Display for FsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FsError::NotADirectory(p) => {
                write!(f, "{p} is not a folder (symlinks are not followed)")
            }
            FsError::NotFound(p) => write!(f, "{p} does not exist"),
            FsError::Exists(p) => write!(f, "{p} already exists and is never overwritten"),
            FsError::SymlinkSwapped(p) => write!(
                f,
                "{p} became a symlink while it was being moved; a symlink never moves, so it was put back"
            ),
            FsError::TooManyEntries(p) => write!(
                f,
                "{} holds more than {MAX_LISTED_ENTRIES} entries; name a subfolder",
                if p.is_empty() {
                    "the workspace"
                } else {
                    p.as_str()
                }
            ),
            FsError::Io(e) => write!(f, "{e}"),
        }
    }
}

/// The kind of an entry, never following a symlink.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A regular file.
    File,
    /// A folder.
    Dir,
    /// A symbolic link.
    Symlink,
    /// Anything else (fifo, socket, device).
    Other,
}

impl Kind {
    /// The wire spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::File => "file",
            Kind::Dir => "dir",
            Kind::Symlink => "symlink",
            Kind::Other => "other",
        }
    }
}

/// What a file looked like when planned: any difference makes a plan stale.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fingerprint {
    /// Device.
    pub dev: u64,
    /// Inode.
    pub ino: u64,
    /// Size in bytes.
    pub size: i64,
    /// Modification time (seconds).
    pub mtime: i64,
    /// Modification time (nanoseconds).
    pub mtime_nsec: i64,
    /// Status change time (seconds).
    pub ctime: i64,
    /// Status change time (nanoseconds).
    pub ctime_nsec: i64,
}

impl From<&FileStat> for Fingerprint {
    fn from(s: &FileStat) -> Self {
        Fingerprint {
            dev: s.st_dev,
            ino: s.st_ino,
            size: s.st_size,
            mtime: s.st_mtime,
            mtime_nsec: s.st_mtime_nsec,
            ctime: s.st_ctime,
            ctime_nsec: s.st_ctime_nsec,
        }
    }
}

/// The kind of a `stat` result.
pub fn kind_of(s: &FileStat) -> Kind {
    match SFlag::from_bits_truncate(s.st_mode) & SFlag::S_IFMT {
        SFlag::S_IFREG => Kind::File,
        SFlag::S_IFDIR => Kind::Dir,
        SFlag::S_IFLNK => Kind::Symlink,
        _ => Kind::Other,
    }
}

fn io(e: Errno) -> FsError {
    FsError::Io(e.desc().to_string())
}

const DIR_FLAGS: OFlag = OFlag::O_DIRECTORY
    .union(OFlag::O_NOFOLLOW)
    .union(OFlag::O_CLOEXEC)
    .union(OFlag::O_RDONLY);

/// Opens the workspace root (never through a symlink in its last component).
pub fn open_root(root: &Path) -> Result<OwnedFd, FsError> {
    nix::fcntl::open(root, DIR_FLAGS, Mode::empty()).map_err(io)
}

/// Opens folder `name` inside `dir`, refusing a symlink.
fn open_child_dir(dir: &OwnedFd, name: &str, shown: &str) -> Result<OwnedFd, FsError> {
    match openat(dir.as_fd(), name, DIR_FLAGS, Mode::empty()) {
        Ok(fd) => Ok(fd),
        Err(Errno::ENOENT) => Err(FsError::NotFound(shown.to_string())),
        Err(Errno::ELOOP) | Err(Errno::ENOTDIR) => Err(FsError::NotADirectory(shown.to_string())),
        Err(e) => Err(io(e)),
    }
}

/// Splits `rel` (normalized, `/`-separated, non-empty) into its folders and its name.
fn split(rel: &str) -> (Vec<&str>, &str) {
    let mut parts: Vec<&str> = rel.split('/').filter(|c| !c.is_empty()).collect();
    let name = parts.pop().unwrap_or("");
    (parts, name)
}

/// Opens the folder holding `rel`, walking from `root` without following symlinks; with
/// `create`, missing folders are made (mode 0755). Returns the handle and the last name.
pub fn open_parent<'a>(
    root: &OwnedFd,
    rel: &'a str,
    create: bool,
) -> Result<(OwnedFd, &'a str), FsError> {
    let (dirs, name) = split(rel);
    let mut cur = root.try_clone().map_err(|e| FsError::Io(e.to_string()))?;
    let mut shown = String::new();
    for d in dirs {
        if !shown.is_empty() {
            shown.push('/');
        }
        shown.push_str(d);
        let next = match open_child_dir(&cur, d, &shown) {
            Err(FsError::NotFound(_)) if create => {
                match mkdirat(cur.as_fd(), d, Mode::from_bits_truncate(0o755)) {
                    Ok(()) | Err(Errno::EEXIST) => {}
                    Err(e) => return Err(io(e)),
                }
                open_child_dir(&cur, d, &shown)?
            }
            other => other?,
        };
        cur = next;
    }
    Ok((cur, name))
}

/// `lstat` of `rel` (its parents walked without following symlinks); `None` if absent.
pub fn lstat(root: &OwnedFd, rel: &str) -> Result<Option<FileStat>, FsError> {
    let (dir, name) = match open_parent(root, rel, false) {
        Ok(x) => x,
        Err(FsError::NotFound(_)) => return Ok(None),
        Err(e) => return Err(e),
    };
    match fstatat(dir.as_fd(), name, AtFlags::AT_SYMLINK_NOFOLLOW) {
        Ok(s) => Ok(Some(s)),
        Err(Errno::ENOENT) => Ok(None),
        Err(e) => Err(io(e)),
    }
}

/// Moves `src` to `dest` (both workspace-relative) without ever replacing `dest`.
pub fn rename_noreplace(
    root: &OwnedFd,
    src: &str,
    dest: &str,
    create_parents: bool,
) -> Result<(), FsError> {
    let (sdir, sname) = open_parent(root, src, false)?;
    let (ddir, dname) = open_parent(root, dest, create_parents)?;
    match renameat2(
        sdir.as_fd(),
        sname,
        ddir.as_fd(),
        dname,
        RenameFlags::RENAME_NOREPLACE,
    ) {
        Ok(()) => {}
        Err(Errno::EEXIST) => return Err(FsError::Exists(dest.to_string())),
        Err(Errno::ENOENT) => return Err(FsError::NotFound(src.to_string())),
        Err(e) => return Err(io(e)),
    }
    // No rename is conditional on the type of what it moves: a source swapped for a symlink
    // after the caller's checks was just moved as a link (never followed). Check what
    // landed and put a symlink back where it came from.
    let landed = fstatat(ddir.as_fd(), dname, AtFlags::AT_SYMLINK_NOFOLLOW).map_err(io)?;
    if kind_of(&landed) == Kind::Symlink {
        renameat2(
            ddir.as_fd(),
            dname,
            sdir.as_fd(),
            sname,
            RenameFlags::RENAME_NOREPLACE,
        )
        .map_err(|e| io_context(e, dest))?;
        return Err(FsError::SymlinkSwapped(src.to_string()));
    }
    // Durable before the journal records the step as done: both directory entries reach
    // the disk, so a power loss cannot undo a rename the journal says was made.
    nix::unistd::fsync(&ddir).map_err(|e| io_context(e, dest))?;
    nix::unistd::fsync(&sdir).map_err(|e| io_context(e, src))?;
    Ok(())
}

fn io_context(e: Errno, path: &str) -> FsError {
    FsError::Io(format!(
        "{path}: a symlink swapped in during a move could not be put back: {e}"
    ))
}

/// One entry of a folder listing.
#[derive(Debug, Clone)]
pub struct Entry {
    /// The name.
    pub name: String,
    /// Its kind (a symlink is reported as one, never followed).
    pub kind: Kind,
    /// Its size in bytes.
    pub size: i64,
    /// Its fingerprint.
    pub fingerprint: Fingerprint,
}

/// The entries of folder `rel` (`""` for the root), sorted by name, without `.`/`..`.
pub fn list(root: &OwnedFd, rel: &str) -> Result<Vec<Entry>, FsError> {
    let dir = if rel.is_empty() {
        root.try_clone().map_err(|e| FsError::Io(e.to_string()))?
    } else {
        let (parent, name) = open_parent(root, rel, false)?;
        open_child_dir(&parent, name, rel)?
    };
    let walk = dir.try_clone().map_err(|e| FsError::Io(e.to_string()))?;
    let d = nix::dir::Dir::from_fd(walk).map_err(io)?;
    let mut out = Vec::new();
    for e in d {
        let e = e.map_err(io)?;
        let Ok(name) = e.file_name().to_str() else {
            continue;
        };
        if name == "." || name == ".." {
            continue;
        }
        if out.len() == MAX_LISTED_ENTRIES {
            return Err(FsError::TooManyEntries(rel.to_string()));
        }
        let name = name.to_string();
        let s = match fstatat(dir.as_fd(), name.as_str(), AtFlags::AT_SYMLINK_NOFOLLOW) {
            Ok(s) => s,
            Err(Errno::ENOENT) => continue,
            Err(e) => return Err(io(e)),
        };
        out.push(Entry {
            kind: kind_of(&s),
            size: s.st_size,
            fingerprint: Fingerprint::from(&s),
            name,
        });
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(out)
}
