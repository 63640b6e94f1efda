//! What mcp-hub promises to preserve arrives intact, byte for byte: tool entries and results
//! are carried as the upstream wrote them (key order, number spellings, fields the hub does
//! not know), and only what the hub must rewrite is rewritten: the prefixed name, the
//! overridden hints, the client's request id and progress token, the upstream's
//! `io.modelcontextprotocol/*` result `_meta` keys, and what the client's protocol
//! generation asks (`resultType`, list cache hints, a legacy client's object-only output).
//! The upstream is the fixture server serving JSON text (`entry_json`, `result_json`), so
//! the expected bytes are known.

mod common;

use common::{Hub, Sandbox};
use serde_json::Value;

const ENTRY_ODD: &str = r#"{"inputSchema":{"required":["text"],"type":"object","properties":{"text":{"type":"string","maxLength":1.0E3},"n":{"type":"integer","minimum":-0,"maximum":12345678901234567890123,"default":1}},"additionalProperties":false},"name":"odd_entry","description":"Key order, number spellings, execution and _meta as the upstream wrote them.","execution":{"taskSupport":"forbidden"},"icons":[{"sizes":["48x48"],"src":"https://example.com/odd.png","mimeType":"image/png"}],"annotations":{"title":"Odd entry","readOnlyHint":true,"idempotentHint":false},"_meta":{"vendor.example/weight":1.0,"vendor.example/order":[3,1,2.50]},"title":"Odd","outputSchema":{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}}"#;
const ENTRY_OVERRIDDEN: &str = r#"{"name":"overridden","description":"Hints corrected by configuration.","inputSchema":{"type":"object","properties":{"text":{"type":"string"}}},"annotations":{"readOnlyHint":true,"title":"Overridden","openWorldHint":false},"execution":{"taskSupport":"optional"}}"#;
const ENTRY_BARE: &str = r#"{"name":"bare","inputSchema":{"type":"object"}}"#;
const ENTRY_FUTURE: &str = r#"{"name":"future","inputSchema":{"type":"object","x-schema-future":{"depth":0.10}},"x-vendor":{"z":true,"a":null,"n":1E2},"annotations":{"x-future-hint":{"level":2.50},"destructiveHint":false},"execution":{"taskSupport":"forbidden","x-mode":"later"},"_meta":{"vendor.example/first":-0.0}}"#;
const ENTRY_TASKS: &str = r#"{"name":"task_required","inputSchema":{"type":"object"},"execution":{"taskSupport":"required"}}"#;
const ENTRY_LIST_OUT: &str = r#"{"name":"list_out","inputSchema":{"type":"object"},"outputSchema":{"type":"array","items":{"type":"number"}}}"#;
const RESULT_ODD: &str = r#"{"structuredContent":{"zeta":1.50,"alpha":[1,2.0,-0,1.0E2],"big":12345678901234567890123,"nested":{"b":{"c":{"d":[{"e":true,"f":0.1e1}]}}}},"content":[{"annotations":{"priority":1,"audience":["user"],"lastModified":"2026-01-01T00:00:00Z"},"type":"text","text":"first"},{"text":"second","type":"text","_meta":{"vendor.example/n":3.0}},{"uri":"file:///fixture/odd.txt","type":"resource_link","name":"odd.txt","annotations":{"priority":0}}],"isError":false}"#;
const RESULT_FAILURE: &str = r#"{"isError":true,"content":[{"type":"text","text":"tool-level failure","annotations":{"priority":0.0}}],"structuredContent":{"code":"E_ODD","retryAfterMs":1000,"ratio":1E-3}}"#;
const RESULT_FUTURE: &str = r#"{"x-result-future":{"k":[],"n":1.0},"content":[{"type":"text","text":"future","x-block-future":{"z":1,"a":2}}],"_meta":{"vendor.example/trace":"t-1","vendor.example/n":10.0}}"#;
const RESULT_ARRAY_IN_TEXT: &str =
    r#"{"content":[{"type":"text","text":"[1,2.50]"}],"structuredContent":[1,2.50]}"#;
