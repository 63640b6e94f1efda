//! A tool call cancelled in flight: the first tool a sweep calls gets a call it cancels at
//! once (after one it does not, which must be answered for the scenario to be judged), and
//! the server goes on serving whichever way the race went. The call's answer, if
//! one comes, is held to JSON-RPC like every message; whether it comes is not judged (the
//! cancellation may arrive after the call completed).

use serde_json::{Value, json};

use super::cases::{init, scenario};

/// The scenario `sweep/protocol/cancel-call`: `name` called with `args`, then cancelled.
pub fn cancel_call(name: &str, args: &Value) -> Value {
    let answered = "the call is answered when it is not cancelled";
    let steps = vec![
        init(),
        // A call the server cannot answer is `valid`'s finding, not the cancellation's.
        json!({"call": name, "args": args, "label": format!("call {name} once, not cancelled"),
               "skip_unless": answered,
               "expect": {"$one_of": [{"result": {"$type": "object"}}, {"error": {"$type": "object"}}]}}),
        json!({"call": name, "args": args, "progress": true, "nowait": "cancelled",
               "label": format!("call {name}, to be cancelled")}),
        json!({"notify": "notifications/cancelled",
               "params": {"requestId": "${cancelled.id}",
                          "reason": "mcp-conformance cancels a call in flight"},
               "label": format!("cancel the call of {name} at once")}),
        json!({"list_tools": {}, "label": "the server goes on serving whichever way the race went",
               "expect": {"result": {"tools": {"$type": "array"}}}}),
    ];
    let sources = vec![
        json!({"document": "https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/cancellation",
               "section": "Timing Considerations",
               "quote": "Due to network latency, cancellation notifications may arrive after request processing has completed, and potentially after a response has already been sent. Both parties MUST handle these race conditions gracefully",
               "assumes": "handling the race gracefully includes going on serving; whether the cancelled call is answered is the race's outcome and is not judged"}),
        json!({"document": "https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/cancellation",
               "section": "Behavior Requirements",
               "quote": "Receivers of cancellation notifications SHOULD: Stop processing the cancelled request Free associated resources Not send a response for the cancelled request"}),
    ];
    let mut doc = scenario("sweep/protocol/cancel-call", "must", sources, steps);
    doc["tags"] = json!(["sweep", "cancellation"]);
    doc
}
