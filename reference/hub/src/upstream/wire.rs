//! JSON-RPC messages to and from an upstream, as lines.
//!
//! The hub is the upstream's MCP client. It writes exactly the messages it needs (requests with
//! numeric ids it allocates, carrying the 2026-07-28 protocol `_meta` keys for a modern
//! upstream, two notifications, answers to the few requests a server may send) and reads only what it must route: an incoming line is first read for its `id` and
//! `method`; a response line is then handed whole to the waiting call, which parses its result
//! once, into the type it needs.

use std::borrow::Cow;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

/// The client protocol version the hub asks upstreams for in a legacy `initialize`.
pub const UPSTREAM_PROTOCOL_VERSION: &str = "2025-11-25";
/// Versions the hub accepts in an upstream's `initialize` answer (all have `tools/*`).
pub const ACCEPTED_UPSTREAM_VERSIONS: [&str; 4] =
    ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];
/// Modern (per-request `_meta`, no `initialize`) versions the hub speaks to upstreams,
/// preferred first: the `server/discover` probe asks for the first.
pub const MODERN_UPSTREAM_VERSIONS: [&str; 1] = ["2026-07-28"];
/// Request `_meta` key of the modern generation: the request's protocol version.
pub const META_PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
/// Request `_meta` key of the modern generation: the client's capabilities.
pub const META_CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
/// Request `_meta` key of the modern generation: the client's name and version.
pub const META_CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
/// The prefix of every `_meta` key the protocol itself reserves for its lifecycle
/// (2026-07-28 "_meta"); such keys describe one hop and are never forwarded as they are.
pub const META_PROTOCOL_PREFIX: &str = "io.modelcontextprotocol/";
/// The code of `UnsupportedProtocolVersionError` (2026-07-28).
pub const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;

/// An incoming line, read once: what routing needs, and the members a relayed call or a
/// progress notification passes on, as the upstream's JSON text.
#[derive(Debug, Deserialize)]
pub struct Head<'a> {
    /// Present on responses and requests.
    #[serde(default, borrow)]
    pub id: Option<&'a RawValue>,
    /// Present on requests and notifications.
    #[serde(default, borrow)]
    pub method: Option<Cow<'a, str>>,
    /// A request's or notification's params.
    #[serde(default, borrow)]
    pub params: Option<&'a RawValue>,
    /// A success response's result.
    #[serde(default, borrow)]
    pub result: Option<&'a RawValue>,
    /// An error response's error.
    #[serde(default, borrow)]
    pub error: Option<&'a RawValue>,
}

impl<'a> Head<'a> {
    /// Reads `line`; `None` when it is not a JSON object (of UTF-8 text).
    pub fn parse(line: &'a [u8]) -> Option<Self> {
        let text = std::str::from_utf8(line).ok()?;
        // serde would read a struct from an array too.
        if !text.trim_start().starts_with('{') {
            return None;
        }
        serde_json::from_str(text).ok()
    }

    /// The id of a response to one of our requests (ours are non-negative integers).
    pub fn response_id(&self) -> Option<u64> {
        if self.method.is_some() {
            return None;
        }
        self.id.and_then(|id| id.get().parse().ok())
    }

    /// The id as a value (an upstream request's, to answer it).
    pub fn id_value(&self) -> Option<Value> {
        self.id.and_then(|id| serde_json::from_str(id.get()).ok())
    }
}

/// A JSON-RPC error object.
#[derive(Debug, Clone, Deserialize, PartialEq)]
pub struct RpcError {
    /// The error code.
    pub code: i64,
    /// The message.
    #[serde(default)]
    pub message: String,
    /// Optional details.
    #[serde(default)]
    pub data: Option<Value>,
}

impl std::fmt::Display for RpcError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "JSON-RPC error {}: {}", self.code, self.message)
    }
}

/// A response line, parsed for the caller.
#[derive(Debug, Deserialize)]
struct Response<T> {
    result: Option<T>,
    error: Option<RpcError>,
}

/// Why a response line did not give a result.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ResponseError {
    /// The upstream answered with a JSON-RPC error.
    #[error("{0}")]
    Rpc(RpcError),
    /// The answer is not a response of the expected shape.
    #[error("invalid response: {0}")]
    Invalid(String),
}

/// Parses a response line into its result or its error.
pub fn parse_response<T: DeserializeOwned>(line: &[u8]) -> Result<T, ResponseError> {
    let response: Response<T> =
        serde_json::from_slice(line).map_err(|e| ResponseError::Invalid(e.to_string()))?;
    match (response.result, response.error) {
        (Some(result), _) => Ok(result),
        (None, Some(error)) => Err(ResponseError::Rpc(error)),
        (None, None) => Err(ResponseError::Invalid(
            "neither result nor error".to_owned(),
        )),
    }
}

