//! The configuration file exactly as TOML gives it: serde structs with no invariants, so a
//! parse error is only ever about syntax, unknown keys or value types. [`super::validate`]
//! turns them into the validated types.

use indexmap::IndexMap;
use serde::Deserialize;

/// The whole file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawConfig {
    /// `[servers.<instance_id>]` tables, in file order.
    pub servers: Option<IndexMap<String, RawServer>>,
}

/// One `[servers.<instance_id>]` table.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawServer {
    pub command: String,
    #[serde(default)]
    pub args: Vec<String>,
    #[serde(default)]
    pub env: IndexMap<String, String>,
    pub stderr: Option<bool>,
    pub prefix: Option<String>,
    #[serde(default)]
    pub tools: RawTools,
}

/// `[servers.<instance_id>.tools]`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawTools {
    pub include: Option<Vec<String>>,
    pub exclude: Option<Vec<String>>,
    #[serde(default)]
    pub overrides: IndexMap<String, RawOverride>,
}

/// `[servers.<instance_id>.tools.overrides.<tool>]`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawOverride {
    pub read_only: Option<bool>,
    pub destructive: Option<bool>,
    #[serde(
        alias = "external",
        alias = "external_side_effect",
        alias = "sends_external_data"
    )]
    pub open_world: Option<bool>,
}
