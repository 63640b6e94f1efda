//! The two generations of the MCP lifecycle the suite speaks.
//!
//! - **legacy** (2024-11-05 .. 2025-11-25): an `initialize` handshake opens a session and
//!   fixes the protocol version for the connection.
//! - **modern** (2026-07-28, "Lifecycle" and "server/discover" of
//!   <https://modelcontextprotocol.io/specification/2026-07-28>): no handshake; every request
//!   carries its protocol version and client capabilities in `params._meta`
//!   ([`META_PROTOCOL_VERSION`], [`META_CLIENT_CAPABILITIES`], optionally
//!   [`META_CLIENT_INFO`]), and `server/discover` tells what the server supports.
//!
//! A run chooses which generations to drive (`--protocol`); a session in the modern
//! generation stamps the `_meta` keys on every request it sends (never on raw `send` lines),
//! so a scenario written once runs in both.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value, json};

/// The protocol version the suite asks for in the modern generation.
pub const MODERN_VERSION: &str = "2026-07-28";
/// Request `_meta` key: the protocol version of this request (modern generation).
pub const META_PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
/// Request `_meta` key: the client's capabilities (modern generation).
pub const META_CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
/// Request `_meta` key: the client's name and version (modern generation, optional).
pub const META_CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
/// Result `_meta` key of `server/discover`: the server's name and version.
pub const META_SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";
/// The error code of `UnsupportedProtocolVersionError`.
pub const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;

/// One lifecycle generation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize, JsonSchema)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[serde(rename_all = "lowercase")]
pub enum Generation {
    /// The `initialize` handshake (2025-11-25 and earlier).
    Legacy,
    /// Stateless requests with per-request `_meta` and `server/discover` (2026-07-28).
    Modern,
}

impl Generation {
    /// Both generations, legacy first (the order passes run and are reported in).
    pub const ALL: [Generation; 2] = [Generation::Legacy, Generation::Modern];

    /// The lowercase name used in files, tags and report names.
    pub fn as_str(self) -> &'static str {
        match self {
            Generation::Legacy => "legacy",
            Generation::Modern => "modern",
        }
    }
}

impl std::fmt::Display for Generation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What `run --protocol` asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum ProtocolChoice {
    /// Only the `initialize` handshake.
    Legacy,
    /// Only the stateless 2026-07-28 requests.
    Modern,
    /// Each scenario once per generation, the generation in its name.
    Both,
}

impl ProtocolChoice {
    /// The generations to run, in report order.
    pub fn generations(self) -> Vec<Generation> {
        match self {
            ProtocolChoice::Legacy => vec![Generation::Legacy],
            ProtocolChoice::Modern => vec![Generation::Modern],
            ProtocolChoice::Both => Generation::ALL.to_vec(),
        }
    }
}

/// The per-request metadata a modern session stamps on what it sends.
#[derive(Debug, Clone, PartialEq)]
pub struct ModernMeta {
    /// `io.modelcontextprotocol/protocolVersion`.
    pub protocol_version: String,
    /// `io.modelcontextprotocol/clientCapabilities`.
    pub capabilities: Value,
    /// `io.modelcontextprotocol/clientInfo`.
    pub client_info: Value,
}

impl Default for ModernMeta {
    fn default() -> Self {
        ModernMeta {
            protocol_version: MODERN_VERSION.to_string(),
            capabilities: json!({}),
            client_info: json!({"name": "mcp-conformance", "version": env!("CARGO_PKG_VERSION")}),
        }
    }
}

impl ModernMeta {
    /// Adds the three keys to `params._meta` where the scenario did not set them, and drops
    /// the ones it set to `null` (how a scenario sends a request *without* a key). Params
    /// that are not an object (an array, say) are left alone: they are the scenario's test.
    pub fn stamp(&self, params: Option<Value>) -> Value {
        let mut params = params.unwrap_or_else(|| Value::Object(Map::new()));
        let Value::Object(obj) = &mut params else {
            return params;
        };
        let meta = obj
            .entry("_meta")
            .or_insert_with(|| Value::Object(Map::new()));
        let Value::Object(meta) = meta else {
            return params;
        };
        for (key, value) in [
            (META_PROTOCOL_VERSION, json!(self.protocol_version)),
            (META_CLIENT_CAPABILITIES, self.capabilities.clone()),
            (META_CLIENT_INFO, self.client_info.clone()),
        ] {
            match meta.get(key) {
                Some(Value::Null) => {
                    meta.remove(key);
                }
                Some(_) => {}
                None => {
                    meta.insert(key.to_string(), value);
                }
            }
        }
        if meta.is_empty() {
            obj.remove("_meta");
        }
        params
    }
}

/// Drops protocol `_meta` keys a scenario set to `null` (a legacy session stamps nothing,
/// but "send without this key" must mean the same in both generations).
pub fn drop_null_protocol_keys(params: Option<Value>) -> Option<Value> {
    let mut params = params?;
    if let Some(Value::Object(meta)) = params.get_mut("_meta") {
        for key in [
            META_PROTOCOL_VERSION,
            META_CLIENT_CAPABILITIES,
            META_CLIENT_INFO,
        ] {
            if meta.get(key) == Some(&Value::Null) {
                meta.remove(key);
            }
        }
        if meta.is_empty()
            && let Value::Object(obj) = &mut params
        {
            obj.remove("_meta");
        }
    }
    Some(params)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stamp_adds_missing_keys_and_keeps_the_scenarios() {
        let meta = ModernMeta::default();
        let out = meta.stamp(Some(json!({"name": "x", "_meta": {"progressToken": 1,
            META_PROTOCOL_VERSION: "2099-01-01"}})));
        assert_eq!(out["_meta"][META_PROTOCOL_VERSION], json!("2099-01-01"));
        assert_eq!(out["_meta"][META_CLIENT_CAPABILITIES], json!({}));
        assert_eq!(out["_meta"]["progressToken"], json!(1));
        assert_eq!(out["name"], json!("x"));
        let bare = meta.stamp(None);
        assert_eq!(bare["_meta"][META_PROTOCOL_VERSION], json!(MODERN_VERSION));
    }

    #[test]
    fn null_means_send_without_the_key() {
        let meta = ModernMeta::default();
        let out = meta.stamp(Some(json!({"_meta": {META_CLIENT_CAPABILITIES: null}})));
        assert!(out["_meta"].get(META_CLIENT_CAPABILITIES).is_none());
        assert!(out["_meta"].get(META_PROTOCOL_VERSION).is_some());
        let all_null = json!({"_meta": {META_PROTOCOL_VERSION: null,
            META_CLIENT_CAPABILITIES: null, META_CLIENT_INFO: null}});
        assert_eq!(meta.stamp(Some(all_null.clone())), json!({}));
        assert_eq!(drop_null_protocol_keys(Some(all_null)), Some(json!({})));
    }

    #[test]
    fn array_params_are_left_alone() {
        let meta = ModernMeta::default();
        assert_eq!(meta.stamp(Some(json!([1]))), json!([1]));
    }
}
