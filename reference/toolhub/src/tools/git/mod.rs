//! `git.status`, `git.diff`: read-only git through the shared execution path.
//!
//! Every git subprocess runs through the core's contained execution (`exec::run`) with the
//! hardened invocation of [`harden`]: an absolute git resolved once from the server's `PATH`,
//! a minimal environment pinning the repository to `<workspace>/.git` and the work tree to the
//! workspace root, and every repository-configurable program (filters, diff drivers, external
//! diff, fsmonitor, hooks, pager, transports) neutralised, so no repository-configured program
//! ever runs. Submodules are only compared by commit (`--ignore-submodules=dirty`), so git
//! never starts a child git inside a submodule with that submodule's own configuration.
//!
//! These tools have no `outcome` field: refusals are tool error results (`isError: true`).
//! Each call appends one audit event (`git.status` / `git.diff`) with the executable's
//! basename and, per subprocess, its exit status and byte counters; never its output.
//!
//! The module is split by job: `harden` (executable, environment, driver enumeration and
//! overrides), `run` (one call's subprocesses, classification, audit metadata), `parse`
//! (porcelain and numstat), `status` and `diff` (the tools).

mod diff;
pub mod harden;
pub mod parse;
mod run;
mod status;

use mcp_safety_core::audit::AuditEvent;
use mcp_safety_core::jail::{EntryKind, JailError, RelPath};
use serde_json::Value;

use crate::contract::{ErrorInfo, Outcome};
use crate::error::ToolError;
use crate::hub::Hub;

use run::Session;

/// Error codes of the git tools (besides the core jail's path codes).
pub mod codes {
    /// The workspace root is not a git repository (no usable `<workspace>/.git`).
    pub const NOT_A_GIT_REPOSITORY: &str = "NOT_A_GIT_REPOSITORY";
    /// A git subprocess exceeded its time limit; its process tree was terminated (retryable).
    pub const GIT_TIMED_OUT: &str = "GIT_TIMED_OUT";
    /// git failed, could not be started, produced output this server does not understand, or
    /// the repository configuration could not be neutralised (then git was not run).
    pub const GIT_FAILED: &str = "GIT_FAILED";
    /// No git executable on the server's `PATH`.
    pub const GIT_NOT_FOUND: &str = "GIT_NOT_FOUND";
}

/// A jail refusal as a tool error with the jail's code.
fn refused_path(e: JailError) -> ToolError {
    ToolError::refused(e.code(), e.to_string())
}

impl Hub {
    /// Refuses a `.git` that is a symlink (the repository would live outside the workspace).
    /// Anything else is left to git (which reports a missing repository itself).
    fn check_git_dir(&self) -> Result<(), ToolError> {
        let dot_git = RelPath::parse(".git").map_err(refused_path)?;
        match self.workspace.stat(&dot_git) {
            Ok(info) if info.kind == EntryKind::Symlink => {
                Err(refused_path(JailError::SymlinkRefused {
                    path: ".git".to_string(),
                }))
            }
            _ => Ok(()),
        }
    }

    /// Appends the one audit event of a git tool call.
    fn audit_git<T>(
        &self,
        tool: &'static str,
        trace_id: &str,
        session: &Session,
        result: &Result<T, ToolError>,
        extra: Value,
    ) {
        let mut details = session.audit_details();
        if let (Value::Object(d), Value::Object(e)) = (&mut details, extra) {
            d.extend(e);
        }
        let (outcome, error): (Outcome, Option<&ErrorInfo>) = match result {
            Ok(_) => (Outcome::Succeeded, None),
            Err(ToolError::Refused(e)) => (Outcome::Refused, Some(e)),
            Err(ToolError::Protocol(_)) => (Outcome::Failed, None),
        };
        self.audit_outcome(
            AuditEvent::new(tool, tool, trace_id),
            outcome,
            error,
            details,
        );
    }
}
