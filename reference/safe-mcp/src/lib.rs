//! `safe-mcp`: the reference safe-mcp servers, wiring around `mcp-safety-core`.
//!
//! - [`cli`]: the `safe-mcp` command line and the `fatal:` contract.
//! - [`config`]: the policy file, read and checked, every failure one line naming where.
//! - [`result`]: the `OperationResult` every tool returns and its codes.
//! - [`terminal`]: `run_command` / `explain_command` logic (no MCP types).
//! - [`server`]: the rmcp face of the terminal.
//! - [`files`]: the undoable file organizer logic (no MCP types).
//! - [`files_server`]: the rmcp face of the file organizer.

#![cfg_attr(test, allow(clippy::unwrap_used))]

mod audited;
mod blocking;
pub mod cli;
pub mod config;
pub mod files;
pub mod files_server;
pub mod result;
pub mod server;
pub mod terminal;
