//! One hub, three upstreams of different protocol generations (the fixture server as
//! `--generation legacy`, `modern` and `dual`): the hub probes each with `server/discover`,
//! speaks 2026-07-28 to the modern and dual ones and falls back to `initialize` for the
//! legacy one; listing, routing, cancellation and progress work through each, for a legacy
//! and for a modern client of the hub.

mod common;

use std::time::{Duration, Instant};

use common::{Hub, Sandbox, recorded, wait_recorded};
use serde_json::{Value, json};

const GENERATIONS: [&str; 3] = ["legacy", "modern", "dual"];
const MODERN_KEYS: [&str; 3] = [
    "io.modelcontextprotocol/protocolVersion",
    "io.modelcontextprotocol/clientCapabilities",
    "io.modelcontextprotocol/clientInfo",
];

/// The hub over three recorded fixture upstreams, prefixed with their generation.
fn three_generations(sandbox: &Sandbox) -> Hub {
    let config: String = GENERATIONS
        .iter()
        .map(|g| {
            let record = common::toml_string(&sandbox.path(&format!("{g}.jsonl")).display().to_string());
            format!(
                "[servers.{g}]\nprefix = \"{g}\"\ncommand = FIXTURE\nargs = [\"fixture-server\", \"--generation\", \"{g}\", \"--record\", {record}]\n\n"
            )
        })
        .collect();
    let path = sandbox.config(&config);
    Hub::spawn(&[&path], &[])
}

/// The `_meta` of a modern client request, with `extra` keys.
fn modern_meta(extra: Value) -> Value {
    let mut meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "generations-secret-client", "version": "7"},
    });
    if let (Value::Object(meta), Value::Object(extra)) = (&mut meta, extra) {
        meta.extend(extra);
    }
    meta
}

fn has_modern_keys(message: &Value) -> bool {
    let meta = &message["params"]["_meta"];
    MODERN_KEYS.iter().all(|k| meta.get(k).is_some())
        && meta["io.modelcontextprotocol/protocolVersion"] == "2026-07-28"
        && meta["io.modelcontextprotocol/clientInfo"]["name"] == "mcp-hub"
}

#[test]
fn each_upstream_is_spoken_to_in_its_own_generation() {
    let sandbox = Sandbox::new();
    let mut hub = three_generations(&sandbox);
    hub.initialize();
    let names = hub.tool_names();
    assert_eq!(names.len(), 21, "{names:?}");
    for g in GENERATIONS {
        assert!(names.contains(&format!("{g}.echo")), "{names:?}");
        let echo = hub.request(
            "tools/call",
            json!({"name": format!("{g}.echo"), "arguments": {"text": g}}),
        );
        // A legacy client gets the legacy result shape, whatever the upstream's generation.
        assert_eq!(
            echo["result"],
            json!({"content": [{"type": "text", "text": g}], "structuredContent": {"text": g}}),
            "{g}"
        );
    }
    // Every upstream was probed first, with the hub's own modern `_meta`.
    for g in GENERATIONS {
        let record = recorded(&sandbox.path(&format!("{g}.jsonl")));
        assert_eq!(record[0]["method"], "server/discover", "{g}: {record:?}");
        assert!(has_modern_keys(&record[0]), "{g}: {}", record[0]);
    }
    // Legacy: initialize on the same process after the refused probe, then plain requests.
    let legacy = recorded(&sandbox.path("legacy.jsonl"));
    let methods: Vec<&str> = legacy.iter().filter_map(|m| m["method"].as_str()).collect();
    assert_eq!(
        methods,
        [
            "server/discover",
            "initialize",
            "notifications/initialized",
            "tools/list",
            "tools/call"
        ]
    );
    assert_eq!(legacy[1]["params"]["protocolVersion"], "2025-11-25");
    assert!(
        legacy[3..]
            .iter()
            .all(|m| m["params"].get("_meta").is_none()),
        "{legacy:?}"
    );
    // Modern and dual: no initialize; every request carries the protocol `_meta` keys.
    for g in ["modern", "dual"] {
        let record = recorded(&sandbox.path(&format!("{g}.jsonl")));
        let methods: Vec<&str> = record.iter().filter_map(|m| m["method"].as_str()).collect();
        assert_eq!(
            methods,
            ["server/discover", "tools/list", "tools/call"],
            "{g}"
        );
        assert!(record.iter().all(has_modern_keys), "{g}: {record:?}");
    }
}

