//! Routing of outward calls, cancellations and progress to their owning upstream.
//!
//! A call is forwarded under its original name to the upstream that owns it, with the
//! client's arguments as the client wrote them; the result comes back as the upstream wrote
//! it, with only the rewrites of [`crate::outward`] (the upstream's `io.modelcontextprotocol/*`
//! `_meta` keys go: towards the client the hub speaks as itself). Two ways in:
//!
//! - [`Router::relay`]: a call the hub's front took from stdin ([`crate::front`]); the
//!   session's reader relays the answer to the client itself, as a line;
//! - [`Router::call`]: a call rmcp parsed and routed to the handler (what the front leaves to
//!   rmcp); the answer is shaped the same way, then handed back to rmcp as its type.
//!
//! While a call runs, one entry maps its outward request id to (upstream, upstream request
//! id), so a client's `notifications/cancelled` reaches that upstream only, with the
//! upstream's id. The entry is removed when the call ends in any way, so the hub's state
//! does not grow with the number of calls. Progress is routed by the upstream session (see
//! [`crate::upstream::session`]) straight to the client's stdout.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, PoisonError};

use mcp_stdio_guard::LineSender;
use rmcp::ErrorData as McpError;
use rmcp::RoleServer;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, CancelledNotificationParam, ErrorCode,
    NotificationMetaObject, ProtocolVersion, RequestId,
};
use rmcp::service::RequestContext;
use serde_json::Value;
use serde_json::value::RawValue;

use crate::outward::{self, Era};
use crate::registry::Registry;
use crate::upstream::relay::Relay;
use crate::upstream::wire::{Head, RpcError};
use crate::upstream::{ProgressRoute, Session, SessionError};

/// One running call: its upstream, the upstream's request id, and whether the session's
/// reader relays its answer (a front call) or a task waits for it (an rmcp call).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct ActiveCall {
    upstream: usize,
    upstream_id: u64,
    relayed: bool,
}

/// Active calls by outward request id.
type Active = Mutex<HashMap<RequestId, ActiveCall>>;

/// A call the front took, as the client wrote it.
#[derive(Debug)]
pub struct FrontCall<'a> {
    /// The request id as written (JSON text), echoed in the answer.
    pub id_text: &'a str,
    /// The request id, as cancellations name it.
    pub id: RequestId,
    /// The outward tool name.
    pub name: &'a str,
    /// The arguments as written, if any.
    pub arguments: Option<&'a RawValue>,
    /// The client's progress token as written (JSON text), if it asked for progress.
    pub progress_token: Option<&'a str>,
    /// How the result is shaped.
    pub era: Era,
}

/// The hub's routing core, shared by every outward request.
#[derive(Debug)]
pub struct Router {
    registry: Registry,
    upstreams: Vec<Arc<Session>>,
    active: Arc<Active>,
    /// The client's stdout, from the guard (set before any input line is read).
    out: OnceLock<LineSender>,
}

impl Router {
    /// A router over `registry`, whose routes index into `upstreams`.
    pub fn new(registry: Registry, upstreams: Vec<Arc<Session>>) -> Self {
        Self {
            registry,
            upstreams,
            active: Arc::default(),
            out: OnceLock::new(),
        }
    }

    /// The fixed outward inventory.
    pub fn registry(&self) -> &Registry {
        &self.registry
    }

    /// Where lines to the client go (the guard's single stdout writer).
    pub fn attach(&self, out: LineSender) {
        let _ = self.out.set(out);
    }

    /// The client's stdout, once attached.
    pub fn out(&self) -> Option<&LineSender> {
        self.out.get()
    }

