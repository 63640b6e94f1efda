//! Why a policy file cannot be used. Every variant is one line, printed after `fatal: ` by
//! the servers before they exit nonzero, so an operator sees exactly what to fix.

/// A policy that must not be served. Fail closed: the process does not start.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PolicyError {
    /// The policy file could not be read.
    #[error("cannot read policy file {path}: {reason}")]
    Read {
        /// The path as given.
        path: String,
        /// The OS reason.
        reason: String,
    },
    /// The policy file is not valid TOML or does not have the expected shape.
    #[error("invalid policy file: {0}")]
    Parse(String),
    /// A value is structurally fine but not acceptable (or a required one is missing). The
    /// key is a path into the file, so a caller can say where the value came from: the
    /// file's line, or the environment variable overriding the key.
    #[error("invalid policy: {key}{} {problem}", shown_value(value))]
    Value {
        /// The key's path as written, with positions in arrays:
        /// `terminal.limits.timeout_seconds`, `terminal.allowlist.commands[2]`,
        /// `redaction.extra_patterns[0].regex`, `files.skip[1].layer`.
        key: String,
        /// The value as TOML would write it (`0`, `"bin/ls"`, `true`); `None` when missing.
        value: Option<String>,
        /// What is wrong with it (`must be in (0, 86400]`).
        problem: String,
    },
    /// A root directory is neither in the file nor in its environment variable.
    #[error("{key} is required (set it in the policy file or via {env})")]
    RootMissing {
        /// The policy key.
        key: &'static str,
        /// The overriding environment variable.
        env: &'static str,
    },
    /// A root directory does not exist or is not a directory.
    #[error("{origin} = {path:?} is not an existing directory (create it or correct the path)")]
    RootNotDirectory {
        /// Where the value came from: the environment variable, or the key in the file.
        origin: String,
        /// The path as resolved.
        path: String,
    },
    /// A state file (audit log, journal) resolves inside a jail it could then be read or
    /// forged from.
    #[error("{key} {path} must be outside {jail_key} {jail}")]
    StateInsideJail {
        /// The state file's key.
        key: &'static str,
        /// The state file path.
        path: String,
        /// The jail's key.
        jail_key: &'static str,
        /// The jail path.
        jail: String,
    },
}

/// ` = VALUE` for [`PolicyError::Value`], nothing when the value is missing.
fn shown_value(value: &Option<String>) -> String {
    value
        .as_ref()
        .map(|v| format!(" = {v}"))
        .unwrap_or_default()
}

impl PolicyError {
    /// A [`PolicyError::Value`] for the string `value` of `key`.
    pub(crate) fn string(key: impl Into<String>, value: &str, problem: impl Into<String>) -> Self {
        PolicyError::Value {
            key: key.into(),
            value: Some(format!("{value:?}")),
            problem: problem.into(),
        }
    }
}
