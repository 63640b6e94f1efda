//! Reads: file contents, metadata, directory listings and current hashes.

use std::fs::File;
use std::io::Read;

use nix::dir::Dir;
use nix::errno::Errno;
use nix::fcntl::{AtFlags, openat};
use nix::sys::stat::{Mode, fstat, fstatat};

use super::{DirEntry, EntryInfo, EntryKind, FileRead, JailError, READ_FLAGS, RelPath, Workspace};
use crate::digest::sha256_hex;

impl Workspace {
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
        Ok(self.list_dir_at_most(path, usize::MAX)?.unwrap_or_default())
    }

    /// [`Workspace::list_dir`] bounded by `max_entries`: `None` as soon as the directory is
    /// seen to hold more, after reading at most `max_entries + 1` names and statting none, so
    /// a directory of a million entries costs no more than one over the limit.
    pub fn list_dir_at_most(
        &self,
        path: &RelPath,
        max_entries: usize,
    ) -> Result<Option<Vec<DirEntry>>, JailError> {
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
            if names.len() == max_entries {
                return Ok(None);
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
        Ok(Some(out))
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
}
