//! Safety core shared by the reference servers (`mcp-toolhub`, `safe-mcp`, `mcp-hub`).
//!
//! It depends on no MCP crate, so every allow/deny decision can be tested without a protocol
//! session. Modules:
//!
//! - [`clock`]: injectable time ([`clock::Clock`], [`clock::Timestamp`]) so expiry and pruning
//!   are testable without sleeping.
//! - [`digest`]: SHA-256 helpers.
//! - [`ids`]: unguessable request and trace identifiers from the OS random source.
//! - [`config`]: one-line configuration errors for the workspace and the state root.
//! - [`jail`]: workspace confinement ([`jail::Workspace`], [`jail::RelPath`]) that never follows
//!   a symlink, built on `openat` + `O_NOFOLLOW` relative to directory descriptors.
//! - [`fsio`]: atomic file replacement and a cross-process `flock` lock with a deadline.
//! - [`state`]: the trusted state root and its permanent workspace binding.
//! - [`approvals`]: the expiring, single-use approval store with capacity limits and pruning.
//! - [`audit`]: the bounded, redacted JSON Lines audit log with keep-last compaction.
//! - [`redact`]: secret redaction for JSON values and strings.
//! - [`patch`]: applying a single-file unified diff exactly.
//! - [`policy`]: the safe-mcp policy file, evaluator, redactor and cwd confinement.
//! - [`trail`]: the fail-closed, fsynced JSON Lines audit trail of the safe-mcp servers.
//! - [`exec`]: contained execution of external programs (identity check, exact environment,
//!   process-tree containment, bounded output capture).

#![cfg_attr(test, allow(clippy::unwrap_used))]

pub mod approvals;
pub mod audit;
pub mod clock;
pub mod config;
pub mod digest;
pub mod exec;
pub mod fsio;
pub mod ids;
pub mod jail;
pub mod jsonl;
pub mod patch;
pub mod policy;
pub mod redact;
pub mod state;
pub mod trail;

/// The workspace version, shared by every reference binary's `--version`.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
