//! Protocol details the hub must get right towards its client, whatever its upstreams do, on
//! the real binary over real pipes: `ping` and `logging/setLevel` do not exist for a
//! 2026-07-28 request (SEP-2575) while legacy `ping` keeps working; a cursor the hub never
//! issued is invalid params in both generations; the hub speaks as itself (an upstream's
//! identity in its result `_meta` never reaches the client); and the tool schemas of the
//! reference ToolHub stay portable through the hub.

mod common;

use common::{Hub, Sandbox, toml_string};
use serde_json::{Value, json};

fn modern_meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "hub-tests", "version": "1"},
    })
}

fn error_code(answer: &Value) -> Option<i64> {
    answer["error"]["code"].as_i64()
}

/// One fixture upstream (`u.echo`, ...).
fn one_fixture(sandbox: &Sandbox) -> Hub {
    let config = sandbox
        .config("[servers.u]\nprefix = \"u\"\ncommand = FIXTURE\nargs = [\"fixture-server\"]\n");
    Hub::spawn(&[&config], &[])
}

#[test]
fn modern_ping_and_set_level_are_method_not_found() {
    let sandbox = Sandbox::new();
    let mut hub = one_fixture(&sandbox);
    for round in 0..2 {
        let ping = hub.request("ping", json!({"_meta": modern_meta()}));
        assert_eq!(error_code(&ping), Some(-32601), "round {round}: {ping}");
        let level = hub.request(
            "logging/setLevel",
            json!({"level": "info", "_meta": modern_meta()}),
        );
        assert_eq!(error_code(&level), Some(-32601), "round {round}: {level}");
        let list = hub.request("tools/list", json!({"_meta": modern_meta()}));
        assert_eq!(list["result"]["resultType"], "complete", "{list}");
    }
}

#[test]
fn legacy_ping_keeps_working() {
    let sandbox = Sandbox::new();
    let mut hub = one_fixture(&sandbox);
    assert_eq!(hub.request("ping", json!({}))["result"], json!({}));
    hub.initialize();
    assert_eq!(hub.request("ping", json!({}))["result"], json!({}));
    let modern = hub.request("ping", json!({"_meta": modern_meta()}));
    assert_eq!(error_code(&modern), Some(-32601), "{modern}");
}

#[test]
fn a_cursor_the_hub_never_issued_is_invalid_params() {
    let sandbox = Sandbox::new();
    let mut legacy = one_fixture(&sandbox);
    legacy.initialize();
    let first = legacy.request("tools/list", json!({}));
    assert!(
        first["result"]["tools"]
            .as_array()
            .is_some_and(|t| !t.is_empty())
    );
    assert!(first["result"].get("nextCursor").is_none(), "{first}");
    let bad = legacy.request("tools/list", json!({"cursor": "not-a-cursor"}));
    assert_eq!(error_code(&bad), Some(-32602), "{bad}");
    let mut modern = one_fixture(&sandbox);
    let bad = modern.request(
        "tools/list",
        json!({"cursor": "not-a-cursor", "_meta": modern_meta()}),
    );
    assert_eq!(error_code(&bad), Some(-32602), "{bad}");
}

#[test]
fn the_client_sees_only_the_hubs_identity() {
    let sandbox = Sandbox::new();
    // Upstreams that put their own identity (and an application key) in a result's `_meta`:
    // one the hub speaks 2026-07-28 to, one it initializes.
    let tools = sandbox.path("tools.json");
    let result = json!({
        "content": [{"type": "text", "text": "who am i"}],
        "_meta": {
            "io.modelcontextprotocol/serverInfo": {"name": "upstream-identity", "version": "9.9.9"},
            "io.modelcontextprotocol/subscriptionId": "upstream-subscription",
            "com.example/trace": "t-1",
        },
    });
    std::fs::write(
        &tools,
        json!({"tools": [{"name": "whoami", "kind": "verbatim", "result": result}]}).to_string(),
    )
    .expect("tools file");
    let tools = toml_string(&tools.display().to_string());
    let config = sandbox.config(&format!(
        "[servers.m]\nprefix = \"m\"\ncommand = FIXTURE\nargs = [\"fixture-server\", \"--generation\", \"dual\", \"--tools\", {tools}]\n\n\
         [servers.l]\nprefix = \"l\"\ncommand = FIXTURE\nargs = [\"fixture-server\", \"--generation\", \"legacy\", \"--tools\", {tools}]\n"
    ));
    for client in ["legacy", "modern"] {
        let mut hub = Hub::spawn(&[&config], &[]);
        let meta = if client == "modern" {
            let discover = hub.request("server/discover", json!({"_meta": modern_meta()}));
            assert_eq!(
                discover["result"]["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
                "mcp-hub",
                "{discover}"
            );
            modern_meta()
        } else {
            let init = hub.initialize();
            assert_eq!(init["result"]["serverInfo"]["name"], "mcp-hub", "{init}");
            json!({})
        };
        for tool in ["m.whoami", "l.whoami"] {
            let answer = hub.request(
                "tools/call",
                json!({"name": tool, "arguments": {}, "_meta": meta}),
            );
            let result = &answer["result"];
            assert_eq!(
                result["content"][0]["text"], "who am i",
                "{client} {tool}: {answer}"
            );
            assert!(
                !answer.to_string().contains("upstream-identity")
                    && !answer.to_string().contains("upstream-subscription"),
                "{client} {tool}: the upstream's identity reached the client: {answer}"
            );
            // The application's own keys are the upstream's to send, and pass through.
            assert_eq!(
                result["_meta"],
                json!({"com.example/trace": "t-1"}),
                "{client} {tool}: {answer}"
            );
        }
    }
}

#[test]
fn the_toolhub_schemas_stay_portable_through_the_hub() {
    let sandbox = Sandbox::new();
    for dir in ["workspace", "state"] {
        std::fs::create_dir(sandbox.path(dir)).expect("dir");
    }
    let config = sandbox.config(&format!(
        "[servers.toolhub]\nprefix = \"toolhub\"\ncommand = {}\nargs = [\"serve\"]\n\
         env = {{ TOOLHUB_WORKSPACE_ROOT = {}, TOOLHUB_STATE_ROOT = {} }}\n",
        toml_string(&common::toolhub().display().to_string()),
        toml_string(&sandbox.path("workspace").display().to_string()),
        toml_string(&sandbox.path("state").display().to_string()),
    ));
    let mut hub = Hub::spawn(&[&config], &[]);
    hub.initialize();
    let list = hub.request("tools/list", json!({}));
    let tools = list["result"]["tools"].as_array().expect("tools");
    assert_eq!(tools.len(), 14, "{list}");
    let mut problems = Vec::new();
    for tool in tools {
        for side in ["inputSchema", "outputSchema"] {
            if let Some(schema) = tool.get(side) {
                for finding in mcp_stdio_guard::schema::portability_findings(schema) {
                    problems.push(format!("{} {side}{finding}", tool["name"]));
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