    /// Forwards a call the front took; its answer (or error) reaches the client as a line,
    /// from the upstream session's reader, or from here when it cannot be forwarded.
    pub fn relay(&self, call: FrontCall<'_>) {
        let Some(out) = self.out.get() else {
            return;
        };
        // Arguments are never logged here; the name is (and every log line is redacted).
        tracing::trace!(request_id = %call.id, tool = call.name, "tools/call relayed by the front");
        let Some(route) = self.registry.route(call.name) else {
            let message = format!("unknown tool: {}", call.name);
            let line = outward::error_line(
                call.id_text,
                ErrorCode::INVALID_PARAMS.0.into(),
                &message,
                None,
            );
            let _ = out.send(&line);
            return;
        };
        let Some(session) = self.upstreams.get(route.upstream) else {
            let line = outward::error_line(
                call.id_text,
                ErrorCode::INTERNAL_ERROR.0.into(),
                "route without upstream",
                None,
            );
            let _ = out.send(&line);
            return;
        };
        let progress = call.progress_token.map(|token| ProgressRoute {
            out: out.clone(),
            token: token.into(),
        });
        let tool: Arc<str> = route.original.as_str().into();
        let begun = session.begin_relay(&route.original, call.arguments, progress, |upstream_id| {
            // Registered before the request is written, so a cancellation that follows the
            // call at once still finds it; it leaves with the relay.
            let entry = ActiveEntry::insert(
                &self.active,
                call.id.clone(),
                ActiveCall {
                    upstream: route.upstream,
                    upstream_id,
                    relayed: true,
                },
            );
            Relay {
                client_id: call.id_text.into(),
                era: call.era,
                out: out.clone(),
                tool: tool.clone(),
                done: Some(Box::new(entry)),
            }
        });
        match begun {
            // A failed write fails every pending call of the session, this one included.
            Ok((_, line)) => {
                let _ = session.send_line(&line);
            }
            Err(e) => {
                tracing::warn!(
                    instance_id = %session.id(),
                    tool = %tool,
                    error = %e,
                    "routed tool call failed at the upstream transport"
                );
                let message = format!("upstream `{}` failed: {e}", session.id());
                let line = outward::error_line(
                    call.id_text,
                    ErrorCode::INTERNAL_ERROR.0.into(),
                    &message,
                    None,
                );
                let _ = out.send(&line);
            }
        }
    }

