//! `mcp-conformance sweep`: a zero-configuration check of every tool of a stdio server. It
//! reads the server's own `tools/list`, makes scenarios from it ([`cases`]: surface checks,
//! schema-valid and invalid calls drawn from each tool's `inputSchema` by a seeded generator,
//! [`values`]) and runs them with the engine, so the findings arrive in every report format,
//! with levels, and each failing scenario can be written out and replayed.

pub mod cases;
pub mod discover;
pub mod fuzz;
pub mod repro;
pub mod values;
