//! What a sweep asks of each tool's log messages: none for a 2026-07-28 request that set no
//! log level, and, on a server declaring logging, none below the level the client asked for
//! (`logging/setLevel` in 2025-11-25, the request's own `_meta` in 2026-07-28). The level
//! asked for is `emergency`, the highest: every message the server may still send is at it.

use serde_json::{Value, json};

use super::cases::{init, scenario};
use super::edges::Edge;
use super::prompts::opening_if_declared;

/// The key of `_meta` that sets a 2026-07-28 request's log level.
const LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";
/// The 2026-07-28 logging page.
const LOGGING_2026: &str =
    "https://modelcontextprotocol.io/specification/2026-07-28/server/utilities/logging";
/// The 2025-11-25 logging page.
const LOGGING_2025: &str =
    "https://modelcontextprotocol.io/specification/2025-11-25/server/utilities/logging";

/// The logging scenarios for tool `name`, called with its first cases (edges first).
pub fn scenarios(name: &str, edges: &[Edge], sets: &[Value]) -> Vec<Value> {
    let cases: Vec<&Value> = edges.iter().map(|e| &e.args).chain(sets).take(2).collect();
    vec![
        unlogged(name, &cases),
        threshold(name, &cases[..cases.len().min(1)]),
        requested_level(name, &cases[..cases.len().min(1)]),
    ]
}

fn answered() -> Value {
    json!({"$one_of": [{"result": {"$type": "object"}}, {"error": {"$type": "object"}}]})
}

/// No `notifications/message` but at `emergency`.
fn none_below_emergency(label: &str) -> Value {
    json!({"no_message": {"method": "notifications/message",
                          "params": {"level": {"$not": "emergency"}}},
           "label": label})
}

/// The calls of a 2026-07-28 session that may not be logged: no
/// `io.modelcontextprotocol/logLevel` in their `_meta`, then no `notifications/message` may
/// have come. Only the modern pass: before 2026-07-28 a server logs at a level of its own
/// choosing until `logging/setLevel`.
fn unlogged(name: &str, cases: &[&Value]) -> Value {
    let mut steps = vec![init()];
    for (i, args) in cases.iter().enumerate() {
        steps.push(json!({"call": name, "args": args,
                          "label": format!("call {name} without a log level (case {})", i + 1),
                          "expect": answered()}));
    }
    steps.push(json!({"no_message": {"method": "notifications/message"},
                      "label": "no notifications/message for requests without a log level"}));
    let sources = vec![
        json!({"document": LOGGING_2026, "section": "Per-request log level",
               "quote": "The server MUST NOT emit notifications/message for a request that does not include this field."}),
        json!({"document": "https://github.com/modelcontextprotocol/modelcontextprotocol/blob/main/schema/2026-07-28/schema.ts",
               "section": "io.modelcontextprotocol/logLevel",
               "quote": "The client opts in to log messages by explicitly setting a level. Replaces the former logging/setLevel RPC."}),
    ];
    let mut doc = scenario(
        &format!("sweep/tool/{name}/unlogged"),
        "must",
        sources,
        steps,
    );
    doc["tags"] = json!(["sweep", "modern", "logging"]);
    doc
}

/// 2025-11-25, on a server declaring logging: `logging/setLevel` to `emergency`, a call,
/// then no message below it.
fn threshold(name: &str, cases: &[&Value]) -> Value {
    let mut steps = opening_if_declared("logging");
    steps.push(
        json!({"request": "logging/setLevel", "params": {"level": "emergency"},
                      "label": "the minimum level is set to emergency",
                      "expect": {"result": {"$type": "object"}}}),
    );
    for args in cases {
        steps.push(json!({"call": name, "args": args,
                          "label": format!("call {name} with the minimum level at emergency"),
                          "expect": answered()}));
    }
    steps.push(none_below_emergency(
        "no notifications/message below the minimum level set",
    ));
    let sources = vec![
        json!({"document": LOGGING_2025, "section": "Setting Log Level",
               "quote": "To configure the minimum log level, clients MAY send a logging/setLevel request:"}),
        json!({"document": "https://github.com/modelcontextprotocol/modelcontextprotocol/blob/main/schema/2025-11-25/schema.ts",
               "section": "SetLevelRequestParams",
               "quote": "The level of logging that the client wants to receive from the server. The server should send all logs at this level and higher (i.e., more severe) to the client as notifications/message.",
               "assumes": "a minimum level is one below which nothing is sent (the page's message flow: \"Only sends error level and above\" once the level is error); the schema's lowercase should makes it level should"}),
    ];
    let mut doc = scenario(
        &format!("sweep/tool/{name}/log-threshold"),
        "should",
        sources,
        steps,
    );
    doc["tags"] = json!(["sweep", "legacy", "logging"]);
    doc
}

/// 2026-07-28, on a server declaring logging: a call asking for `emergency` in its `_meta`,
/// then no message below it.
fn requested_level(name: &str, cases: &[&Value]) -> Value {
    let mut steps = opening_if_declared("logging");
    for args in cases {
        steps.push(
            json!({"call": name, "args": args, "meta": {LOG_LEVEL: "emergency"},
                          "label": format!("call {name} asking for log level emergency"),
                          "expect": answered()}),
        );
    }
    steps.push(none_below_emergency(
        "no notifications/message below the level the request asked for",
    ));
    let sources = vec![
        json!({"document": LOGGING_2026, "section": "Per-request log level",
        "quote": "When the field is present, the server MAY send notifications/message notifications at or above the requested level on the response stream of that request, before the final response.",
        "assumes": "what the sentence allows is a message at or above the level asked for; one below it is outside that permission, and with no MUST NOT naming it, level should"}),
    ];
    let mut doc = scenario(
        &format!("sweep/tool/{name}/log-level"),
        "should",
        sources,
        steps,
    );
    doc["tags"] = json!(["sweep", "modern", "logging"]);
    doc
}
