//! Safety core shared by the reference servers (`mcp-toolhub`, `safe-mcp`, `mcp-hub`).
//!
//! It depends on no MCP crate, so every allow/deny decision can be tested without a protocol
//! session. The modules arrive with the ToolHub issues; until then the crate only fixes the
//! name and place every server depends on.

/// The workspace version, shared by every reference binary's `--version`.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
