//! `shell.run` and `shell.run_approved`: structured commands under a deny-by-default policy.
//!
//! A request names a program, its arguments (each one argv element, never a shell command
//! line), a workspace-relative cwd and a timeout. Exactly one ToolHub intrinsic is LOW and is
//! answered in-process without searching PATH or creating a subprocess (`risk`). Everything
//! else is MEDIUM or HIGH and needs an out-of-band approval: the submission resolves the
//! program once (`program`), fingerprints the executable (canonical path, size, SHA-256) and
//! snapshots the sanitized environment; all of that is the protected payload the operator
//! approves (`payload`). The resume consumes the approval first, then re-validates the
//! snapshot and runs the bound absolute path through the core's contained execution
//! (`mcp_safety_core::exec`), which re-checks the identity immediately before launch
//! (`resume`).
//!
//! Split by job: `risk` (classification and the intrinsic), `program` (request-time
//! resolution and cwd checks), `payload` (the protected snapshot), `submit` (`shell.run`),
//! `resume` (`shell.run_approved` and how an execution maps to an outcome).

mod payload;
mod program;
mod resume;
mod risk;
mod submit;

pub use payload::ShellPayload;

/// Default `timeout_seconds`.
pub const DEFAULT_TIMEOUT_SECONDS: u32 = 30;
/// Largest `timeout_seconds` accepted.
pub const MAX_TIMEOUT_SECONDS: u32 = 3600;
/// Most arguments a request may carry.
pub const MAX_ARGS: usize = 1024;
/// Largest total size of the arguments, in bytes.
pub const MAX_ARGS_BYTES: usize = 256 * 1024;