const RESULT_ARRAY_ELSEWHERE: &str =
    r#"{"content":[{"type":"text","text":"other"}],"structuredContent":[1,2.50]}"#;
const RESULT_SERVER_INFO: &str = r#"{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"up","version":"1"},"vendor.example/keep":1.0},"content":[]}"#;
const RESULT_ONLY_SERVER_INFO: &str = r#"{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"up","version":"1"}},"isError":false}"#;

/// The outward entries: only the name (and, by configuration, two hints) rewritten.
const OUT_ODD: &str = r#"{"inputSchema":{"required":["text"],"type":"object","properties":{"text":{"type":"string","maxLength":1.0E3},"n":{"type":"integer","minimum":-0,"maximum":12345678901234567890123,"default":1}},"additionalProperties":false},"name":"p.odd_entry","description":"Key order, number spellings, execution and _meta as the upstream wrote them.","execution":{"taskSupport":"forbidden"},"icons":[{"sizes":["48x48"],"src":"https://example.com/odd.png","mimeType":"image/png"}],"annotations":{"title":"Odd entry","readOnlyHint":true,"idempotentHint":false},"_meta":{"vendor.example/weight":1.0,"vendor.example/order":[3,1,2.50]},"title":"Odd","outputSchema":{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}}"#;
const OUT_OVERRIDDEN: &str = r#"{"name":"p.overridden","description":"Hints corrected by configuration.","inputSchema":{"type":"object","properties":{"text":{"type":"string"}}},"annotations":{"readOnlyHint":false,"title":"Overridden","openWorldHint":false,"destructiveHint":true},"execution":{"taskSupport":"optional"}}"#;
const OUT_BARE: &str =
    r#"{"name":"p.bare","inputSchema":{"type":"object"},"annotations":{"openWorldHint":true}}"#;
const OUT_FUTURE: &str = r#"{"name":"p.future","inputSchema":{"type":"object","x-schema-future":{"depth":0.10}},"x-vendor":{"z":true,"a":null,"n":1E2},"annotations":{"x-future-hint":{"level":2.50},"destructiveHint":false},"execution":{"taskSupport":"forbidden","x-mode":"later"},"_meta":{"vendor.example/first":-0.0}}"#;
const OUT_LIST_OUT: &str = r#"{"name":"p.list_out","inputSchema":{"type":"object"},"outputSchema":{"type":"array","items":{"type":"number"}}}"#;
/// A legacy client gets no non-object `outputSchema` (2026-07-28 allows one, older
/// revisions do not).
const OUT_LIST_OUT_LEGACY: &str = r#"{"name":"p.list_out","inputSchema":{"type":"object"}}"#;

/// The hub over two upstreams: `p`, a legacy fixture serving the JSON text above (with two
/// overrides), and `d`, a dual fixture with its default tools (spoken to in 2026-07-28, so
/// its results carry `resultType`).
fn hub(sandbox: &Sandbox) -> Hub {
    let tools = sandbox.path("tools.yaml");
    let mut yaml = String::from("tools:\n");
    for (name, entry) in [
        ("odd_entry", ENTRY_ODD),
        ("overridden", ENTRY_OVERRIDDEN),
        ("bare", ENTRY_BARE),
        ("future", ENTRY_FUTURE),
        ("task_required", ENTRY_TASKS),
        ("list_out", ENTRY_LIST_OUT),
    ] {
        yaml.push_str(&format!(
            "  - name: {name}\n    kind: echo\n    entry_json: '{entry}'\n    progress: [0.50, 1]\n"
        ));
    }
    for (name, result) in [
        ("odd_result", RESULT_ODD),
        ("odd_failure", RESULT_FAILURE),
        ("future_fields", RESULT_FUTURE),
        ("array_in_text", RESULT_ARRAY_IN_TEXT),
        ("array_elsewhere", RESULT_ARRAY_ELSEWHERE),
        ("server_info", RESULT_SERVER_INFO),
        ("only_server_info", RESULT_ONLY_SERVER_INFO),
    ] {
        yaml.push_str(&format!(
            "  - name: {name}\n    kind: verbatim\n    result_json: '{result}'\n"
        ));
    }
    std::fs::write(&tools, yaml).expect("write tools file");
    let tools = common::toml_string(&tools.display().to_string());
    let path = sandbox.config(&format!(
        r#"
[servers.p]
prefix = "p"
command = FIXTURE
args = ["fixture-server", "--tools", {tools}]

[servers.p.tools.overrides.overridden]
read_only = false
destructive = true

[servers.p.tools.overrides.bare]
open_world = true

[servers.d]
prefix = "d"
command = FIXTURE
args = ["fixture-server", "--generation", "dual"]
"#
    ));
    let mut hub = Hub::spawn(&[&path], &[]);
    hub.initialize();
    hub
}

