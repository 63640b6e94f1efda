//! Reference MCP ToolHub (Contract V1): bounded workspace tools with out-of-band human
//! approval, over stdio. See the crate README for configuration, the operator workflow and the
//! contract fixture.
//!
//! - [`contract`]: the public Contract V1 types (inputs, outputs, outcomes, statuses).
//! - [`server`]: the rmcp server and its 14 tools.
//! - [`tools`]: tool bodies, synchronous methods on [`hub::Hub`].
//! - [`config`]: environment configuration shared by the server and the admin CLI.
//! - [`admin`]: the trusted operator CLI (`mcp-toolhub-admin`).
//! - [`surface`]: the normalized contract surface locked by `fixtures/contract_v1.json`.

pub mod admin;
pub mod config;
pub mod contract;
pub mod error;
pub mod hub;
pub mod limits;
pub mod serve;
pub mod server;
pub mod surface;
pub mod tools;

/// The package version (the workspace version).
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
