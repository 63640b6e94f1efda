//! The hub's front: the `tools/call` and `tools/list` requests it relays itself, and the
//! cancellations of those calls, taken from stdin before the guard hands lines to rmcp
//! ([`mcp_stdio_guard::Intercept`]).
//!
//! A relay has no business parsing what it relays into a model and writing it back: that
//! loses what the model does not know and respells what it does (see [`crate::outward`]),
//! and it costs more than the relaying. So a request is read only for what routing needs
//! (its id as written, the method, the tool's name, the arguments and `_meta` as JSON text),
//! and the answer is written from the upstream's text.
//!
//! The front takes only what it answers exactly as rmcp would, and leaves everything else to
//! rmcp, which answers it as before:
//!
//! - well-formed JSON-RPC 2.0 requests (`jsonrpc: "2.0"`, a string or 64-bit integer id, an
//!   object `params`) for `tools/call` (a string `name`, object or absent `arguments`, no
//!   `task`) and `tools/list` (no `cursor`: a cursor is refused by rmcp's handler);
//! - of a generation it can tell for sure, the way rmcp's handler does: a request whose
//!   `_meta` names 2026-07-28 with its required keys is a 2026-07-28 request, stateless,
//!   whatever the session; one naming an older version the hub supports is served in that
//!   version's shape in a legacy session (or, with the required keys, in any); a request
//!   with no version is served only in a legacy session whose `initialize` answer is
//!   already written (so no answer overtakes it). A version the hub does not support, an
//!   incomplete 2026-07-28 `_meta`, or no version outside a legacy session is rmcp's to
//!   refuse (-32022, -32602);
//! - `notifications/cancelled` naming a call the front relays (rmcp does not know it).

use std::borrow::Cow;
use std::sync::Arc;

use mcp_stdio_guard::{Intercept, Lifecycle, LineSender};
use rmcp::model::{NumberOrString, ProtocolVersion, RequestId, RequestMetaObject};
use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;

use crate::outward::{self, Era};
use crate::router::{FrontCall, Router};

/// The hub's [`Intercept`].
#[derive(Debug)]
pub struct Front {
    router: Arc<Router>,
    supported: Vec<ProtocolVersion>,
}

impl Front {
    /// A front for `router`, accepting the protocol versions `supported` (the server's).
    pub fn new(router: Arc<Router>, supported: Vec<ProtocolVersion>) -> Self {
        Self { router, supported }
    }

    /// Takes `line` when it is the front's (see the module documentation).
    fn take(&self, line: &[u8], lifecycle: Lifecycle) -> bool {
        let Some(message) = Message::parse(line) else {
            return false;
        };
        match (message.method.as_ref(), message.id) {
            ("tools/call", Some(id)) => self.call(id, message.params, lifecycle),
            ("tools/list", Some(id)) => self.list(id, message.params, lifecycle),
            ("notifications/cancelled", None) => self.cancel(message.params),
            _ => false,
        }
    }

    fn call(&self, id: &RawValue, params: Option<&RawValue>, lifecycle: Lifecycle) -> bool {
        let Some(request_id) = request_id(id) else {
            return false;
        };
        let Some(params) = params.and_then(|p| serde_json::from_str::<CallParams>(object(p)?).ok())
        else {
            return false;
        };
        if params.task.is_some() || params.arguments.is_some_and(|a| !a.get().starts_with('{')) {
            return false;
        }
        let Some((era, progress_token)) = self.era(params.meta, lifecycle) else {
            return false;
        };
        self.router.relay(FrontCall {
            id_text: id.get(),
            id: request_id,
            name: &params.name,
            arguments: params.arguments,
            progress_token,
            era,
        });
        true
    }

    fn list(&self, id: &RawValue, params: Option<&RawValue>, lifecycle: Lifecycle) -> bool {
        let Some(out) = self.router.out() else {
            return false;
        };
        if request_id(id).is_none() {
            return false;
        }
        let params = match params {
            None => ListParams::default(),
            Some(p) => match object(p).map(serde_json::from_str::<ListParams>) {
                Some(Ok(params)) => params,
                _ => return false,
            },
        };
        if params.cursor.is_some() {
            return false;
        }
        let Some((era, _)) = self.era(params.meta, lifecycle) else {
            return false;
        };
        let line = outward::result_line(id.get(), &self.router.registry().list_result(era));
        let _ = out.send(&line);
        true
    }

    fn cancel(&self, params: Option<&RawValue>) -> bool {
        let Some(params) =
            params.and_then(|p| serde_json::from_str::<CancelParams>(object(p)?).ok())
        else {
            return false;
        };
        let Some(request_id) = request_id(params.request_id) else {
            return false;
        };
        if !self.router.is_relayed(&request_id) {
            return false;
        }
        self.router
            .cancel_call(request_id, params.reason, params.meta);
        true
    }

    /// The generation a request with `_meta` `meta` is served in, and its progress token (as
    /// written), or `None` when rmcp must judge it.
    fn era<'a>(
        &self,
        meta: Option<&'a RawValue>,
        lifecycle: Lifecycle,
    ) -> Option<(Era, Option<&'a str>)> {
        let head = match meta {
            None => MetaHead::default(),
            Some(meta) => serde_json::from_str::<MetaHead>(object(meta)?).ok()?,
        };
        let token = head.progress_token.map(RawValue::get).filter(|t| is_id(t));
        let legacy_session = lifecycle == Lifecycle::Initialized;
        let (Some(meta), Some(_)) = (meta, head.version) else {
            return legacy_session.then_some((Era::Legacy, token));
        };
        let meta: RequestMetaObject = serde_json::from_str(meta.get()).ok()?;
        let version = meta.protocol_version()?;
        if !self.supported.contains(&version) {
            return None;
        }
        let complete = meta
            .missing_required_keys(&ProtocolVersion::V_2026_07_28)
            .is_empty();
        if version >= ProtocolVersion::V_2026_07_28 {
            complete.then_some((Era::Modern, token))
        } else {
            (legacy_session || complete).then_some((Era::Legacy, token))
        }
    }
}

