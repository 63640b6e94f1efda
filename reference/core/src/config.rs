//! Configuration errors for the workspace root and the trusted state root.
//!
//! Every message is one short line without paths, suitable for printing to stderr as is
//! before exiting nonzero (stdout belongs to the protocol). `code()` gives a stable machine
//! code for tests and structured reporting.

/// Why the workspace or the state root cannot be used. Fail closed: the process must not start.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// The workspace root is unset or empty.
    #[error("TOOLHUB_WORKSPACE_ROOT is required")]
    WorkspaceMissing,
    /// The workspace root is not an absolute path.
    #[error("workspace root must be an absolute path")]
    WorkspaceNotAbsolute,
    /// The workspace root does not exist.
    #[error("workspace does not exist")]
    WorkspaceNotFound,
    /// The workspace root exists but is not a directory.
    #[error("workspace is not a directory")]
    WorkspaceNotDirectory,
    /// The canonical workspace path is not valid UTF-8 (it is recorded in JSON state).
    #[error("workspace path is not valid UTF-8")]
    WorkspaceNotUtf8,
    /// The workspace could not be opened or canonicalized.
    #[error("workspace cannot be opened: {0}")]
    WorkspaceIo(String),
    /// An explicit state root is not an absolute path.
    #[error("state root must be an absolute path")]
    StateRootNotAbsolute,
    /// The state root resolves inside the workspace, where the agent's filesystem tools could
    /// reach the trusted approval state.
    #[error("state root must be outside the workspace")]
    StateRootInsideWorkspace,
    /// No state root given and no per-user base directory could be determined.
    #[error("no per-user state directory: set TOOLHUB_STATE_ROOT, XDG_STATE_HOME or HOME")]
    StateRootNoBase,
    /// The state root path is not valid UTF-8.
    #[error("state root path is not valid UTF-8")]
    StateRootNotUtf8,
    /// The state root could not be created, canonicalized or locked.
    #[error("state root cannot be prepared: {0}")]
    StateRootIo(String),
    /// `workspace-binding.json` names another workspace; bindings are never reassigned.
    #[error("state namespace belongs to a different workspace")]
    BoundToOtherWorkspace,
    /// `workspace-binding.json` exists but cannot be understood; fail closed.
    #[error("workspace binding file is malformed")]
    BindingMalformed,
}

impl ConfigError {
    /// A stable machine code.
    pub fn code(&self) -> &'static str {
        match self {
            ConfigError::WorkspaceMissing => "WORKSPACE_MISSING",
            ConfigError::WorkspaceNotAbsolute => "WORKSPACE_NOT_ABSOLUTE",
            ConfigError::WorkspaceNotFound => "WORKSPACE_NOT_FOUND",
            ConfigError::WorkspaceNotDirectory => "WORKSPACE_NOT_DIRECTORY",
            ConfigError::WorkspaceNotUtf8 => "WORKSPACE_NOT_UTF8",
            ConfigError::WorkspaceIo(_) => "WORKSPACE_IO",
            ConfigError::StateRootNotAbsolute => "STATE_ROOT_NOT_ABSOLUTE",
            ConfigError::StateRootInsideWorkspace => "STATE_ROOT_INSIDE_WORKSPACE",
            ConfigError::StateRootNoBase => "STATE_ROOT_NO_BASE",
            ConfigError::StateRootNotUtf8 => "STATE_ROOT_NOT_UTF8",
            ConfigError::StateRootIo(_) => "STATE_ROOT_IO",
            ConfigError::BoundToOtherWorkspace => "STATE_BOUND_TO_OTHER_WORKSPACE",
            ConfigError::BindingMalformed => "STATE_BINDING_MALFORMED",
        }
    }
}

/// A short, path-free description of an I/O error (the OS reason only), for one-line messages.
pub(crate) fn io_reason(e: &std::io::Error) -> String {
    match e.raw_os_error() {
        Some(code) => nix::errno::Errno::from_raw(code).desc().to_lowercase(),
        None => e.kind().to_string(),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn every_error_has_its_own_stable_code() {
        let all = [
            (ConfigError::WorkspaceMissing, "WORKSPACE_MISSING"),
            (ConfigError::WorkspaceNotAbsolute, "WORKSPACE_NOT_ABSOLUTE"),
            (ConfigError::WorkspaceNotFound, "WORKSPACE_NOT_FOUND"),
            (
                ConfigError::WorkspaceNotDirectory,
                "WORKSPACE_NOT_DIRECTORY",
            ),
            (ConfigError::WorkspaceNotUtf8, "WORKSPACE_NOT_UTF8"),
            (ConfigError::WorkspaceIo(String::new()), "WORKSPACE_IO"),
            (ConfigError::StateRootNotAbsolute, "STATE_ROOT_NOT_ABSOLUTE"),
            (
                ConfigError::StateRootInsideWorkspace,
                "STATE_ROOT_INSIDE_WORKSPACE",
            ),
            (ConfigError::StateRootNoBase, "STATE_ROOT_NO_BASE"),
            (ConfigError::StateRootNotUtf8, "STATE_ROOT_NOT_UTF8"),
            (ConfigError::StateRootIo(String::new()), "STATE_ROOT_IO"),
            (
                ConfigError::BoundToOtherWorkspace,
                "STATE_BOUND_TO_OTHER_WORKSPACE",
            ),
            (ConfigError::BindingMalformed, "STATE_BINDING_MALFORMED"),
        ];
        for (error, code) in &all {
            assert_eq!(error.code(), *code, "{error:?}");
        }
    }

    #[test]
    fn an_io_reason_is_the_os_reason_without_the_path() {
        let missing = std::fs::metadata("/nonexistent/for/io_reason").unwrap_err();
        assert_eq!(io_reason(&missing), "no such file or directory");
        let other = std::io::Error::new(std::io::ErrorKind::TimedOut, "/secret/path");
        assert_eq!(io_reason(&other), "timed out");
    }
}
