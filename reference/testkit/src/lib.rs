//! Test support shared by the integration tests of `mcp-toolhub`, `safe-mcp` and `mcp-hub`,
//! so each crate's tests drive real server processes the same way instead of carrying their
//! own copy of the plumbing.
//!
//! - [`bins`]: another workspace package's binaries, found where the workspace build left
//!   them (never built from inside a test).
//! - [`lines`]: a JSON-RPC line client over a spawned server (stdout read on a thread, every
//!   wait a deadline on a channel).
//! - [`procs`]: the probe process tree (plain, `setsid`'d and TERM-ignoring descendants, each
//!   recording its pid), liveness through `/proc`, and polling a condition with a deadline.
//! - [`oracle`]: the built-in conformance suites run against the package's freshly built
//!   servers, as an ignored-by-default test (the oracle of mutation testing).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

pub mod bins;
pub mod lines;
pub mod oracle;
pub mod procs;
