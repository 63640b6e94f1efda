//! What the guard does with one input line: forward it to rmcp, answer it itself, or drop it.
//!
//! Each line is parsed with the very type rmcp parses (`ClientJsonRpcMessage`), so whatever
//! the guard forwards rmcp accepts; the parsed message itself is what rmcp receives.

use rmcp::model::{
    CallToolRequestMethod, CancelTaskMethod, ClientJsonRpcMessage, ClientRequest,
    CompleteRequestMethod, ConstString, DiscoverRequestMethod, ErrorCode, ErrorData, GetMeta,
    GetPromptRequestMethod, GetSkillRequestMethod, GetTaskMethod, InitializeResultMethod,
    JsonRpcRequest, ListPromptsRequestMethod, ListResourceTemplatesRequestMethod,
    ListResourcesRequestMethod, ListSkillsRequestMethod, ListToolsRequestMethod, PingRequestMethod,
    ProtocolVersion, ReadResourceDirectoryRequestMethod, ReadResourceRequestMethod,
    RequestMetaObject, SetLevelRequestMethod, SubscribeRequestMethod,
    SubscriptionsListenRequestMethod, UnsubscribeRequestMethod, UpdateTaskMethod,
};
use serde_json::{Value, json};

use crate::line::scan_head;

const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";

