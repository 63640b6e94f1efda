//! `mcp-conformance-lang`: the languages a scenario author writes for `mcp-conformance`.
//!
//! - [`model`]: scenario and target files, parsed with their source positions (every mistake
//!   is reported as `FILE:LINE:COL: message`) and validated into typed steps; the levels and
//!   quoted sources a verdict rests on; the JSON Schema of both file kinds (via `schemars`).
//! - [`matcher`]: the JSON patterns of `expect:` (`$regex`, `$type`, `$len`...), compiled,
//!   evaluated and explained.
//! - [`sandbox`]: the sandbox a scenario is seeded with, as written (folders, files, symlinks,
//!   git history), checked without touching the disk.
//! - [`duration`], [`generation`], [`interp`]: `5s`-style durations, the two lifecycle
//!   generations of MCP, and `${name}` interpolation.
//!
//! The `clap` feature derives `clap::ValueEnum` for [`generation::Generation`] and
//! [`generation::ProtocolChoice`], so a command line can take them; nothing else here knows
//! of a command line.
//!
//! Everything here is pure: no transport, no tokio, no processes, and no I/O beyond reading a
//! scenario or target file and listing a folder of them. What is NOT here, and stays in
//! `mcp-conformance` (the engine): running scenarios (sessions, the JSON-RPC transport, child
//! processes, timing), materialising sandboxes on disk, the reports, the fixture server, the
//! built-in suites and the CLI.

pub mod duration;
pub mod generation;
pub mod interp;
pub mod matcher;
pub mod model;
pub mod sandbox;
