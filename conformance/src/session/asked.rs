//! The server's own requests to the client, held to what the client declared: in a
//! 2025-11-25 session a `sampling/createMessage`, `elicitation/create` (in a mode) or
//! `roots/list` only to a client whose `initialize` declared that capability; in 2026-07-28
//! none at all, since a server asks through an input-required result there.

use serde_json::Value;

use super::check::{Document, Rule, Violation};
use super::inbox::Inbox;

const LIFECYCLE: Document = Document {
    title: "MCP",
    url: "https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle",
};
const ELICITATION: Document = Document {
    title: "MCP",
    url: "https://modelcontextprotocol.io/specification/2025-11-25/client/elicitation",
};
const MRTR: Document = Document {
    title: "MCP",
    url: "https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr",
};

const NEGOTIATED: Rule = Rule {
    document: LIFECYCLE,
    section: "Operation",
    quote: "Both parties MUST: Respect the negotiated protocol version Only use capabilities \
            that were successfully negotiated",
};
const MODES: Rule = Rule {
    document: ELICITATION,
    section: "Capabilities",
    quote: "Servers MUST NOT send elicitation requests with modes that are not supported by \
            the client.",
};
const MRTR_ONLY: Rule = Rule {
    document: MRTR,
    section: "Multi Round-Trip Requests",
    quote: "Servers MUST send server-to-client requests (such as roots/list, \
            sampling/createMessage, or elicitation/create) using the MRTR pattern.",
};

/// What the client told the server, as the session wrote it.
#[derive(Debug, Default)]
pub(super) struct Declared {
    /// The capabilities of the `initialize` request we wrote, once we wrote one.
    pub(super) legacy: Option<Value>,
    /// The last request we wrote declared 2026-07-28 in its `_meta`.
    pub(super) modern: bool,
}

impl Declared {
    /// Learns from one object we wrote.
    pub(super) fn wrote(&mut self, message: &Value) {
        let Some(method) = message.get("method").and_then(Value::as_str) else {
            return;
        };
        if message.get("id").is_none() {
            return;
        }
        if method == "initialize" {
            let caps = message.pointer("/params/capabilities").cloned();
            self.legacy = Some(caps.unwrap_or(Value::Null));
            self.modern = false;
        } else {
            self.modern = message
                .pointer("/params/_meta/io.modelcontextprotocol~1protocolVersion")
                .is_some();
        }
    }
}

/// The capability a server-to-client request needs.
fn capability(method: &str) -> Option<&'static str> {
    match method {
        "sampling/createMessage" => Some("sampling"),
        "elicitation/create" => Some("elicitation"),
        "roots/list" => Some("roots"),
        _ => None,
    }
}

/// What is wrong with a request the server sent us, if anything.
pub(super) fn problem(inbox: &Inbox, message: &Value) -> Option<Violation> {
    let method = message.get("method")?.as_str()?;
    message.get("id")?;
    let needed = capability(method)?;
    let found = |what: String, rule: Rule| {
        Some(Violation {
            what,
            rule,
            message: message.clone(),
            answers: None,
        })
    };
    let declared = &inbox.declared;
    if declared.modern {
        return found(
            format!(
                "a {method} request sent to a 2026-07-28 client, not asked for in an input-required result"
            ),
            MRTR_ONLY,
        );
    }
    let caps = declared.legacy.as_ref()?;
    let Some(granted) = caps.get(needed).filter(|c| c.is_object()) else {
        return found(
            format!(
                "a {method} request, but the client's initialize declared no {needed} capability"
            ),
            NEGOTIATED,
        );
    };
    if method == "elicitation/create" {
        let mode = message
            .pointer("/params/mode")
            .and_then(Value::as_str)
            .unwrap_or("form");
        // An empty elicitation capability means form mode only.
        let supported = match granted.as_object() {
            Some(modes) if modes.is_empty() => mode == "form",
            Some(modes) => modes.contains_key(mode),
            None => false,
        };
        if !supported {
            return found(
                format!(
                    "an elicitation/create request in {mode} mode, which the client did not declare (elicitation {granted})"
                ),
                MODES,
            );
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn inbox(wrote: &[Value]) -> Inbox {
        let mut inbox = Inbox::default();
        for w in wrote {
            inbox.declared.wrote(w);
        }
        inbox
    }

    fn initialize(caps: Value) -> Value {
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": caps}})
    }

    fn asks(method: &str, params: Value) -> Value {
        json!({"jsonrpc": "2.0", "id": "s1", "method": method, "params": params})
    }

    #[test]
    fn a_legacy_server_asks_only_for_what_was_declared() {
        let declared = inbox(&[initialize(json!({"sampling": {}, "elicitation": {}}))]);
        assert!(problem(&declared, &asks("sampling/createMessage", json!({}))).is_none());
        assert!(problem(&declared, &asks("elicitation/create", json!({}))).is_none());
        assert!(problem(&declared, &asks("ping", json!({}))).is_none());
        let roots = problem(&declared, &asks("roots/list", json!({}))).expect("undeclared");
        assert_eq!(roots.rule, NEGOTIATED);
        assert!(
            roots.what.contains("declared no roots capability"),
            "{}",
            roots.what
        );
        let url = problem(
            &declared,
            &asks("elicitation/create", json!({"mode": "url"})),
        )
        .expect("form only");
        assert_eq!(url.rule, MODES);
        let both = inbox(&[initialize(json!({"elicitation": {"form": {}, "url": {}}}))]);
        assert!(problem(&both, &asks("elicitation/create", json!({"mode": "url"}))).is_none());
    }

    #[test]
    fn a_modern_server_never_asks_by_request() {
        let modern = inbox(&[json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}})]);
        let v = problem(&modern, &asks("roots/list", json!({}))).expect("not by request");
        assert_eq!(v.rule, MRTR_ONLY);
        // Before anything was written nothing is known, and nothing is judged.
        assert!(problem(&inbox(&[]), &asks("roots/list", json!({}))).is_none());
    }
}
