//! Routing of outward calls, cancellations and progress to their owning upstream.
//!
//! A call is forwarded under its original name to the upstream that owns it; the result comes
//! back as the upstream gave it (content, structured content, `isError`, its own `_meta`
//! keys), except for the protocol's `io.modelcontextprotocol/*` `_meta` keys: they identify
//! the upstream, and towards the client the hub speaks as itself (see [`speak_as_hub`]). While a call runs,
//! one entry maps its outward request id to (upstream, upstream request id), so a client's
//! `notifications/cancelled` reaches that upstream only, with the upstream's id. The entry is
//! removed when the call ends in any way, so the hub's state does not grow with the number of
//! calls. Progress is routed by the upstream session (see [`crate::upstream::session`]).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use rmcp::ErrorData as McpError;
use rmcp::RoleServer;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, CancelledNotificationParam, ErrorCode,
    NotificationMetaObject, RequestId, ResultType,
};
use rmcp::service::RequestContext;
use serde_json::Value;

use crate::registry::Registry;
use crate::upstream::wire::{ResponseError, parse_response};
use crate::upstream::{ProgressRoute, Session, SessionError};

/// Active calls: outward request id -> (upstream index, upstream request id).
type Active = Mutex<HashMap<RequestId, (usize, u64)>>;

/// The hub's routing core, shared by every outward request.
#[derive(Debug)]
pub struct Router {
    registry: Registry,
    upstreams: Vec<Arc<Session>>,
    active: Active,
}

impl Router {
    /// A router over `registry`, whose routes index into `upstreams`.
    pub fn new(registry: Registry, upstreams: Vec<Arc<Session>>) -> Self {
        Self {
            registry,
            upstreams,
            active: Mutex::default(),
        }
    }

    /// The fixed outward inventory.
    pub fn registry(&self) -> &Registry {
        &self.registry
    }

    /// Forwards one `tools/call` and returns the upstream's result unchanged.
    pub async fn call(
        &self,
        params: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let Some(route) = self.registry.route(&params.name) else {
            return Err(McpError::invalid_params(
                format!("unknown tool: {}", params.name),
                None,
            ));
        };
        let Some(session) = self.upstreams.get(route.upstream) else {
            return Err(McpError::internal_error("route without upstream", None));
        };
        if context.ct.is_cancelled() {
            return Err(cancelled());
        }
        let progress = context
            .meta
            .get_progress_token()
            .map(|token| ProgressRoute {
                peer: context.peer.clone(),
                token,
            });
        let outcome = match session.begin_call(&route.original, params.arguments.as_ref(), progress)
        {
            Ok(mut call) => {
                // Registered before the request is written, so a cancellation that follows
                // the call at once still finds it.
                let _active =
                    ActiveEntry::insert(&self.active, context.id, route.upstream, call.id());
                match call.send().await {
                    Ok(()) => call.response().await,
                    Err(e) => Err(e),
                }
            }
            Err(e) => Err(e),
        };
        let failure = match outcome {
            Ok(line) => match parse_call_result(&line).and_then(complete_result) {
                Ok(result) => return Ok(CallToolResponse::Complete(speak_as_hub(result))),
                Err(ResponseError::Rpc(error)) => {
                    tracing::warn!(
                        instance_id = %session.id(),
                        tool = %route.original,
                        error = %error,
                        "routed tool call failed at the upstream"
                    );
                    return Err(McpError::new(
                        ErrorCode(i32::try_from(error.code).unwrap_or(ErrorCode::INTERNAL_ERROR.0)),
                        error.message,
                        error.data,
                    ));
                }
                Err(e) => e.to_string(),
            },
            Err(SessionError::Cancelled) => return Err(cancelled()),
            Err(e) => e.to_string(),
        };
        tracing::warn!(
            instance_id = %session.id(),
            tool = %route.original,
            error = %failure,
            "routed tool call failed at the upstream transport"
        );
        Err(McpError::internal_error(
            format!("upstream `{}` failed: {failure}", session.id()),
            None,
        ))
    }

