//! `safe-mcp`: the reference safe-mcp servers, wiring around `mcp-safety-core`.
//!
//! - [`cli`]: the `safe-mcp` command line, startup checks and the `fatal:` contract.
//! - [`result`]: the `OperationResult` every tool returns and its codes.
//! - [`terminal`]: `run_command` / `explain_command` logic (no MCP types).
//! - [`server`]: the rmcp face of the terminal.
//!
//! `safe-mcp files` is not implemented yet (see the README).

#![cfg_attr(test, allow(clippy::unwrap_used))]

pub mod cli;
pub mod result;
pub mod server;
pub mod terminal;
