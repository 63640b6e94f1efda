//! Identity of the primary executable: canonical path, size and SHA-256.
//!
//! Approvals bind this identity; [`ExecutableIdentity::verify`] re-checks it immediately
//! before launch so a binary swapped after approval never runs.

use std::fs::File;
use std::io::{self, Read};
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use nix::fcntl::OFlag;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::digest::to_hex;

/// Read chunk used while hashing, so large binaries are streamed, never loaded whole.
const HASH_CHUNK: usize = 64 * 1024;

/// Canonical path, byte size and SHA-256 (lowercase hex) of an executable.
///
/// Exists so an approval names exactly one file's bytes, not a name that can be repointed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExecutableIdentity {
    /// The fully resolved path (no symlinks, absolute).
    pub canonical_path: PathBuf,
    /// Size in bytes (the bytes hashed).
    pub size: u64,
    /// Lowercase hex SHA-256 of the content.
    pub sha256: String,
}

/// Why an executable's identity could not be taken or no longer matches.
#[derive(Debug, thiserror::Error)]
pub enum IdentityError {
    /// The path (or a component of it) does not exist.
    #[error("program not found: {}", .0.display())]
    NotFound(PathBuf),
    /// The path resolves to something other than a regular file.
    #[error("program is not a regular file: {}", .0.display())]
    NotAFile(PathBuf),
    /// The file has no execute permission bit.
    #[error("program is not executable: {}", .0.display())]
    NotExecutable(PathBuf),
    /// The executable differs from the identity taken earlier (`what`: "size", "sha256" or
    /// "path").
    #[error("executable changed since approval ({what} differs)")]
    Changed {
        /// Which part of the identity differs.
        what: &'static str,
    },
    /// The file could not be read.
    #[error("cannot read executable: {0}")]
    Io(#[source] io::Error),
}

impl IdentityError {
    /// Stable machine-readable code for refusals and audit events.
    pub fn code(&self) -> &'static str {
        match self {
            Self::NotFound(_) => "PROGRAM_NOT_FOUND",
            Self::NotAFile(_) => "PROGRAM_NOT_A_FILE",
            Self::NotExecutable(_) => "PROGRAM_NOT_EXECUTABLE",
            Self::Changed { .. } => "EXECUTABLE_CHANGED",
            Self::Io(_) => "EXECUTABLE_UNREADABLE",
        }
    }
}

impl ExecutableIdentity {
    /// Takes the identity of `path`: canonicalize, require a regular file with some execute
    /// bit, then hash it streamed from one open descriptor (so size and hash describe the
    /// same file even if the path is replaced meanwhile).
    pub fn of(path: &Path) -> Result<Self, IdentityError> {
        let canonical = std::fs::canonicalize(path).map_err(|e| not_found_or(e, path))?;
        // Refuse FIFOs and devices before opening: opening a FIFO could block.
        let meta = std::fs::symlink_metadata(&canonical).map_err(|e| not_found_or(e, path))?;
        if !meta.is_file() {
            return Err(IdentityError::NotAFile(canonical));
        }
        let file = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags((OFlag::O_NONBLOCK | OFlag::O_NOFOLLOW).bits())
            .open(&canonical)
            .map_err(|e| not_found_or(e, path))?;
        let meta = file.metadata().map_err(IdentityError::Io)?;
        if !meta.is_file() {
            return Err(IdentityError::NotAFile(canonical));
        }
        if meta.permissions().mode() & 0o111 == 0 {
            return Err(IdentityError::NotExecutable(canonical));
        }
        let (size, sha256) = hash_file(file).map_err(IdentityError::Io)?;
        Ok(Self {
            canonical_path: canonical,
            size,
            sha256,
        })
    }

    /// Recomputes the identity from `canonical_path` and compares: a path that now resolves
    /// elsewhere (or to a non-file) is `Changed{what:"path"}`, then size, then hash. A
    /// missing file is `NotFound`; a lost execute bit stays `NotExecutable`.
    pub fn verify(&self) -> Result<(), IdentityError> {
        let now = match Self::of(&self.canonical_path) {
            Ok(now) => now,
            Err(IdentityError::NotAFile(_)) => return Err(IdentityError::Changed { what: "path" }),
            Err(e) => return Err(e),
        };
        if now.canonical_path != self.canonical_path {
            Err(IdentityError::Changed { what: "path" })
        } else if now.size != self.size {
            Err(IdentityError::Changed { what: "size" })
        } else if now.sha256 != self.sha256 {
            Err(IdentityError::Changed { what: "sha256" })
        } else {
            Ok(())
        }
    }

