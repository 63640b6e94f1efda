//! Reference `mcp-hub`: a tools-only MCP aggregation server over stdio.
//!
//! It starts the configured stdio MCP servers (concurrently), lists their tools, and serves
//! one curated inventory: optional `prefix.tool` names, include/exclude masks, safety-hint
//! overrides. Calls, cancellations and progress are routed to the owning upstream. See the
//! crate README for the configuration reference and guarantees.
//!
//! - [`config`]: the TOML file, parsed into raw structs, validated into newtypes.
//! - [`mask`]: `*` tool-name masks.
//! - [`upstream`]: upstream processes and their client sessions.
//! - [`registry`]: the outward inventory, fixed at startup.
//! - [`router`]: calls, cancellations and progress by owner.
//! - [`front`]: the calls and listings the hub takes from stdin itself, ahead of rmcp.
//! - [`outward`]: what the client receives of the upstream's JSON text, and nothing more
//!   rewritten than it must be ([`json_text`]: the member-level edits).
//! - [`server`]: the rmcp server handler (tools only).
//! - [`run`]: startup, serving, signals and shutdown.
//! - [`failure`]: why startup failed, as the line the command line prints.
//! - [`cli`]: the command line.

#![warn(missing_docs)]

pub mod cli;
pub mod config;
pub mod failure;
pub mod front;
pub mod json_text;
pub mod logging;
pub mod mask;
pub mod outward;
pub mod registry;
pub mod router;
pub mod run;
pub mod server;
pub mod upstream;

/// The package version (the workspace version).
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