/// A request line.
pub fn request<P: Serialize>(id: u64, method: &str, params: &P) -> Vec<u8> {
    #[derive(Serialize)]
    struct Request<'a, P> {
        jsonrpc: &'static str,
        id: u64,
        method: &'a str,
        params: &'a P,
    }
    line(&Request {
        jsonrpc: "2.0",
        id,
        method,
        params,
    })
}

/// A request line whose `params._meta` also carries `meta` (merged into any `_meta` the
/// params already have, such as a progress token).
pub fn request_with_meta<P: Serialize>(
    id: u64,
    method: &str,
    params: &P,
    meta: &Map<String, Value>,
) -> Vec<u8> {
    let mut params = serde_json::to_value(params).unwrap_or(Value::Null);
    if !params.is_object() {
        params = Value::Object(Map::new());
    }
    if let Value::Object(obj) = &mut params {
        let entry = obj
            .entry("_meta")
            .or_insert_with(|| Value::Object(Map::new()));
        if !entry.is_object() {
            *entry = Value::Object(Map::new());
        }
        if let Value::Object(existing) = entry {
            for (key, value) in meta {
                existing.insert(key.clone(), value.clone());
            }
        }
    }
    request(id, method, &params)
}

/// The `_meta` keys the hub puts on every request to a modern upstream (2026-07-28
/// "Protocol Version Negotiation": the version, the client's capabilities (none: the hub
/// serves no client features upstream) and the client's identity).
pub fn modern_meta(version: &str) -> Map<String, Value> {
    let mut meta = Map::new();
    meta.insert(META_PROTOCOL_VERSION.to_owned(), Value::from(version));
    meta.insert(
        META_CLIENT_CAPABILITIES.to_owned(),
        Value::Object(Map::new()),
    );
    meta.insert(
        META_CLIENT_INFO.to_owned(),
        serde_json::json!({"name": "mcp-hub", "version": crate::VERSION}),
    );
    meta
}

/// What the hub reads of a `server/discover` result.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DiscoverAnswer {
    /// The versions the upstream supports.
    pub supported_versions: Vec<String>,
}

/// The `supported` list of an `UnsupportedProtocolVersionError` (empty when absent).
pub fn supported_versions(error: &RpcError) -> Vec<String> {
    error
        .data
        .as_ref()
        .and_then(|data| data.get("supported"))
        .and_then(Value::as_array)
        .map(|list| {
            list.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

/// A notification line.
pub fn notification<P: Serialize>(method: &str, params: &P) -> Vec<u8> {
    #[derive(Serialize)]
    struct Notification<'a, P> {
        jsonrpc: &'static str,
        method: &'a str,
        params: &'a P,
    }
    line(&Notification {
        jsonrpc: "2.0",
        method,
        params,
    })
}

/// The answer to a request an upstream sent us: `{}` for `ping`, -32601 for the rest (the hub
/// declares no client capabilities, so nothing else is expected).
pub fn answer_upstream_request(id: &Value, method: &str) -> Vec<u8> {
    let message = if method == "ping" {
        serde_json::json!({"jsonrpc": "2.0", "id": id, "result": {}})
    } else {
        serde_json::json!({
            "jsonrpc": "2.0",
            "id": id,
            "error": {"code": -32601, "message": format!("method not supported by mcp-hub: {method}")},
        })
    };
    line(&message)
}

/// The `initialize` parameters the hub sends.
pub fn initialize_params() -> Value {
    serde_json::json!({
        "protocolVersion": UPSTREAM_PROTOCOL_VERSION,
        "capabilities": {},
        "clientInfo": {"name": "mcp-hub", "version": crate::VERSION},
    })
}

/// What the hub reads of an `initialize` result.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InitializeAnswer {
    /// The version the upstream chose.
    pub protocol_version: String,
}

/// One `tools/list` page, each tool kept as the upstream's JSON text: nothing is lost or
/// respelled before curation (see [`crate::outward`]).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolsPage {
    /// The tools.
    pub tools: Vec<Box<RawValue>>,
    /// The next page's cursor, if any.
    #[serde(default)]
    pub next_cursor: Option<String>,
}

/// `tools/call` parameters, borrowing the client's arguments as the client wrote them.
#[derive(Debug, Serialize)]
pub struct CallParams<'a> {
    /// The original upstream tool name.
    pub name: &'a str,
    /// The client's arguments, as given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub arguments: Option<&'a RawValue>,
    /// Our progress token (when the client asked for progress: equal to the request id, so
    /// progress finds its call without another table), then a modern upstream's keys.
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Map<String, Value>>,
}