/// The `_meta` keys of a 2026-07-28 request.
const MODERN: &str = r#""io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}"#;

/// Sends `line` (a request with `id` written as `id`) and returns the raw line answering it.
fn exchange(hub: &mut Hub, id: &str, line: &str) -> String {
    let wanted: Value = serde_json::from_str(id).expect("id is JSON");
    hub.send_line(line);
    loop {
        let answer = hub
            .next_message_or_none()
            .expect("an answer before the deadline");
        let value: Value = serde_json::from_str(&answer).expect("JSON");
        if value.get("method").is_none() && value["id"] == wanted {
            return answer;
        }
    }
}

fn call(hub: &mut Hub, id: &str, tool: &str, modern: bool) -> String {
    let meta = if modern {
        format!(r#","_meta":{{{MODERN}}}"#)
    } else {
        String::new()
    };
    exchange(
        hub,
        id,
        &format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{tool}","arguments":{{"text":"hi"}}{meta}}}}}"#
        ),
    )
}

/// `result` as a 2026-07-28 client gets it: `resultType` first, then the upstream's members.
fn modern(result: &str) -> String {
    format!(r#"{{"resultType":"complete",{}"#, &result[1..])
}

#[test]
fn tool_entries_are_listed_as_the_upstream_wrote_them() {
    let sandbox = Sandbox::new();
    let mut hub = hub(&sandbox);
    let ours = [OUT_ODD, OUT_OVERRIDDEN, OUT_BARE, OUT_FUTURE].join(",");
    let legacy = exchange(
        &mut hub,
        "2",
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#,
    );
    let expected = format!(
        r#"{{"jsonrpc":"2.0","id":2,"result":{{"tools":[{ours},{OUT_LIST_OUT_LEGACY},{{"name":"p.odd_result""#
    );
    assert!(
        legacy.starts_with(&expected),
        "{legacy}\nshould start with\n{expected}"
    );
    let listed: Value = serde_json::from_str(&legacy).expect("JSON");
    let names: Vec<&str> = listed["result"]["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert!(!names.contains(&"p.task_required"), "{names:?}");
    let modern = exchange(
        &mut hub,
        "3",
        &format!(
            r#"{{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{{"_meta":{{{MODERN}}}}}}}"#
        ),
    );
    let expected = format!(
        r#"{{"jsonrpc":"2.0","id":3,"result":{{"resultType":"complete","ttlMs":0,"cacheScope":"private","tools":[{ours},{OUT_LIST_OUT},{{"name":"p.odd_result""#
    );
    assert!(
        modern.starts_with(&expected),
        "{modern}\nshould start with\n{expected}"
    );
}

#[test]
fn results_are_relayed_as_the_upstream_wrote_them() {
    let sandbox = Sandbox::new();
    let mut hub = hub(&sandbox);
    for (tool, result) in [
        ("p.odd_result", RESULT_ODD),
        ("p.odd_failure", RESULT_FAILURE),
        ("p.future_fields", RESULT_FUTURE),
    ] {
        let legacy = call(&mut hub, "10", tool, false);
        assert_eq!(
            legacy,
            format!(r#"{{"jsonrpc":"2.0","id":10,"result":{result}}}"#)
        );
        let modern_line = call(&mut hub, r#""m-\u00e9""#, tool, true);
        assert_eq!(
            modern_line,
            format!(
                r#"{{"jsonrpc":"2.0","id":"m-\u00e9","result":{}}}"#,
                modern(result)
            )
        );
    }
}

#[test]
fn only_what_the_generation_or_the_hub_needs_is_rewritten() {
    let sandbox = Sandbox::new();
    let mut hub = hub(&sandbox);
    // A modern upstream's `resultType` is not a legacy client's; a modern client gets it as
    // the upstream wrote it.
    let echo = r#"{"content":[{"type":"text","text":"hi"}],"structuredContent":{"text":"hi"}"#;
    assert_eq!(
        call(&mut hub, "1", "d.echo", false),
        format!(r#"{{"jsonrpc":"2.0","id":1,"result":{echo}}}}}"#)
    );
    assert_eq!(
        call(&mut hub, "2", "d.echo", true),
        format!(r#"{{"jsonrpc":"2.0","id":2,"result":{echo},"resultType":"complete"}}}}"#)
    );
    // Non-object structured content is 2026-07-28's: a legacy client gets it as text, in the
    // upstream's spelling, unless the first block already holds it.
    assert_eq!(
        call(&mut hub, "3", "p.array_in_text", false),
        r#"{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"[1,2.50]"}]}}"#
    );
    assert_eq!(
        call(&mut hub, "4", "p.array_elsewhere", false),
        r#"{"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"[1,2.50]"},{"type":"text","text":"other"}]}}"#
    );
    assert_eq!(
        call(&mut hub, "5", "p.array_elsewhere", true),
        format!(
            r#"{{"jsonrpc":"2.0","id":5,"result":{}}}"#,
            modern(RESULT_ARRAY_ELSEWHERE)
        )
    );
    // The upstream's identity stays with the upstream; an emptied `_meta` goes, and a
    // result without content gets the empty list a result must have.
    assert_eq!(
        call(&mut hub, "6", "p.server_info", false),
        r#"{"jsonrpc":"2.0","id":6,"result":{"_meta":{"vendor.example/keep":1.0},"content":[]}}"#
    );
    assert_eq!(
        call(&mut hub, "7", "p.only_server_info", false),
        r#"{"jsonrpc":"2.0","id":7,"result":{"isError":false,"content":[]}}"#
    );
    // No upstream owns an unknown name: a protocol error, as the tools page lists it.
    let unknown: Value = serde_json::from_str(&call(&mut hub, "8", "p.nope", false)).expect("JSON");
    assert_eq!(unknown["error"]["code"], -32602);
    // An upstream's JSON-RPC error reaches the client with its code and message.
    let refused = exchange(
        &mut hub,
        "9",
        r#"{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"d.echo","arguments":{}}}"#,
    );
    let refused: Value = serde_json::from_str(&refused).expect("JSON");
    assert_eq!(refused["error"]["code"], -32602);
    assert!(
        refused["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("text")),
        "{refused}"
    );
}

#[test]
fn progress_keeps_the_clients_token_as_written() {
    let sandbox = Sandbox::new();
    let mut hub = hub(&sandbox);
    hub.send_line(
        r#"{"jsonrpc":"2.0","id":"p-1","method":"tools/call","params":{"name":"p.bare","arguments":{"text":"hi"},"_meta":{"progressToken":"t\u00f6k-1"}}}"#,
    );
    let mut progress = Vec::new();
    loop {
        let line = hub
            .next_message_or_none()
            .expect("a line before the deadline");
        if line.contains("notifications/progress") {
            progress.push(line);
        } else if line.contains(r#""id":"p-1""#) {
            break;
        }
    }
    assert_eq!(
        progress,
        [
            r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t\u00f6k-1","progress":0.5}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t\u00f6k-1","progress":1}}"#,
        ]
    );
}