    /// Forwards one `tools/call` rmcp routed here and returns the upstream's result, shaped as
    /// a relayed one is, as rmcp's type.
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
        let progress = match (context.meta.get_progress_token(), self.out.get()) {
            (Some(token), Some(out)) => {
                serde_json::to_string(&token)
                    .ok()
                    .map(|token| ProgressRoute {
                        out: out.clone(),
                        token: token.into(),
                    })
            }
            _ => None,
        };
        let arguments = params
            .arguments
            .as_ref()
            .and_then(|a| serde_json::value::to_raw_value(a).ok());
        let era = match context.protocol_version() {
            Some(v) if v >= ProtocolVersion::V_2026_07_28 => Era::Modern,
            _ => Era::Legacy,
        };
        let outcome = match session.begin_call(&route.original, arguments.as_deref(), progress) {
            Ok(mut call) => {
                let _active = ActiveEntry::insert(
                    &self.active,
                    context.id,
                    ActiveCall {
                        upstream: route.upstream,
                        upstream_id: call.id(),
                        relayed: false,
                    },
                );
                match call.send() {
                    Ok(()) => call.response().await,
                    Err(e) => Err(e),
                }
            }
            Err(e) => Err(e),
        };
        let failure = match outcome {
            Ok(line) => match typed_result(&line, era) {
                Ok(result) => return Ok(CallToolResponse::Complete(result)),
                Err(Failure::Rpc(error)) => {
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
                Err(Failure::Invalid(e)) => e,
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

    /// Whether `request_id` names a running call whose answer the hub relays itself (the
    /// front then takes its cancellation: rmcp knows nothing of such a call).
    pub fn is_relayed(&self, request_id: &RequestId) -> bool {
        lock(&self.active)
            .get(request_id)
            .is_some_and(|call| call.relayed)
    }

    /// Forwards a client's cancellation, received by rmcp, to the upstream running that call.
    pub fn cancel(&self, params: CancelledNotificationParam, meta: NotificationMetaObject) {
        let Some(request_id) = params.request_id else {
            return;
        };
        // The client's `_meta` (rmcp's deserializer takes it out of `params` into the
        // notification's extensions, so `params.meta` is never set from the wire).
        let meta = (!meta.is_empty())
            .then_some(meta)
            .and_then(|m| serde_json::to_value(m).ok());
        self.cancel_call(request_id, params.reason, meta);
    }

    /// Forwards a client's cancellation of `request_id` (its reason and `_meta` as given) to
    /// the upstream running that call, if any; unknown, completed and repeated ones are
    /// ignored.
    pub fn cancel_call(&self, request_id: RequestId, reason: Option<String>, meta: Option<Value>) {
        let Some(call) = lock(&self.active).remove(&request_id) else {
            tracing::debug!(%request_id, "cancellation of no active call ignored");
            return;
        };
        let Some(session) = self.upstreams.get(call.upstream) else {
            return;
        };
        let meta = meta.and_then(strip_protocol_meta);
        if session.cancel(call.upstream_id, reason, meta) {
            tracing::debug!(instance_id = %session.id(), %request_id, upstream_id = call.upstream_id, "cancellation forwarded");
        }
    }
}

/// Why a response line gave no result rmcp can send.
enum Failure {
    Rpc(RpcError),
    Invalid(String),
}

/// The upstream's response `line` shaped for `era` ([`outward::call_result`]) as rmcp's
/// result type.
fn typed_result(line: &[u8], era: Era) -> Result<CallToolResult, Failure> {
    let head =
        Head::parse(line).ok_or_else(|| Failure::Invalid("invalid response: not JSON".into()))?;
    match (head.result, head.error) {
        (Some(result), _) => {
            let shaped = outward::call_result(result.get(), era)
                .map_err(|e| Failure::Invalid(e.to_string()))?;
            serde_json::from_str(&shaped)
                .map_err(|e| Failure::Invalid(format!("invalid response: {e}")))
        }
        (None, Some(error)) => match serde_json::from_str::<RpcError>(error.get()) {
            Ok(error) => Err(Failure::Rpc(error)),
            Err(e) => Err(Failure::Invalid(format!("invalid response: {e}"))),
        },
        (None, None) => Err(Failure::Invalid(
            "invalid response: neither result nor error".into(),
        )),
    }
}

/// The client's notification `_meta` without the keys the protocol reserves for its own
/// lifecycle (`io.modelcontextprotocol/*`: they describe the client-to-hub hop, and the hub
/// speaks to each upstream in that upstream's generation); `None` when nothing is left.
pub fn strip_protocol_meta(meta: Value) -> Option<Value> {
    let Value::Object(mut meta) = meta else {
        return None;
    };
    meta.retain(|key, _| !key.starts_with(crate::upstream::wire::META_PROTOCOL_PREFIX));
    (!meta.is_empty()).then_some(Value::Object(meta))
}

fn lock(active: &Active) -> MutexGuard<'_, HashMap<RequestId, ActiveCall>> {
    active.lock().unwrap_or_else(PoisonError::into_inner)
}

fn cancelled() -> McpError {
    McpError::internal_error("request cancelled", None)
}

/// The active-call entry of one call, removed when the call ends however it ends.
struct ActiveEntry {
    active: Arc<Active>,
    key: RequestId,
    value: ActiveCall,
}

impl ActiveEntry {
    fn insert(active: &Arc<Active>, key: RequestId, value: ActiveCall) -> Self {
        lock(active).insert(key.clone(), value);
        Self {
            active: active.clone(),
            key,
            value,
        }
    }
}

impl Drop for ActiveEntry {
    fn drop(&mut self) {
        let mut active = lock(&self.active);
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
    fn results_are_shaped_or_refused() {
        let full = br#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"x"}],"structuredContent":{"a":1},"isError":true}}"#;
        let result = typed_result(full, Era::Legacy).ok().expect("result");
        assert_eq!(result.is_error, Some(true));
        assert_eq!(result.structured_content, Some(serde_json::json!({"a": 1})));
        let empty = br#"{"jsonrpc":"2.0","id":1,"result":{}}"#;
        assert!(
            typed_result(empty, Era::Legacy)
                .ok()
                .expect("empty")
                .content
                .is_empty()
        );
        let error = br#"{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"no"}}"#;
        assert!(matches!(
            typed_result(error, Era::Legacy),
            Err(Failure::Rpc(_))
        ));
        let mrtr =
            br#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","content":[]}}"#;
        assert!(
            matches!(typed_result(mrtr, Era::Modern), Err(Failure::Invalid(m)) if m.contains("input_required"))
        );
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
    fn active_entries_leave_when_their_call_ends() {
        let active: Arc<Active> = Arc::default();
        let call = |upstream, upstream_id| ActiveCall {
            upstream,
            upstream_id,
            relayed: false,
        };
        {
            let _a = ActiveEntry::insert(&active, RequestId::Number(1), call(0, 7));
            assert_eq!(lock(&active).len(), 1);
            // A reused id replaces the entry; the first call's end leaves the new one.
            let b = ActiveEntry::insert(&active, RequestId::Number(1), call(1, 8));
            drop(b);
            assert!(lock(&active).is_empty());
            let _c = ActiveEntry::insert(&active, RequestId::Number(1), call(1, 9));
        }
        assert!(lock(&active).is_empty());
    }
}
