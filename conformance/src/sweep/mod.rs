//! `mcp-conformance sweep`: a zero-configuration check of every tool of a stdio server. It
//! reads the server's own `tools/list`, makes scenarios from it ([`cases`]: surface checks,
//! schema-valid calls at the edges of each tool's `inputSchema` ([`edges`], the same at every
//! seed) and drawn from it by a seeded generator ([`values`]), and invalid ones) and runs them
//! with the engine, so the findings arrive in every report format,
//! with levels, and each failing scenario can be written out and replayed.

pub mod cancel;
pub mod cases;
pub mod discover;
pub mod edges;
pub mod fuzz;
pub mod logging;
pub mod plain;
pub mod prompts;
pub mod repro;
pub mod templates;
pub mod values;