#[test]
fn cancellation_and_progress_through_each_generation() {
    let sandbox = Sandbox::new();
    let mut hub = three_generations(&sandbox);
    hub.initialize();
    for g in GENERATIONS {
        let id = format!("slow-{g}");
        let token = format!("token-{g}");
        hub.send(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": format!("{g}.slow"), "arguments": {"ms": 60000, "steps": 600},
                       "_meta": {"progressToken": token}}}));
        let progress = hub.next_message();
        assert_eq!(
            progress["method"], "notifications/progress",
            "{g}: {progress}"
        );
        assert_eq!(progress["params"]["progressToken"], json!(token), "{g}");
        assert_eq!(progress["params"]["total"], 600, "{g}");
        // The client's own `_meta` keys travel with the cancellation (the protocol's reserved
        // `io.modelcontextprotocol/*` keys are the hub's to set per upstream).
        hub.send(
            &json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
            "params": {"requestId": id, "reason": format!("cancel {g}"),
                       "_meta": {"example.com/trace": format!("trace-{g}")}}}),
        );
        let path = sandbox.path(&format!("{g}.jsonl"));
        let call = wait_recorded(&path, |m| m["method"] == "tools/call");
        // The upstream's own request id and progress token (the hub's), keeping the
        // protocol keys for a modern upstream.
        assert_eq!(call["params"]["_meta"]["progressToken"], call["id"], "{g}");
        assert_eq!(has_modern_keys(&call), g != "legacy", "{g}: {call}");
        let cancel = wait_recorded(&path, |m| m["method"] == "notifications/cancelled");
        assert_eq!(cancel["params"]["requestId"], call["id"], "{g}");
        assert_eq!(
            cancel["params"]["reason"],
            json!(format!("cancel {g}")),
            "{g}"
        );
        assert_eq!(
            cancel["params"]["_meta"]["example.com/trace"],
            json!(format!("trace-{g}")),
            "{g}: {cancel}"
        );
        // The upstream stopped the call: it said so on stderr, relayed with its instance id.
        hub.wait_stderr(&[&format!("instance_id={g}"), "cancelled; not answering"]);
    }
    // Nothing more arrives for the cancelled calls: the next message answers a new request.
    hub.send(&json!({"jsonrpc": "2.0", "id": "after", "method": "tools/list"}));
    loop {
        let next = hub.next_message();
        if next["id"] == "after" {
            break;
        }
        // At most progress already in flight when its cancellation was sent.
        assert_eq!(next["method"], "notifications/progress", "{next}");
    }
    assert!(
        !hub.stderr_text()
            .contains("cancellation of unknown request"),
        "{}",
        hub.stderr_text()
    );
    for g in GENERATIONS {
        let echo = hub.request(
            "tools/call",
            json!({"name": format!("{g}.echo"), "arguments": {"text": "still"}}),
        );
        assert_eq!(
            echo["result"]["structuredContent"],
            json!({"text": "still"}),
            "{g}"
        );
    }
}

#[test]
fn a_modern_client_reaches_every_generation_and_its_meta_stays_at_the_hub() {
    let sandbox = Sandbox::new();
    let mut hub = three_generations(&sandbox);
    let discover = hub.request("server/discover", json!({"_meta": modern_meta(json!({}))}));
    let result = &discover["result"];
    assert_eq!(result["resultType"], "complete", "{discover}");
    assert!(
        result["supportedVersions"]
            .as_array()
            .is_some_and(|v| v.contains(&json!("2026-07-28")) && v.contains(&json!("2025-11-25"))),
        "{discover}"
    );
    assert_eq!(
        result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        "mcp-hub"
    );
    assert_eq!(result["capabilities"], json!({"tools": {}}));
    // No initialize: a stateless list and calls.
    let list = hub.request("tools/list", json!({"_meta": modern_meta(json!({}))}));
    assert_eq!(list["result"]["resultType"], "complete");
    assert_eq!(list["result"]["tools"].as_array().map(Vec::len), Some(21));
    for g in GENERATIONS {
        hub.send(
            &json!({"jsonrpc": "2.0", "id": format!("call-{g}"), "method": "tools/call",
            "params": {"name": format!("{g}.slow"), "arguments": {"ms": 20, "steps": 2},
                       "_meta": modern_meta(json!({"progressToken": g}))}}),
        );
        let mut progress = Vec::new();
        let answer = loop {
            let message = hub.next_message();
            if message["id"] == json!(format!("call-{g}")) {
                break message;
            }
            progress.push(message["params"]["progressToken"].clone());
        };
        assert_eq!(progress, [json!(g), json!(g)], "{g}");
        assert_eq!(
            answer["result"],
            json!({"resultType": "complete", "content": [{"type": "text", "text": "done"}]}),
            "{g}"
        );
    }
    // Cancellation by a modern client, with protocol keys in the notification's `_meta`:
    // they are not forwarded.
    hub.send(
        &json!({"jsonrpc": "2.0", "id": "modern-slow", "method": "tools/call",
        "params": {"name": "modern.slow", "arguments": {"ms": 60000, "steps": 600},
                   "_meta": modern_meta(json!({"progressToken": "m"}))}}),
    );
    assert_eq!(hub.next_message()["method"], "notifications/progress");
    hub.send(
        &json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": {"requestId": "modern-slow", "reason": "stop",
                   "_meta": modern_meta(json!({}))}}),
    );
    let path = sandbox.path("modern.jsonl");
    let cancel = wait_recorded(&path, |m| m["method"] == "notifications/cancelled");
    assert_eq!(cancel["params"]["reason"], "stop");
    assert!(
        !cancel.to_string().contains("io.modelcontextprotocol/"),
        "{cancel}"
    );
    // The client's protocol keys and identity reached no upstream.
    for g in GENERATIONS {
        let text = std::fs::read_to_string(sandbox.path(&format!("{g}.jsonl"))).expect("record");
        assert!(!text.contains("generations-secret-client"), "{g}: {text}");
    }
    let legacy = recorded(&sandbox.path("legacy.jsonl"));
    assert!(
        legacy
            .iter()
            .filter(|m| m["method"] != "server/discover")
            .all(|m| !m.to_string().contains("io.modelcontextprotocol/")),
        "{legacy:?}"
    );
}

