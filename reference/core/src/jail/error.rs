//! Confinement and filesystem refusals, with stable machine codes.

use nix::errno::Errno;

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

    /// An OS failure of `op`, with the errno description only.
    pub(super) fn io(op: &'static str, e: Errno) -> Self {
        JailError::Io {
            op,
            reason: e.desc().to_lowercase(),
        }
    }

    /// An OS failure of `op` from a std I/O error, with the OS reason only.
    pub(super) fn io_std(op: &'static str, e: &std::io::Error) -> Self {
        JailError::Io {
            op,
            reason: crate::config::io_reason(e),
        }
    }
}