/// What the guard does with one input line.
#[derive(Debug)]
pub enum Verdict {
    /// Forward the parsed message to rmcp; `starts_lifecycle` marks `initialize` and complete
    /// 2026-07-28 requests the server will serve.
    Forward {
        /// The line starts rmcp's main loop: everything after it reaches rmcp's handler.
        starts_lifecycle: bool,
        /// The message, parsed once, exactly as rmcp would parse the line.
        message: Box<ClientJsonRpcMessage>,
    },
    /// Answer on the guard's behalf with this JSON-RPC message.
    Answer(Value),
    /// Drop silently (logged at debug).
    Drop(&'static str),
}

/// Decides what to do with one line (without its newline, BOM or CR).
///
/// `supported` are the protocol versions the served rmcp service accepts: a 2026-07-28 style
/// request naming another version is answered by rmcp with an error and does not start the
/// lifecycle, so the guard must keep treating later input as pre-initialize input.
pub fn judge(line: &[u8], initialized: bool, supported: &[ProtocolVersion]) -> Verdict {
    // The common case parses once, with the type rmcp uses; only a line that is not a valid
    // message is looked at again, as plain JSON, to decide how to refuse it.
    let message = match serde_json::from_slice::<ClientJsonRpcMessage>(line) {
        Ok(m) => m,
        Err(_) => {
            return match serde_json::from_slice::<Value>(line) {
                Ok(value) => invalid(&value),
                Err(_) if std::str::from_utf8(line).is_err() => {
                    Verdict::Answer(parse_error("Parse error: the line is not valid UTF-8"))
                }
                // JSON-RPC 2.0 answers text that is not JSON with -32700 and id null (its
                // example "rpc call with invalid JSON"); the server keeps serving.
                Err(_) => Verdict::Answer(parse_error("Parse error: the line is not JSON")),
            };
        }
    };
    let forward = |starts_lifecycle: bool, message: ClientJsonRpcMessage| Verdict::Forward {
        starts_lifecycle,
        message: Box::new(message),
    };
    if let ClientJsonRpcMessage::Request(req) = &message
        && let Some(answer) =
            refuse_removed_method(req, supported).or_else(|| refuse_unfit_params(req))
    {
        return Verdict::Answer(answer);
    }
    if initialized {
        return forward(false, message);
    }
    let starts = match &message {
        ClientJsonRpcMessage::Request(req) => match &req.request {
            ClientRequest::PingRequest(_) => {
                return Verdict::Answer(json!({"jsonrpc": "2.0", "id": req.id, "result": {}}));
            }
            ClientRequest::InitializeRequest(_) => true,
            ClientRequest::DiscoverRequest(_) => false,
            other => starts_inline_lifecycle(other.get_meta(), supported),
        },
        ClientJsonRpcMessage::Notification(_) => {
            return Verdict::Drop("notification before initialize");
        }
        _ => return Verdict::Drop("response before initialize"),
    };
    forward(starts, message)
}

/// The answer to a modern request for a method the modern generation removed, if `request`
/// is one.
///
/// 2026-07-28 removed `ping` and `logging/setLevel` (SEP-2575; its schema has neither
/// method), so a request that declares a modern version in `_meta` and asks for one of them
/// asks for a method that does not exist in its own revision: -32601, before and after any
/// lifecycle started, whatever else its `_meta` lacks. A modern version the server does not
/// speak is the first thing wrong with such a request and gets -32022 with the supported
/// list, as every modern request would ("Protocol Version Negotiation"). Answered here, in
/// the one guard every reference server shares: rmcp 3.11 refuses a modern `ping` only after
/// its lifecycle started (before it, its pre-initialize loop answers every `ping` with `{}`).
///
/// A request whose `_meta` names no protocol version (no `_meta` at all, the usual legacy
/// request) or a handshake-era one is not modern: 2026-07-28 serves statelessly only "a
/// request carrying modern per-request `_meta`" (basic/versioning, "Compatibility Matrix",
/// how a dual-era server selects its behavior), and the legacy revisions allow `ping` before
/// and after `initialize` (2025-11-25 basic/lifecycle and basic/utilities/ping). Such a
/// request keeps its legacy handling: `ping` is answered `{}` here before the lifecycle
/// starts and by rmcp after it.
fn refuse_removed_method(
    request: &JsonRpcRequest<ClientRequest>,
    supported: &[ProtocolVersion],
) -> Option<Value> {
    let method = match &request.request {
        ClientRequest::PingRequest(_) => "ping",
        ClientRequest::SetLevelRequest(_) => "logging/setLevel",
        _ => return None,
    };
    let version = request.request.get_meta().protocol_version()?;
    if version.has_initialize() {
        return None;
    }
    let error = if supported.contains(&version) {
        ErrorData::new(
            ErrorCode::METHOD_NOT_FOUND,
            format!("method not found: {method} does not exist in protocol version {version}"),
            None,
        )
    } else {
        ErrorData::unsupported_protocol_version(version, supported)
    };
    Some(json!({"jsonrpc": "2.0", "id": request.id, "error": error}))
}

/// The client requests rmcp parses into typed requests, named by rmcp's own method types (so
/// the list follows rmcp). A request for one of them that rmcp could not parse (its params do
/// not fit the method's schema) lands in its catch-all `CustomRequest`, which rmcp answers
/// -32601 "method not found": wrong for a method that exists.
const TYPED_METHODS: &[&str] = &[
    InitializeResultMethod::VALUE,
    PingRequestMethod::VALUE,
    DiscoverRequestMethod::VALUE,
    CompleteRequestMethod::VALUE,
    SetLevelRequestMethod::VALUE,
    GetPromptRequestMethod::VALUE,
    ListPromptsRequestMethod::VALUE,
    ListResourcesRequestMethod::VALUE,
    ListResourceTemplatesRequestMethod::VALUE,
    ReadResourceRequestMethod::VALUE,
    SubscriptionsListenRequestMethod::VALUE,
    SubscribeRequestMethod::VALUE,
    UnsubscribeRequestMethod::VALUE,
    CallToolRequestMethod::VALUE,
    ListToolsRequestMethod::VALUE,
    GetTaskMethod::VALUE,
    UpdateTaskMethod::VALUE,
    CancelTaskMethod::VALUE,
    ListSkillsRequestMethod::VALUE,
    GetSkillRequestMethod::VALUE,
    ReadResourceDirectoryRequestMethod::VALUE,
];

/// The answer to a request for a specification method whose params do not fit its schema:
/// -32602 Invalid params (JSON-RPC 2.0 section 5.1: "Invalid method parameter(s)"; the
/// 2025-11-25 tools page lists "Malformed requests (requests that fail to satisfy
/// CallToolRequest schema)" among the protocol errors), e.g. `tools/call` whose
/// `arguments` is not an object.
fn refuse_unfit_params(request: &JsonRpcRequest<ClientRequest>) -> Option<Value> {
    let ClientRequest::CustomRequest(custom) = &request.request else {
        return None;
    };
    let method = custom.method.as_str();
    if !TYPED_METHODS.contains(&method) {
        return None;
    }
    let error = ErrorData::new(
        ErrorCode::INVALID_PARAMS,
        format!("invalid params: the params of {method} do not satisfy its schema"),
        None,
    );
    Some(json!({"jsonrpc": "2.0", "id": request.id, "error": error}))
}

/// rmcp starts the 2026-07-28 lifecycle on the first request whose `_meta` is complete and
/// names a version the service supports.
fn starts_inline_lifecycle(meta: &RequestMetaObject, supported: &[ProtocolVersion]) -> bool {
    meta.missing_required_keys(&ProtocolVersion::V_2026_07_28)
        .is_empty()
        && meta
            .protocol_version()
            .is_some_and(|v| supported.contains(&v))
}

/// Well-formed JSON that is not a message rmcp accepts.
fn invalid(value: &Value) -> Verdict {
    let obj = value.as_object();
    let id = obj.and_then(|o| o.get("id"));
    let has_method = obj.is_some_and(|o| o.get("method").is_some_and(Value::is_string));
    if has_method && id.is_none() {
        return Verdict::Drop("invalid notification");
    }
    // A response we cannot parse is not answered either (answering responses can loop).
    if obj.is_some_and(|o| {
        !o.contains_key("method") && (o.contains_key("result") || o.contains_key("error"))
    }) {
        return Verdict::Drop("invalid response");
    }
    let id = match id {
        Some(Value::String(s)) => Value::String(s.clone()),
        Some(Value::Number(n)) if n.is_i64() || n.is_u64() => Value::Number(n.clone()),
        _ => Value::Null,
    };
    Verdict::Answer(json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": {"code": -32600, "message": "Invalid Request"}
    }))
}