    /// Forwards a client's cancellation to the upstream running that call, if any.
    pub async fn cancel(&self, params: CancelledNotificationParam, meta: NotificationMetaObject) {
        let Some(request_id) = params.request_id else {
            return;
        };
        let Some((upstream, upstream_id)) = lock(&self.active).remove(&request_id) else {
            tracing::debug!(%request_id, "cancellation of no active call ignored");
            return;
        };
        let Some(session) = self.upstreams.get(upstream) else {
            return;
        };
        // The client's `_meta` (rmcp's deserializer takes it out of `params` into the
        // notification's extensions, so `params.meta` is never set from the wire).
        let meta = (!meta.is_empty())
            .then_some(meta)
            .and_then(|m| serde_json::to_value(m).ok())
            .and_then(strip_protocol_meta);
        if session.cancel(upstream_id, params.reason, meta).await {
            tracing::debug!(instance_id = %session.id(), %request_id, upstream_id, "cancellation forwarded");
        }
    }
}

/// The client's notification `_meta` without the keys the protocol reserves for its own
/// lifecycle (`io.modelcontextprotocol/*`: they describe the client-to-hub hop, and the hub
/// speaks to each upstream in that upstream's generation); `None` when nothing is left.
fn strip_protocol_meta(meta: Value) -> Option<Value> {
    let Value::Object(mut meta) = meta else {
        return None;
    };
    drop_protocol_keys(&mut meta);
    (!meta.is_empty()).then_some(Value::Object(meta))
}

/// Removes the `io.modelcontextprotocol/*` keys: they belong to one hop.
fn drop_protocol_keys(meta: &mut serde_json::Map<String, Value>) {
    meta.retain(|key, _| !key.starts_with(crate::upstream::wire::META_PROTOCOL_PREFIX));
}

/// An upstream's result as the hub's own: the `io.modelcontextprotocol/*` keys of its
/// `_meta` are dropped, everything else is kept as the upstream gave it.
///
/// Those keys describe the upstream-to-hub hop. The one that matters is
/// `io.modelcontextprotocol/serverInfo` (2026-07-28 `ResultMetaObject`: "Identifies the
/// server software producing the response"): the client's server is the hub, so an
/// upstream's identity there would show the client two identities for one server. The hub
/// does not put its own identity into tool results either: rmcp 3.11 writes `serverInfo`
/// into the `server/discover` result (and `subscriptions/listen`'s) only, which is where
/// every reference server states it; the spec's "SHOULD on every response" would be a change
/// for all of them at once, in the shared stdio guard, not a hub special case.
fn speak_as_hub(mut result: CallToolResult) -> CallToolResult {
    if let Some(meta) = result.meta.as_mut() {
        drop_protocol_keys(meta);
        if meta.is_empty() {
            result.meta = None;
        }
    }
    result
}

fn lock(active: &Active) -> MutexGuard<'_, HashMap<RequestId, (usize, u64)>> {
    active.lock().unwrap_or_else(PoisonError::into_inner)
}

fn cancelled() -> McpError {
    McpError::internal_error("request cancelled", None)
}

/// Parses an upstream `tools/call` result. rmcp's `CallToolResult` insists on a known field;
/// a result that is only `{}` or `{"_meta": ...}` is a valid empty result, so `content` is
/// supplied for it.
fn parse_call_result(line: &[u8]) -> Result<CallToolResult, ResponseError> {
    match parse_response::<CallToolResult>(line) {
        Ok(result) => Ok(result),
        Err(ResponseError::Invalid(first)) => {
            let Ok(Value::Object(mut result)) = parse_response::<Value>(line) else {
                return Err(ResponseError::Invalid(first));
            };
            if result.contains_key("content") {
                return Err(ResponseError::Invalid(first));
            }
            result.insert("content".to_owned(), Value::Array(Vec::new()));
            serde_json::from_value(Value::Object(result))
                .map_err(|e| ResponseError::Invalid(e.to_string()))
        }
        Err(e) => Err(e),
    }
}

/// Marks a result complete (`resultType: "complete"`, 2026-07-28 "resultType": a legacy
/// upstream's results have none; rmcp strips it again for a legacy client). Any other result
/// type (`input_required`, `task`) needs a multi round-trip or tasks flow the hub does not
/// relay, so such a result is a failure of the call.
fn complete_result(mut result: CallToolResult) -> Result<CallToolResult, ResponseError> {
    match &result.result_type {
        None => {
            result.result_type = Some(ResultType::COMPLETE);
            Ok(result)
        }
        Some(kind) if kind.is_complete() => Ok(result),
        Some(kind) => Err(ResponseError::Invalid(format!(
            "result type `{}` is not supported by mcp-hub",
            kind.as_str()
        ))),
    }
}

