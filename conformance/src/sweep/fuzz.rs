//! Protocol fuzzing: lines a client should never send (not JSON, wrong types for each field of
//! a request, missing fields, every kind of id, huge strings, deep nesting, batches, odd
//! notifications), each followed by a request the server must still answer, and at the end a
//! look at everything it wrote to stdout. Seeded and bounded: the same seed picks the same
//! lines.

use serde_json::{Value, json};

use super::values::Rng;

const STDIO_PAGE: &str =
    "https://modelcontextprotocol.io/specification/2025-11-25/basic/transports";

/// One line to send and what it is.
#[derive(Debug, Clone, PartialEq)]
pub struct Mutation {
    pub what: String,
    pub line: String,
    /// `line` is hexadecimal bytes (sent with `send_bytes`): for what no text can hold.
    pub hex: bool,
    /// A well-formed request's id, which its response must carry.
    pub answered: Option<Value>,
}

/// Every mutation of a `tools/call` of `tool` (a real tool of the server, or `echo`).
pub fn mutations(tool: &str) -> Vec<Mutation> {
    let call = |id: Value, params: Value| {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params}).to_string()
    };
    let params = json!({"name": tool, "arguments": {}});
    let m = |what: &str, line: String| Mutation {
        what: what.to_string(),
        line,
        hex: false,
        answered: None,
    };
    let hex = |what: &str, bytes: &[u8]| Mutation {
        what: what.to_string(),
        line: bytes.iter().map(|b| format!("{b:02x}")).collect(),
        hex: true,
        answered: None,
    };
    let mut out = vec![
        m("a line that is not JSON", "this is not JSON".into()),
        m(
            "an unterminated object",
            "{\"jsonrpc\": \"2.0\", \"id\": \"fuzz-1\"".into(),
        ),
        m("a lone closing brace", "}".into()),
        m(
            "JSON with a trailing comma",
            "{\"jsonrpc\": \"2.0\", \"id\": \"fuzz-2\",}".into(),
        ),
        m("a JSON number", "42".into()),
        m("a JSON string", "\"tools/call\"".into()),
        m("an empty object", "{}".into()),
        m("an empty batch", "[]".into()),
        m(
            "a batch of two requests",
            format!(
                "[{},{}]",
                call(json!("fuzz-b1"), params.clone()),
                call(json!("fuzz-b2"), params.clone())
            ),
        ),
    ];
    for (field, wrong) in [
        ("jsonrpc", json!(2)),
        ("jsonrpc", json!("1.0")),
        ("jsonrpc", Value::Null),
        ("method", json!(42)),
        ("method", Value::Null),
        ("method", json!(["tools/call"])),
        ("params", json!("not params")),
        ("params", json!(7)),
        ("id", json!({"an": "object"})),
        ("id", json!([1])),
        ("id", json!(true)),
        ("id", json!(1.5)),
    ] {
        let mut request =
            json!({"jsonrpc": "2.0", "id": "fuzz-t", "method": "tools/call", "params": params});
        request[field] = wrong.clone();
        out.push(m(&format!("`{field}` as {wrong}"), request.to_string()));
    }
    for field in ["jsonrpc", "method", "params"] {
        let mut request =
            json!({"jsonrpc": "2.0", "id": "fuzz-m", "method": "tools/call", "params": params});
        if let Some(map) = request.as_object_mut() {
            map.remove(field);
        }
        out.push(m(
            &format!("a request without `{field}`"),
            request.to_string(),
        ));
    }
    for id in [
        json!(0),
        json!(-1),
        json!(9_007_199_254_740_993_u64),
        json!(i64::MAX),
        json!("fuzz-id"),
        json!("x".repeat(4096)),
    ] {
        let shown = if id.as_str().is_some_and(|s| s.len() > 20) {
            "a 4 KiB string id".to_string()
        } else {
            format!("id {id}")
        };
        // Ids a JavaScript number cannot hold exactly are sent, not held to an exact echo.
        let exact = id.as_u64().is_none_or(|n| n <= (1 << 53));
        let mut request = m(
            &format!("a request with {shown}"),
            call(id.clone(), params.clone()),
        );
        request.answered = exact.then_some(id);
        out.push(request);
    }
    out.push(m(
        "a 256 KiB string argument",
        call(
            json!("fuzz-big"),
            json!({"name": tool, "arguments": {"text": "x".repeat(256 * 1024)}}),
        ),
    ));
    // Written as text: a value this deep would overflow a stack to build or print.
    let deep = format!("{}1{}", "{\"a\":".repeat(2000), "}".repeat(2000));
    out.push(m(
        "arguments nested 2,000 levels deep",
        format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":\"fuzz-deep\",\"method\":\"tools/call\",\"params\":{{\"name\":{},\"arguments\":{{\"deep\":{deep}}}}}}}",
            json!(tool)
        ),
    ));
    for (what, note) in [
        (
            "an unknown notification",
            json!({"jsonrpc": "2.0", "method": "notifications/conformance-unknown"}),
        ),
        (
            "a cancellation of a request never sent",
            json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "never-sent"}}),
        ),
        (
            "a cancellation with an object requestId",
            json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": {}}}),
        ),
        (
            "a progress notification from the client",
            json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": 1, "progress": "half"}}),
        ),
        (
            "a second notifications/initialized",
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        ),
    ] {
        out.push(m(what, note.to_string()));
    }
    out.push(hex("a line of invalid UTF-8", b"\xff\xfe not text"));
    let mut bad_string = call(
        json!("fuzz-utf8"),
        json!({"name": tool, "arguments": {"text": "AB"}}),
    )
    .into_bytes();
    if let Some(at) = bad_string.windows(2).position(|w| w == b"AB") {
        bad_string[at] = 0xc3; // a UTF-8 lead byte followed by an ASCII byte: invalid
    }
    out.push(hex("invalid UTF-8 inside a JSON string", &bad_string));
    out.push(hex(
        "a NUL byte inside a request",
        b"{\"jsonrpc\":\"2.0\",\x00\"id\":\"fuzz-nul\"}",
    ));
    out.push(m(
        "a response to a request never sent",
        json!({"jsonrpc": "2.0", "id": "fuzz-r", "result": {}}).to_string(),
    ));
    out
}