impl Intercept for Front {
    fn attach(&self, lines: LineSender) {
        self.router.attach(lines);
    }

    fn offer(&self, line: &[u8], lifecycle: Lifecycle) -> bool {
        self.take(line, lifecycle)
    }
}

/// What the front reads of every line: the JSON-RPC envelope, members as JSON text.
#[derive(Debug, Deserialize)]
struct Message<'a> {
    #[serde(borrow)]
    jsonrpc: Cow<'a, str>,
    #[serde(default, borrow)]
    id: Option<&'a RawValue>,
    #[serde(borrow)]
    method: Cow<'a, str>,
    #[serde(default, borrow)]
    params: Option<&'a RawValue>,
}

impl<'a> Message<'a> {
    /// The envelope of `line`, when it is a JSON-RPC 2.0 request or notification.
    fn parse(line: &'a [u8]) -> Option<Self> {
        let text = std::str::from_utf8(line).ok()?;
        // serde would read a struct from an array too.
        if !text.trim_start().starts_with('{') {
            return None;
        }
        let message: Message<'a> = serde_json::from_str(text).ok()?;
        (message.jsonrpc == "2.0").then_some(message)
    }
}

#[derive(Debug, Deserialize)]
struct CallParams<'a> {
    #[serde(borrow)]
    name: Cow<'a, str>,
    #[serde(default, borrow)]
    arguments: Option<&'a RawValue>,
    #[serde(rename = "_meta", default, borrow)]
    meta: Option<&'a RawValue>,
    #[serde(default, borrow)]
    task: Option<&'a RawValue>,
}

#[derive(Debug, Default, Deserialize)]
struct ListParams<'a> {
    #[serde(default, borrow)]
    cursor: Option<&'a RawValue>,
    #[serde(rename = "_meta", default, borrow)]
    meta: Option<&'a RawValue>,
}

#[derive(Debug, Deserialize)]
struct CancelParams<'a> {
    #[serde(rename = "requestId", borrow)]
    request_id: &'a RawValue,
    #[serde(default)]
    reason: Option<String>,
    #[serde(rename = "_meta", default)]
    meta: Option<Value>,
}

/// The two `_meta` keys the front reads itself.
#[derive(Debug, Default, Deserialize)]
struct MetaHead<'a> {
    #[serde(rename = "progressToken", default, borrow)]
    progress_token: Option<&'a RawValue>,
    #[serde(rename = "io.modelcontextprotocol/protocolVersion", default, borrow)]
    version: Option<&'a RawValue>,
}

/// The text of `raw` when it is an object (serde would read a struct from an array too).
fn object(raw: &RawValue) -> Option<&str> {
    raw.get().starts_with('{').then(|| raw.get())
}

/// Whether `text` is a JSON string or a 64-bit integer: what MCP allows as a request id or
/// progress token, and what rmcp reads as one.
fn is_id(text: &str) -> bool {
    text.starts_with('"') || text.parse::<i64>().is_ok()
}

/// The request id `text` stands for, when it is one.
fn request_id(id: &RawValue) -> Option<RequestId> {
    let text = id.get();
    if text.starts_with('"') {
        let id: String = serde_json::from_str(text).ok()?;
        return Some(NumberOrString::String(id.into()));
    }
    text.parse::<i64>().ok().map(NumberOrString::Number)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(text: &str) -> Box<RawValue> {
        RawValue::from_string(text.to_owned()).expect("raw")
    }

    #[test]
    fn only_json_rpc_requests_and_notifications_are_read() {
        let m = Message::parse(
            br#"{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"x":1.0}}"#,
        )
        .expect("request");
        assert_eq!(m.id.map(RawValue::get), Some(r#""a""#));
        assert_eq!(m.params.map(RawValue::get), Some(r#"{"x":1.0}"#));
        for line in [
            &br#"{"jsonrpc":"1.0","id":1,"method":"tools/call"}"#[..],
            br#"{"id":1,"method":"tools/call"}"#,
            br#"{"jsonrpc":"2.0","id":1}"#,
            b"[1]",
            br#"["2.0", 1, "tools/call"]"#,
            b"{\"jsonrpc\":\"2.0\",\"method\":\"\xff\"}",
        ] {
            assert!(
                Message::parse(line).is_none(),
                "{}",
                String::from_utf8_lossy(line)
            );
        }
    }

    #[test]
    fn ids_are_strings_or_64_bit_integers() {
        assert_eq!(request_id(&raw("7")), Some(NumberOrString::Number(7)));
        assert_eq!(
            request_id(&raw(r#""\u0061""#)),
            Some(NumberOrString::String("a".into()))
        );
        for not in ["1.0", "1e2", "18446744073709551616", "null", "[1]", "true"] {
            assert_eq!(request_id(&raw(not)), None, "{not}");
            assert!(!is_id(not), "{not}");
        }
    }
}
