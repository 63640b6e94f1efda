//! `initialize`: open the session, by the `initialize` handshake or (modern generation)
//! `server/discover`; the engine's `runner/open.rs` does the opening.

use super::{Build, KindValue, Modifiers, StepKindInfo};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

/// The descriptor of `initialize`.
pub const INFO: StepKindInfo = StepKindInfo {
    name: "initialize",
    doc: "Send `initialize` (then `notifications/initialized` unless `initialized: false`).",
    observes: true,
    modifiers: &[],
};

/// What `initialize:` holds.
pub type Raw = InitializeSpec;

/// An `initialize` step: the options as written.
pub type Initialize = InitializeSpec;

/// Options of `initialize`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct InitializeSpec {
    /// The version to ask for (default: the target's first `protocol_versions`, else
    /// 2025-11-25).
    #[serde(default, rename = "protocolVersion")]
    pub protocol_version: Option<String>,
    /// Client capabilities (default `{}`).
    #[serde(default)]
    pub capabilities: Option<Value>,
    /// Client info (default `{name: mcp-conformance, version}`).
    #[serde(default, rename = "clientInfo")]
    pub client_info: Option<Value>,
    /// Send `notifications/initialized` after a successful answer (default true).
    #[serde(default)]
    pub initialized: Option<bool>,
    /// How to open the session: `legacy` (`initialize`), `modern` (`server/discover`, then
    /// per-request `_meta`), or `auto` (`server/discover` first; on any error but
    /// UnsupportedProtocolVersionError, or no answer within the step's deadline, fall back
    /// to `initialize`, as a dual-generation stdio client does). Default: the run's pass.
    #[serde(default)]
    pub generation: Option<OpenMode>,
}

impl KindValue for InitializeSpec {
    fn when_written_empty() -> Option<Self> {
        Some(InitializeSpec::default())
    }
}

/// How an `initialize` step opens the session.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum OpenMode {
    /// The `initialize` handshake.
    Legacy,
    /// `server/discover`, then per-request `_meta`.
    Modern,
    /// Probe with `server/discover`, fall back to `initialize`.
    Auto,
}

pub(super) fn build(
    raw: Raw,
    _: &mut Modifiers,
    _: &mut dyn Build,
) -> Option<(Initialize, String)> {
    Some((raw, INFO.name.to_string()))
}