/// The active-call entry of one call, removed when the call ends however it ends.
struct ActiveEntry<'a> {
    active: &'a Active,
    key: RequestId,
    value: (usize, u64),
}

impl<'a> ActiveEntry<'a> {
    fn insert(active: &'a Active, key: RequestId, upstream: usize, upstream_id: u64) -> Self {
        let value = (upstream, upstream_id);
        lock(active).insert(key.clone(), value);
        Self { active, key, value }
    }
}

impl Drop for ActiveEntry<'_> {
    fn drop(&mut self) {
        let mut active = lock(self.active);
        // A client reusing an id for a concurrent call owns the entry now: leave it.
        if active.get(&self.key) == Some(&self.value) {
            active.remove(&self.key);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_are_parsed_as_given_and_empty_results_accepted() {
        let full = br#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"x"}],"structuredContent":{"a":1},"isError":true}}"#;
        let result = parse_call_result(full).expect("result");
        assert_eq!(result.is_error, Some(true));
        assert_eq!(result.structured_content, Some(serde_json::json!({"a": 1})));
        let empty = br#"{"jsonrpc":"2.0","id":1,"result":{}}"#;
        assert!(parse_call_result(empty).expect("empty").content.is_empty());
        let error = br#"{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"no"}}"#;
        assert!(matches!(
            parse_call_result(error),
            Err(ResponseError::Rpc(_))
        ));
    }

    #[test]
    fn results_are_complete_or_refused() {
        let legacy = parse_call_result(br#"{"jsonrpc":"2.0","id":1,"result":{"content":[]}}"#)
            .and_then(complete_result)
            .expect("complete");
        assert_eq!(legacy.result_type, Some(ResultType::COMPLETE));
        let modern = br#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[]}}"#;
        assert!(parse_call_result(modern).and_then(complete_result).is_ok());
        let mrtr =
            br#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","content":[]}}"#;
        assert!(matches!(
            parse_call_result(mrtr).and_then(complete_result),
            Err(ResponseError::Invalid(_))
        ));
        // Whatever the parser lets through, only `complete` leaves complete_result.
        for kind in [ResultType::INPUT_REQUIRED, ResultType::TASK] {
            let mut result = CallToolResult::success(Vec::new());
            result.result_type = Some(kind.clone());
            assert!(
                matches!(complete_result(result), Err(ResponseError::Invalid(m)) if m.contains(kind.as_str())),
                "{kind:?}"
            );
        }
    }

    #[test]
    fn protocol_meta_keys_are_not_forwarded() {
        let meta = serde_json::json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": {"name": "c", "version": "1"},
            "trace": "t1",
        });
        assert_eq!(
            strip_protocol_meta(meta),
            Some(serde_json::json!({"trace": "t1"}))
        );
        let only = serde_json::json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28"});
        assert_eq!(strip_protocol_meta(only), None);
    }

    #[test]
    fn forwarded_results_carry_no_upstream_identity() {
        let line = br#"{"jsonrpc":"2.0","id":1,"result":{"content":[],"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"up","version":"1"},"app/trace":"t"}}}"#;
        let result = speak_as_hub(parse_call_result(line).expect("result"));
        let meta = serde_json::to_value(result.meta).expect("meta");
        assert_eq!(meta, serde_json::json!({"app/trace": "t"}));
        let only = br#"{"jsonrpc":"2.0","id":1,"result":{"content":[],"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"up","version":"1"}}}}"#;
        assert_eq!(
            speak_as_hub(parse_call_result(only).expect("result")).meta,
            None
        );
    }

    #[test]
    fn active_entries_leave_when_their_call_ends() {
        let active: Active = Mutex::default();
        {
            let _a = ActiveEntry::insert(&active, RequestId::Number(1), 0, 7);
            assert_eq!(lock(&active).len(), 1);
            // A reused id replaces the entry; the first call's end leaves the new one.
            let b = ActiveEntry::insert(&active, RequestId::Number(1), 1, 8);
            drop(b);
            assert!(lock(&active).is_empty());
            let _c = ActiveEntry::insert(&active, RequestId::Number(1), 1, 9);
        }
        assert!(lock(&active).is_empty());
    }
}