/// `count` mutations picked by `rng` (all of them when `count` covers the list), in a stable
/// order.
pub fn pick(all: Vec<Mutation>, count: usize, rng: &mut Rng) -> Vec<Mutation> {
    if count >= all.len() {
        return all;
    }
    let mut indexed: Vec<(u64, Mutation)> =
        all.into_iter().map(|m| (rng.below(u64::MAX), m)).collect();
    indexed.sort_by_key(|(k, _)| *k);
    indexed.into_iter().take(count).map(|(_, m)| m).collect()
}

/// The fuzz scenario: each line sent, then a `tools/list` that must still be answered; at the
/// end, stdout must hold nothing but JSON-RPC messages.
pub fn scenario(mutations: &[Mutation]) -> Value {
    let mut steps = vec![json!({"initialize": {}})];
    for m in mutations {
        let kind = if m.hex { "send_bytes" } else { "send" };
        steps.push(json!({kind: m.line, "label": format!("send {}", m.what)}));
        if let Some(id) = &m.answered {
            steps.push(json!({"expect_message": {"id": id},
                              "label": format!("{} is answered with its id", m.what)}));
        }
        steps.push(json!({"list_tools": {}, "label": format!("the server still answers after {}", m.what)}));
    }
    steps.push(
        json!({"stdout": {}, "label": "stdout holds only JSON-RPC messages",
                      "expect": {"invalid": {"$len": 0}}}),
    );
    json!({
        "name": "sweep/protocol/fuzz",
        "suite": "protocol",
        "level": "must",
        "tags": ["sweep"],
        "source": [
            {"document": STDIO_PAGE, "section": "stdio",
             "quote": "The server MUST NOT write anything to its stdout that is not a valid MCP message."},
            {"document": "https://www.jsonrpc.org/specification", "section": "5 Response object",
             "quote": "When a rpc call is made, the Server MUST reply with a Response, except for in the case of Notifications."},
            {"document": "https://www.jsonrpc.org/specification", "section": "5 Response object",
             "quote": "It MUST be the same as the value of the id member in the Request Object."}
        ],
        "steps": steps,
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_of_mutation_is_there_and_picking_is_seeded() {
        let all = mutations("echo");
        let whats: Vec<&str> = all.iter().map(|m| m.what.as_str()).collect();
        for kind in [
            "invalid UTF-8",
            "not JSON",
            "`id` as",
            "without `method`",
            "4 KiB string id",
            "256 KiB",
            "2,000 levels",
            "batch of two",
            "notification",
        ] {
            assert!(
                whats.iter().any(|w| w.contains(kind)),
                "{kind} in {whats:?}"
            );
        }
        let a = pick(all.clone(), 10, &mut Rng::new(3));
        assert_eq!(a.len(), 10);
        assert_eq!(a, pick(all.clone(), 10, &mut Rng::new(3)));
        assert_eq!(pick(all.clone(), 1000, &mut Rng::new(3)).len(), all.len());
        let text = serde_saphyr::to_string(&scenario(&a)).unwrap();
        crate::model::parse_scenario(&text, "fuzz.yaml").unwrap();
    }
}
