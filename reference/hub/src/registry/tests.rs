//! Inventory building: names, filters, overrides and every startup error.

use std::path::Path;

use serde_json::{Map, Value, json};

use super::*;
use crate::config::HubConfig;

fn config(text: &str) -> HubConfig {
    HubConfig::parse(Path::new("hub.toml"), text).expect("valid config")
}

fn tool(name: &str) -> Map<String, Value> {
    match json!({
        "name": name,
        "description": format!("{name} things"),
        "inputSchema": {"type": "object"},
        "annotations": {"readOnlyHint": true, "idempotentHint": true, "title": name},
    }) {
        Value::Object(map) => map,
        _ => unreachable!(),
    }
}

fn raw(tool: &Map<String, Value>) -> Box<RawValue> {
    serde_json::value::to_raw_value(tool).expect("raw")
}

fn build(config: &HubConfig, tools: &[Vec<Map<String, Value>>]) -> Result<Registry, RegistryError> {
    let raws: Vec<Vec<Box<RawValue>>> = tools.iter().map(|t| t.iter().map(raw).collect()).collect();
    let listed: Vec<Listed<'_>> = config
        .servers
        .iter()
        .zip(&raws)
        .map(|(config, tools)| Listed { config, tools })
        .collect();
    Registry::build(&listed)
}

fn names(registry: &Registry) -> Vec<String> {
    registry.names().to_vec()
}

/// The listed entries a client of `era` gets, as values.
fn listed(registry: &Registry, era: Era) -> Vec<Value> {
    let result: Value = serde_json::from_str(&registry.list_result(era)).expect("JSON");
    result["tools"].as_array().cloned().unwrap_or_default()
}

#[test]
fn prefixes_filters_and_routes() {
    let cfg = config(
        r#"
[servers.plain]
command = "x"
[servers.a]
command = "x"
prefix = "a"
[servers.a.tools]
include = ["ec*"]
exclude = ["echo"]
[servers.b]
command = "x"
prefix = "b"
[servers.b.tools]
exclude = ["e*"]
"#,
    );
    let listed = vec![tool("echo"), tool("slow")];
    let registry = build(&cfg, &[vec![tool("other")], listed.clone(), listed]).expect("registry");
    assert_eq!(names(&registry), ["other", "a.echo", "b.slow"]);
    assert_eq!(
        registry.route("a.echo"),
        Some(&Route {
            upstream: 1,
            original: "echo".into()
        })
    );
    assert_eq!(registry.route("echo"), None);
    assert_eq!(registry.route("b.slow").map(|r| r.upstream), Some(2));
}

#[test]
fn filters_see_the_original_name_not_the_prefixed_one() {
    let cfg = config(
        "[servers.a]\ncommand = \"x\"\nprefix = \"gh\"\n[servers.a.tools]\ninclude = [\"gh.*\", \"list_*\"]\n",
    );
    let registry = build(&cfg, &[vec![tool("list_issues"), tool("read")]]).expect("registry");
    assert_eq!(names(&registry), ["gh.list_issues"]);
}

#[test]
fn overrides_change_only_the_three_hints() {
    let cfg = config(
        "[servers.a]\ncommand = \"x\"\n[servers.a.tools.overrides.echo]\nread_only = false\nexternal = true\n",
    );
    let registry = build(&cfg, &[vec![tool("echo"), tool("other")]]).expect("registry");
    let tools = listed(&registry, Era::Legacy);
    let echo = &tools[0];
    assert_eq!(echo["description"], "echo things");
    assert_eq!(echo["inputSchema"], json!({"type": "object"}));
    assert_eq!(
        echo["annotations"],
        json!({"readOnlyHint": false, "idempotentHint": true, "title": "echo", "openWorldHint": true})
    );
    assert_eq!(tools[1], Value::Object(tool("other")));
}

#[test]
fn an_override_creates_annotations_when_there_are_none() {
    let cfg = config(
        "[servers.a]\ncommand = \"x\"\n[servers.a.tools.overrides.bare]\ndestructive = true\n",
    );
    let mut bare = tool("bare");
    bare.remove("annotations");
    let registry = build(&cfg, &[vec![bare]]).expect("registry");
    let value = &listed(&registry, Era::Legacy)[0];
    assert_eq!(value["annotations"], json!({"destructiveHint": true}));
}

#[test]
fn task_required_tools_are_not_advertised() {
    let cfg = config("[servers.a]\ncommand = \"x\"\n");
    let mut required = tool("required");
    required.insert("execution".into(), json!({"taskSupport": "required"}));
    let mut optional = tool("optional");
    optional.insert("execution".into(), json!({"taskSupport": "optional"}));
    let registry = build(&cfg, &[vec![required, optional]]).expect("registry");
    assert_eq!(names(&registry), ["optional"]);
}

