//! `mcp-conformance`: a black-box conformance suite for stdio MCP servers.
//!
//! The suite sees only what a client, an operator CLI and the workspace can see: it starts a
//! server as a child process, speaks JSON-RPC over its stdin/stdout line by line, runs the
//! target's operator command, and inspects files and processes in a per-scenario sandbox.
//! It depends on no implementation, so it can judge any server, ours included.
//!
//! The languages a scenario author writes (scenario and target files, `expect:` patterns, the
//! sandbox spec) live in `mcp-conformance-lang`; they are re-exported here under their old paths.

//!
//! The public surface is what a program embedding the engine needs: [`cli`] (the command
//! line, `cli::main`), [`runner`] (run scenarios against targets, fed to reporters), [`report`]
//! (the event stream, the report types and formats), [`builtin`] (the embedded suites and
//! targets), [`sandbox`] and [`process`] (how servers and programs are started). The fixture
//! server, the probe and the benchmark are programs of the same binary, reached through the
//! command line only; the JSON-RPC session and the loading of sources are the engine's own.

pub mod builtin;
pub mod cli;
pub mod official;
pub mod process;
pub mod report;
pub mod runner;
pub mod sandbox;

mod bench;
mod fixture;
mod probe;
mod relay;
mod say;
mod session;
mod sources;
mod sweep;

pub use mcp_conformance_lang::{duration, generation, interp, matcher, model};
