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
    /// A value is structurally fine but not acceptable.
    #[error("invalid policy: {0}")]
    Invalid(String),
    /// An operator redaction regex does not compile.
    #[error("invalid redaction pattern {name:?}: {reason}")]
    Regex {
        /// The pattern's `name`.
        name: String,
        /// The regex engine's first line of complaint.
        reason: String,
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