#[test]
fn outward_collisions_fail_startup() {
    let cfg = config("[servers.a]\ncommand = \"x\"\n[servers.b]\ncommand = \"x\"\n");
    let e = build(&cfg, &[vec![tool("echo")], vec![tool("echo")]]).expect_err("collision");
    assert_eq!(
        e,
        RegistryError::Collision {
            name: "echo".into(),
            first: InstanceId::try_from("a".to_owned()).expect("id"),
            second: InstanceId::try_from("b".to_owned()).expect("id"),
        }
    );
    // A prefix that recreates an unprefixed name collides too.
    let cfg =
        config("[servers.a]\ncommand = \"x\"\n[servers.b]\ncommand = \"x\"\nprefix = \"gh\"\n");
    assert!(build(&cfg, &[vec![tool("gh.echo")], vec![tool("echo")]]).is_err());
    // Filtered-out duplicates do not collide.
    let cfg = config(
        "[servers.a]\ncommand = \"x\"\n[servers.b]\ncommand = \"x\"\n[servers.b.tools]\nexclude = [\"echo\"]\n",
    );
    assert!(build(&cfg, &[vec![tool("echo")], vec![tool("echo"), tool("x")]]).is_ok());
}

#[test]
fn a_star_in_an_upstream_tool_name_fails_startup() {
    let cfg = config("[servers.a]\ncommand = \"x\"\n[servers.a.tools]\nexclude = [\"*\"]\n");
    let e = build(&cfg, &[vec![tool("list_*")]]).expect_err("star");
    assert!(matches!(e, RegistryError::StarInName { ref tool, .. } if tool == "list_*"));
    assert!(e.to_string().contains("`a`"));
}

#[test]
fn an_override_of_an_unknown_tool_fails_startup() {
    let cfg = config(
        "[servers.a]\ncommand = \"x\"\n[servers.a.tools.overrides.ecko]\nread_only = true\n",
    );
    let e = build(&cfg, &[vec![tool("echo")]]).expect_err("unknown");
    assert!(
        e.to_string().contains("servers.a.tools.overrides.ecko"),
        "{e}"
    );
    // A filtered-out tool is still advertised by the upstream: overriding it is fine.
    let cfg = config(
        "[servers.a]\ncommand = \"x\"\n[servers.a.tools]\ninclude = [\"x\"]\n[servers.a.tools.overrides.echo]\nread_only = true\n",
    );
    assert!(build(&cfg, &[vec![tool("echo"), tool("x")]]).is_ok());
}

#[test]
fn nothing_to_serve_fails_startup() {
    let cfg = config("[servers.a]\ncommand = \"x\"\n[servers.a.tools]\ninclude = []\n");
    assert_eq!(
        build(&cfg, &[vec![tool("echo")]]).expect_err("empty"),
        RegistryError::Empty
    );
    assert_eq!(
        Registry::build(&[]).expect_err("empty"),
        RegistryError::Empty
    );
}

#[test]
fn entries_are_the_upstreams_text_and_each_generation_gets_its_own() {
    let cfg = config("[servers.a]\ncommand = \"x\"\nprefix = \"p\"\n");
    let text = r#"{"inputSchema":{"type":"object","maximum":1.0E3},"name":"odd","execution":{"taskSupport":"forbidden"},"outputSchema":{"type":"array"},"x-future":12345678901234567890123}"#;
    let tools = vec![RawValue::from_string(text.to_owned()).expect("raw")];
    let listed = [Listed {
        config: &cfg.servers[0],
        tools: &tools,
    }];
    let registry = Registry::build(&listed).expect("registry");
    assert_eq!(
        registry.list_result(Era::Modern),
        format!(
            r#"{{"resultType":"complete","ttlMs":0,"cacheScope":"private","tools":[{}]}}"#,
            text.replace(r#""name":"odd""#, r#""name":"p.odd""#)
        )
    );
    assert_eq!(
        registry.list_result(Era::Legacy),
        r#"{"tools":[{"inputSchema":{"type":"object","maximum":1.0E3},"name":"p.odd","execution":{"taskSupport":"forbidden"},"x-future":12345678901234567890123}]}"#
    );
    assert_eq!(registry.len(), 1);
}

#[test]
fn tools_without_an_object_input_schema_are_not_advertised() {
    let cfg = config("[servers.a]\ncommand = \"x\"\n");
    let mut bad = tool("bad");
    bad.insert("inputSchema".into(), json!("string"));
    let registry = build(&cfg, &[vec![bad, tool("good")]]).expect("registry");
    assert_eq!(names(&registry), ["good"]);
}