/// A -32700 Parse error with `id: null` (JSON-RPC 2.0 section 5.1: "Invalid JSON was
/// received by the server"; the id of text that cannot be decoded cannot be known).
fn parse_error(message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32700, "message": message}})
}

/// The answer to an input line longer than `limit` bytes, from its first bytes (`head`).
///
/// The line was consumed without being kept, so it is never forwarded: it gets an error
/// response, carrying the line's `id` when [`scan_head`] recovers it for sure (else
/// `null`). A head that starts like JSON in valid UTF-8 may belong to a valid message that
/// is merely too long: -32600 Invalid Request. Anything else cannot be a message: -32700
/// Parse error.
pub fn oversized(head: &[u8], limit: usize) -> Value {
    let head = scan_head(head);
    let (code, kind) = if head.maybe_json {
        (-32600, "Invalid Request")
    } else {
        (-32700, "Parse error")
    };
    json!({
        "jsonrpc": "2.0",
        "id": head.id.unwrap_or(Value::Null),
        "error": {
            "code": code,
            "message": format!("{kind}: the message is longer than {limit} bytes"),
            "data": {"maxLineBytes": limit},
        }
    })
}

/// Strips the newline, a trailing CR and a leading BOM.
pub fn normalize(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    line.strip_prefix(UTF8_BOM).unwrap_or(line)
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALL: &[ProtocolVersion] = ProtocolVersion::KNOWN_VERSIONS;

    /// `Some(starts_lifecycle)` for a forwarded line.
    fn forwarded(verdict: Verdict) -> Option<bool> {
        match verdict {
            Verdict::Forward {
                starts_lifecycle, ..
            } => Some(starts_lifecycle),
            _ => None,
        }
    }

    #[test]
    fn undecodable_and_oversized_lines_are_answered() {
        match judge(b"{\"id\":1,\"method\":\"\xff\"}", true, ALL) {
            Verdict::Answer(v) => {
                assert_eq!(v["id"], Value::Null);
                assert_eq!(v["error"]["code"], -32700);
            }
            other => panic!("{other:?}"),
        }
        let v = oversized(
            br#"{"jsonrpc":"2.0","id":"big","method":"tools/call","par"#,
            1024,
        );
        assert_eq!(v["id"], "big");
        assert_eq!(v["error"]["code"], -32600);
        assert_eq!(v["error"]["data"]["maxLineBytes"], 1024);
        let v = oversized(
            br#"{"jsonrpc":"2.0","method":"tools/call","params":{"x":""#,
            1024,
        );
        assert_eq!(v["id"], Value::Null);
        assert_eq!(v["error"]["code"], -32600);
        let v = oversized(b"xxxxxxxx", 1024);
        assert_eq!(
            (&v["id"], &v["error"]["code"]),
            (&Value::Null, &json!(-32700))
        );
        let v = oversized(b"{\"id\":3,\"a\":\"\xff\xff", 1024);
        assert_eq!(
            (&v["id"], &v["error"]["code"]),
            (&Value::Null, &json!(-32700))
        );
    }

    #[test]
    fn malformed_json_is_answered_with_a_parse_error() {
        for (line, initialized) in [(&b"{\"jsonrpc\": "[..], false), (&b"not json"[..], true)] {
            match judge(line, initialized, ALL) {
                Verdict::Answer(v) => {
                    assert_eq!(v["id"], Value::Null);
                    assert_eq!(v["error"]["code"], -32700);
                    assert!(v.get("result").is_none());
                }
                other => panic!("{other:?}"),
            }
        }
    }

    #[test]
    fn notifications_before_initialize_are_dropped() {
        let line = br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
        assert!(matches!(
            judge(line, false, ALL),
            Verdict::Drop("notification before initialize")
        ));
        assert_eq!(forwarded(judge(line, true, ALL)), Some(false));
    }

    #[test]
    fn initialize_starts_the_lifecycle_and_ping_is_answered_before_it() {
        let init = br#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
        match judge(init, false, ALL) {
            Verdict::Forward {
                starts_lifecycle: true,
                message,
            } => assert!(matches!(*message, ClientJsonRpcMessage::Request(_))),
            other => panic!("{other:?}"),
        }
        let ping = br#"{"jsonrpc":"2.0","id":"p","method":"ping"}"#;
        match judge(ping, false, ALL) {
            Verdict::Answer(v) => assert_eq!(v, json!({"jsonrpc":"2.0","id":"p","result":{}})),
            other => panic!("{other:?}"),
        }
        assert_eq!(forwarded(judge(ping, true, ALL)), Some(false));
    }

    #[test]
    fn a_complete_2026_request_starts_the_lifecycle_others_are_forwarded() {
        let inline = br#"{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
        assert_eq!(forwarded(judge(inline, false, ALL)), Some(true));
        // A service that does not support 2026-07-28 answers it with an error and stays in
        // its pre-initialize loop.
        let legacy = ProtocolVersion::known_up_to(&ProtocolVersion::V_2025_11_25);
        assert_eq!(forwarded(judge(inline, false, legacy)), Some(false));
        // rmcp answers these itself (with an error) and stays in its pre-initialize loop.
        let bare = br#"{"jsonrpc":"2.0","id":4,"method":"tools/list"}"#;
        assert_eq!(forwarded(judge(bare, false, ALL)), Some(false));
        let discover = br#"{"jsonrpc":"2.0","id":5,"method":"server/discover","params":{}}"#;
        assert_eq!(forwarded(judge(discover, false, ALL)), Some(false));
        let response = br#"{"jsonrpc":"2.0","id":6,"result":{}}"#;
        assert!(matches!(judge(response, false, ALL), Verdict::Drop(_)));
    }

    /// The `_meta` of a 2026-07-28 request naming `version`.
    fn modern(method: &str, id: u32, version: &str, extra: &str) -> Vec<u8> {
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}","params":{{{extra}"_meta":{{"io.modelcontextprotocol/protocolVersion":"{version}","io.modelcontextprotocol/clientCapabilities":{{}}}}}}}}"#
        )
        .into_bytes()
    }

    fn error_code(verdict: Verdict) -> Option<i64> {
        match verdict {
            Verdict::Answer(v) => v["error"]["code"].as_i64(),
            _ => None,
        }
    }

    #[test]
    fn ping_and_set_level_do_not_exist_in_a_modern_request() {
        let ping = modern("ping", 1, "2026-07-28", "");
        let set_level = modern("logging/setLevel", 2, "2026-07-28", r#""level":"info","#);
        for initialized in [false, true] {
            assert_eq!(error_code(judge(&ping, initialized, ALL)), Some(-32601));
            assert_eq!(
                error_code(judge(&set_level, initialized, ALL)),
                Some(-32601)
            );
        }
        // The version alone decides (a request missing its capabilities is still modern).
        let partial = br#"{"jsonrpc":"2.0","id":3,"method":"ping","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#;
        assert_eq!(error_code(judge(partial, false, ALL)), Some(-32601));
        // A modern version the server does not speak: that is the first thing wrong.
        let future = modern("ping", 4, "2099-01-01", "");
        match judge(&future, false, ALL) {
            Verdict::Answer(v) => {
                assert_eq!(v["id"], 4);
                assert_eq!(v["error"]["code"], -32022);
                assert_eq!(v["error"]["data"]["requested"], "2099-01-01");
                assert_eq!(v["error"]["data"]["supported"][4], "2026-07-28");
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn legacy_ping_and_set_level_keep_their_legacy_handling() {
        // No `_meta` version, or a legacy one: a legacy request.
        let bare = br#"{"jsonrpc":"2.0","id":"p","method":"ping","params":{}}"#;
        assert!(matches!(judge(bare, false, ALL), Verdict::Answer(v) if v["result"] == json!({})));
        assert_eq!(forwarded(judge(bare, true, ALL)), Some(false));
        let legacy = modern("ping", 5, "2025-11-25", "");
        assert!(
            matches!(judge(&legacy, false, ALL), Verdict::Answer(v) if v["result"] == json!({}))
        );
        let set_level =
            br#"{"jsonrpc":"2.0","id":6,"method":"logging/setLevel","params":{"level":"info"}}"#;
        assert_eq!(forwarded(judge(set_level, true, ALL)), Some(false));
        // Other modern requests are rmcp's.
        let list = modern("tools/list", 7, "2026-07-28", "");
        assert_eq!(forwarded(judge(&list, false, ALL)), Some(true));
    }

    #[test]
    fn invalid_messages_get_an_error_with_an_id() {
        for (line, id) in [
            (&br#"{"jsonrpc":"2.0","id":7}"#[..], json!(7)),
            (&br#"[1,2]"#[..], Value::Null),
            (&br#"{"id":"x","method":"ping"}"#[..], json!("x")),
            (&br#"42"#[..], Value::Null),
            // Only an integer id is echoed: a fractional one is no id.
            (&br#"{"jsonrpc":"2.0","id":1.5}"#[..], Value::Null),
            (&br#"{"jsonrpc":"2.0","id":-3}"#[..], json!(-3)),
            (
                &br#"{"jsonrpc":"2.0","id":18446744073709551615}"#[..],
                json!(18_446_744_073_709_551_615_u64),
            ),
        ] {
            match judge(line, true, ALL) {
                Verdict::Answer(v) => {
                    assert_eq!(v["id"], id, "{}", String::from_utf8_lossy(line));
                    assert_eq!(v["error"]["code"], -32600);
                }
                other => panic!("{other:?} for {}", String::from_utf8_lossy(line)),
            }
        }
    }

    #[test]
    fn a_known_method_whose_params_do_not_fit_its_schema_gets_invalid_params() {
        for (initialized, line) in [
            (true, &br#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"x","arguments":"no"}}"#[..]),
            (true, &br#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"arguments":{}}}"#[..]),
            (false, &br#"{"jsonrpc":"2.0","id":4,"method":"initialize","params":{"protocolVersion":3}}"#[..]),
        ] {
            assert_eq!(error_code(judge(line, initialized, ALL)), Some(-32602), "{}", String::from_utf8_lossy(line));
        }
        // A method the server does not know stays rmcp's to refuse (-32601).
        let custom = br#"{"jsonrpc":"2.0","id":4,"method":"vendor/thing","params":{"a":"no"}}"#;
        assert_eq!(forwarded(judge(custom, true, ALL)), Some(false));
        // Well-formed params are forwarded as before.
        let call = br#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"x","arguments":{}}}"#;
        assert_eq!(forwarded(judge(call, true, ALL)), Some(false));
    }

    #[test]
    fn a_response_that_cannot_be_parsed_is_not_answered() {
        // Answering a response could start a loop between two peers.
        for line in [
            &br#"{"jsonrpc":"2.0","id":{"x":1},"result":{}}"#[..],
            &br#"{"jsonrpc":"2.0","id":{"x":1},"error":{}}"#[..],
        ] {
            assert!(
                matches!(judge(line, true, ALL), Verdict::Drop("invalid response")),
                "{}",
                String::from_utf8_lossy(line)
            );
        }
    }

    #[test]
    fn normalize_strips_bom_and_crlf() {
        assert_eq!(normalize(b"\xEF\xBB\xBF{}\r\n"), b"{}");
    }
}