#[test]
fn a_silent_probe_falls_back_to_initialize_within_the_bounds() {
    // The upstream reads nothing for 1.5 s: the probe gets no answer within the 1 s step
    // bound, so the hub initializes (the late `-32601` to the probe is ignored).
    let sandbox = Sandbox::new();
    let record = common::toml_string(&sandbox.path("late.jsonl").display().to_string());
    let path = sandbox.config(&format!(
        "[servers.late]\ncommand = FIXTURE\nargs = [\"fixture-server\", \"--startup-delay-ms\", \"1500\", \"--record\", {record}]\n"
    ));
    let begun = Instant::now();
    // The probe's outcome is a TRACE record, below the default filter.
    let mut hub = Hub::spawn(
        &[&path],
        &[
            ("MCP_HUB_STARTUP_TIMEOUT_MS", "1000"),
            ("RUST_LOG", "info,mcp_hub=trace"),
        ],
    );
    hub.initialize();
    assert!(
        begun.elapsed() < Duration::from_secs(3),
        "{:?}",
        begun.elapsed()
    );
    hub.wait_stderr(&["instance_id=late", "no answer to server/discover"]);
    let echo = hub.request(
        "tools/call",
        json!({"name": "echo", "arguments": {"text": "late"}}),
    );
    assert_eq!(echo["result"]["structuredContent"], json!({"text": "late"}));
    let methods: Vec<String> = recorded(&sandbox.path("late.jsonl"))
        .iter()
        .filter_map(|m| m["method"].as_str().map(str::to_owned))
        .collect();
    assert_eq!(
        methods[..3],
        ["server/discover", "initialize", "notifications/initialized"]
    );
}

#[test]
fn a_modern_upstream_whose_probe_fails_is_omitted() {
    // A modern upstream whose discover fails (-32603): the hub falls back to initialize,
    // which a modern-only server refuses (-32022), so that upstream is omitted and logged;
    // the others serve.
    let sandbox = Sandbox::new();
    let path = sandbox.config(
        "[servers.ok]\nprefix = \"ok\"\ncommand = FIXTURE\nargs = [\"fixture-server\", \"--generation\", \"modern\"]\n\n\
         [servers.broken]\nprefix = \"broken\"\ncommand = FIXTURE\nargs = [\"fixture-server\", \"--generation\", \"modern\", \"--fail-initialize\"]\n",
    );
    let mut hub = Hub::spawn(&[&path], &[]);
    hub.initialize();
    let names = hub.tool_names();
    assert!(names.iter().all(|n| n.starts_with("ok.")), "{names:?}");
    hub.wait_stderr(&["instance_id=broken", "upstream `broken` omitted", "-32022"]);
}

#[test]
fn an_upstream_that_exits_on_the_probe_is_restarted_and_initialized() {
    // The first process reads one line (the probe) and exits; the second one is the legacy
    // fixture, which must see `initialize` first: no second probe.
    let sandbox = Sandbox::new();
    let marker = common::toml_string(&sandbox.path("first-run").display().to_string());
    let record = common::toml_string(&sandbox.path("second.jsonl").display().to_string());
    let script = common::toml_string(
        "if [ ! -e \"$1\" ]; then : > \"$1\"; read -r line; exit 1; fi; shift; exec \"$@\"",
    );
    let path = sandbox.config(&format!(
        "[servers.fragile]\ncommand = \"/bin/sh\"\nargs = [\"-c\", {script}, \"sh\", {marker}, FIXTURE, \"fixture-server\", \"--record\", {record}]\n"
    ));
    // The restart is a TRACE record (generation negotiation), below the default filter.
    let mut hub = Hub::spawn(&[&path], &[("RUST_LOG", "info,mcp_hub=trace")]);
    hub.initialize();
    hub.wait_stderr(&[
        "instance_id=fragile",
        "exited with status 1 before answering server/discover",
        "restarting it to initialize",
    ]);
    let echo = hub.request(
        "tools/call",
        json!({"name": "echo", "arguments": {"text": "second process"}}),
    );
    assert_eq!(
        echo["result"]["structuredContent"],
        json!({"text": "second process"})
    );
    let methods: Vec<String> = recorded(&sandbox.path("second.jsonl"))
        .iter()
        .filter_map(|m| m["method"].as_str().map(str::to_owned))
        .collect();
    assert_eq!(
        methods,
        [
            "initialize",
            "notifications/initialized",
            "tools/list",
            "tools/call"
        ]
    );
}