/// A `tools/call` request line: `progress` adds our progress token (the request id), `modern`
/// the protocol `_meta` keys of a 2026-07-28 upstream.
pub fn call_request(
    id: u64,
    name: &str,
    arguments: Option<&RawValue>,
    progress: bool,
    modern: Option<&Map<String, Value>>,
) -> Vec<u8> {
    let mut meta = Map::new();
    if progress {
        meta.insert("progressToken".to_owned(), Value::from(id));
    }
    if let Some(modern) = modern {
        meta.extend(modern.iter().map(|(k, v)| (k.clone(), v.clone())));
    }
    let params = CallParams {
        name,
        arguments,
        meta: (!meta.is_empty()).then_some(meta),
    };
    request(id, "tools/call", &params)
}

fn line<T: Serialize>(value: &T) -> Vec<u8> {
    // Serializing these types (strings, numbers, maps with string keys) cannot fail.
    let mut out = serde_json::to_vec(value).unwrap_or_default();
    out.push(b'\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn heads_tell_responses_from_requests_and_notifications() {
        let head = Head::parse(br#"{"jsonrpc":"2.0","id":4,"result":{"a":1.0E2}}"#).expect("head");
        assert_eq!(head.response_id(), Some(4));
        assert_eq!(head.result.map(RawValue::get), Some(r#"{"a":1.0E2}"#));
        let head = Head::parse(br#"{"jsonrpc":"2.0","id":4,"method":"ping"}"#).expect("head");
        assert_eq!(head.response_id(), None);
        assert_eq!(head.id_value(), Some(json!(4)));
        let head = Head::parse(br#"{"jsonrpc":"2.0","id":"x","result":{}}"#).expect("head");
        assert_eq!(head.response_id(), None);
        assert!(Head::parse(b"[1]").is_none());
        assert!(Head::parse(b"{\"id\":\xff}").is_none());
    }

    #[test]
    fn responses_give_results_or_errors() {
        let ok: Value =
            parse_response(br#"{"jsonrpc":"2.0","id":1,"result":{"a":1}}"#).expect("result");
        assert_eq!(ok, json!({"a": 1}));
        let err = parse_response::<Value>(
            br#"{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"bad"}}"#,
        );
        assert!(matches!(
            err,
            Err(ResponseError::Rpc(RpcError { code: -32602, .. }))
        ));
        assert!(matches!(
            parse_response::<Value>(br#"{"jsonrpc":"2.0","id":1}"#),
            Err(ResponseError::Invalid(_))
        ));
    }

    #[test]
    fn call_requests_carry_the_progress_token_only_when_asked() {
        let args = RawValue::from_string(r#"{"n":1.0E2,"text":"hi"}"#.to_owned()).expect("raw");
        let with = call_request(7, "echo", Some(&args), true, None);
        assert_eq!(
            String::from_utf8(with).expect("utf-8"),
            "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"n\":1.0E2,\"text\":\"hi\"},\"_meta\":{\"progressToken\":7}}}\n"
        );
        let without = call_request(8, "echo", None, false, None);
        let value: Value = serde_json::from_slice(&without).expect("json");
        assert_eq!(value["params"], json!({"name": "echo"}));
    }

    #[test]
    fn modern_meta_is_merged_with_the_progress_token() {
        let meta = modern_meta("2026-07-28");
        let line = call_request(3, "echo", None, true, Some(&meta));
        let value: Value = serde_json::from_slice(&line).expect("json");
        assert_eq!(
            value["params"]["_meta"],
            json!({
                "progressToken": 3,
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {},
                "io.modelcontextprotocol/clientInfo": {"name": "mcp-hub", "version": crate::VERSION},
            })
        );
        let bare: Value =
            serde_json::from_slice(&request_with_meta(4, "tools/list", &json!({}), &meta))
                .expect("json");
        assert_eq!(bare["params"]["_meta"], Value::Object(meta));
    }

    #[test]
    fn unsupported_version_errors_list_what_is_supported() {
        let error = RpcError {
            code: UNSUPPORTED_PROTOCOL_VERSION,
            message: "Unsupported protocol version".into(),
            data: Some(json!({"requested": "2026-07-28", "supported": ["2026-07-28", 3]})),
        };
        assert_eq!(supported_versions(&error), ["2026-07-28"]);
        let bare = RpcError {
            data: None,
            ..error
        };
        assert!(supported_versions(&bare).is_empty());
    }

    #[test]
    fn upstream_requests_get_pong_or_method_not_found() {
        let pong: Value =
            serde_json::from_slice(&answer_upstream_request(&json!(1), "ping")).expect("json");
        assert_eq!(pong["result"], json!({}));
        let other: Value =
            serde_json::from_slice(&answer_upstream_request(&json!("r"), "roots/list"))
                .expect("json");
        assert_eq!(other["id"], "r");
        assert_eq!(other["error"]["code"], -32601);
    }
}