    /// The file name alone: audit events name the executable without its directory.
    pub fn basename(&self) -> String {
        self.canonical_path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    }
}

fn not_found_or(e: io::Error, path: &Path) -> IdentityError {
    match e.kind() {
        io::ErrorKind::NotFound | io::ErrorKind::NotADirectory => {
            IdentityError::NotFound(path.to_path_buf())
        }
        _ if e.raw_os_error() == Some(nix::libc::ELOOP) => {
            IdentityError::NotFound(path.to_path_buf())
        }
        _ => IdentityError::Io(e),
    }
}

fn hash_file(mut file: File) -> io::Result<(u64, String)> {
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; HASH_CHUNK];
    let mut size = 0u64;
    loop {
        match file.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => {
                hasher.update(&buf[..n]);
                size += n as u64;
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok((size, to_hex(&hasher.finalize())))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn script(dir: &Path, name: &str, body: &str, mode: u32) -> PathBuf {
        let p = dir.join(name);
        std::fs::write(&p, body).unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(mode)).unwrap();
        p
    }

    #[test]
    fn identity_codes_and_changes() {
        let dir = tempfile::tempdir().unwrap();
        let p = script(dir.path(), "tool", "#!/bin/sh\necho hi\n", 0o755);
        let id = ExecutableIdentity::of(&p).unwrap();
        assert_eq!(id.basename(), "tool");
        assert_eq!(id.size, 18);
        assert_eq!(
            id.sha256,
            crate::digest::sha256_hex(b"#!/bin/sh\necho hi\n")
        );
        id.verify().unwrap();

        std::fs::write(&p, "#!/bin/sh\necho HI\n").unwrap();
        let err = id.verify().unwrap_err();
        assert!(matches!(err, IdentityError::Changed { what: "sha256" }));
        assert_eq!(err.code(), "EXECUTABLE_CHANGED");
        std::fs::write(&p, "#!/bin/sh\n").unwrap();
        assert!(matches!(
            id.verify(),
            Err(IdentityError::Changed { what: "size" })
        ));
        std::fs::remove_file(&p).unwrap();
        assert_eq!(id.verify().unwrap_err().code(), "PROGRAM_NOT_FOUND");

        let plain = script(dir.path(), "plain", "x", 0o644);
        let err = ExecutableIdentity::of(&plain).unwrap_err();
        assert_eq!(err.code(), "PROGRAM_NOT_EXECUTABLE");
        let err = ExecutableIdentity::of(dir.path()).unwrap_err();
        assert_eq!(err.code(), "PROGRAM_NOT_A_FILE");
        let err = ExecutableIdentity::of(&dir.path().join("missing")).unwrap_err();
        assert_eq!(err.code(), "PROGRAM_NOT_FOUND");
        // A symlink loop names nothing; a name too long to look up is an I/O failure.
        let (one, two) = (dir.path().join("one"), dir.path().join("two"));
        std::os::unix::fs::symlink(&two, &one).unwrap();
        std::os::unix::fs::symlink(&one, &two).unwrap();
        assert_eq!(
            ExecutableIdentity::of(&one).unwrap_err().code(),
            "PROGRAM_NOT_FOUND"
        );
        let long = dir.path().join("x".repeat(300));
        assert!(matches!(
            ExecutableIdentity::of(&long),
            Err(IdentityError::Io(_))
        ));
    }

    #[test]
    fn symlink_resolves_to_target_and_repointing_is_a_path_change() {
        let dir = tempfile::tempdir().unwrap();
        let a = script(dir.path(), "a", "#!/bin/sh\n", 0o755);
        script(dir.path(), "b", "#!/bin/sh\n", 0o755);
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&a, &link).unwrap();
        let id = ExecutableIdentity::of(&link).unwrap();
        assert_eq!(id.basename(), "a");
        // Replace the canonical file by a symlink to another file with the same bytes.
        std::fs::remove_file(&a).unwrap();
        std::os::unix::fs::symlink(dir.path().join("b"), &a).unwrap();
        assert!(matches!(
            id.verify(),
            Err(IdentityError::Changed { what: "path" })
        ));
    }
}
