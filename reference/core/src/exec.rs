//! Contained execution of external programs: identity check, sanitized environment,
//! process-tree containment, bounded output capture.
//!
//! [`run`] is the one entry point. It verifies the executable's identity immediately before
//! launch, starts the child in its own session with exactly the given environment, drains
//! stdout and stderr concurrently into fixed-capacity buffers, enforces the timeout
//! (SIGTERM to the tree, a grace period, then SIGKILL), and on every path kills what is left
//! of the tree and reaps it before returning.
//!
//! The module is split by job: `capture` (bounded buffers and the truncation marker),
//! `identity` (executable identity), `lookup` (what is a program, and a `PATH` search), `env`
//! (the environment snapshot), `procfs` (reading the process table), `registry`
//! (process-wide subreaper flag and live executions), `contain` (tree tracking, kill and
//! reap), `drain` (the pipe drain thread), `run` (the orchestration) and `supervisor` (the
//! per-execution process that kills the tree when the server itself dies, for server binaries
//! that enable it).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

mod capture;
mod contain;
mod drain;
mod env;
mod identity;
pub mod lookup;
#[cfg(not(target_os = "linux"))]
mod off_linux;
mod procfs;
mod registry;
mod run;
pub mod supervisor;

pub use capture::{CaptureBuffer, Captured};
pub use contain::contain_child;
pub use env::SanitizedEnv;
pub use identity::{ExecutableIdentity, IdentityError};
pub use registry::{enable_subreaper, terminate_all};
pub use run::run;

/// Bytes retained per output stream (256 KiB); the rest is counted and discarded.
pub const MAX_CAPTURE_BYTES_PER_STREAM: usize = 256 * 1024;

/// SIGTERM -> SIGKILL grace period on timeout, so well-behaved children can clean up.
pub const DEFAULT_GRACE: Duration = Duration::from_millis(500);

/// Everything needed to run one contained execution. Nothing is looked up or inherited:
/// the program path, working directory and environment are used exactly as given.
#[derive(Debug, Clone)]
pub struct ExecSpec {
    /// Absolute program path; never looked up on PATH. When `identity` is set, the
    /// identity's canonical path is what gets executed (with `program` as argv\[0\]).
    pub program: PathBuf,
    /// Arguments after argv\[0\].
    pub args: Vec<String>,
    /// Absolute working directory.
    pub cwd: PathBuf,
    /// Exactly the child's environment (nothing is inherited).
    pub env: BTreeMap<String, String>,
    /// When set, verified immediately before spawn; a mismatch means nothing runs.
    pub identity: Option<ExecutableIdentity>,
    /// Wall-clock limit for the main child, from spawn.
    pub timeout: Duration,
    /// After SIGTERM to the tree on timeout, how long to wait before SIGKILL.
    pub grace: Duration,
    /// Bytes retained per stream.
    pub capture_limit: usize,
}

/// How the main child ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Termination {
    /// Exited with this code.
    Exited(i32),
    /// Killed by this signal number (not by our timeout).
    Signaled(i32),
    /// The timeout expired; the tree was terminated.
    TimedOut,
}

/// The outcome of one execution that ran.
#[derive(Debug)]
pub struct ExecResult {
    /// How the main child ended.
    pub termination: Termination,
    /// Captured stdout.
    pub stdout: Captured,
    /// Captured stderr.
    pub stderr: Captured,
    /// From just before spawn until cleanup finished.
    pub duration: Duration,
    /// Processes of the tree killed at cleanup (beyond the main child).
    pub descendants_killed: usize,
    /// The drain deadline passed before EOF: our pipe ends were dropped.
    pub pipes_forced_closed: bool,
}

/// Why an execution did not produce an [`ExecResult`].
#[derive(Debug, thiserror::Error)]
pub enum ExecError {
    /// The executable's identity check failed; nothing ran.
    #[error(transparent)]
    Identity(IdentityError),
    /// The process could not be started (invalid spec, exec failure, missing cwd, ...).
    #[error("cannot start program: {0}")]
    Spawn(#[source] std::io::Error),
    /// Supervision failed; the tree was still killed and reaped.
    #[error("execution failed internally: {0}")]
    Internal(String),
}

impl ExecError {
    /// Stable machine-readable code: the identity codes, `SPAWN_FAILED` or `EXEC_INTERNAL`.
    pub fn code(&self) -> &'static str {
        match self {
            Self::Identity(e) => e.code(),
            Self::Spawn(_) => "SPAWN_FAILED",
            Self::Internal(_) => "EXEC_INTERNAL",
        }
    }
}
