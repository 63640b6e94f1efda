//! `mcp-conformance`: a black-box conformance suite for stdio MCP servers.
//!
//! The suite sees only what a client, an operator CLI and the workspace can see: it starts a
//! server as a child process, speaks JSON-RPC over its stdin/stdout line by line, runs the
//! target's operator command, and inspects files and processes in a per-scenario sandbox.
//! It depends on no implementation, so it can judge any server, ours included.
//!
//! The languages a scenario author writes (scenario and target files, `expect:` patterns, the
//! sandbox spec) live in `mcp-conformance-lang`; they are re-exported here under their old paths.

pub mod bench;
pub mod builtin;
pub mod cli;
pub mod fixture;
pub mod probe;
pub mod process;
pub mod report;
pub mod runner;
pub mod sandbox;
pub mod session;
pub mod sources;

pub use mcp_conformance_lang::{duration, generation, interp, matcher, model};
