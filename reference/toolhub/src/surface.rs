//! The normalized Contract V1 surface: what `fixtures/contract_v1.json` locks.
//!
//! [`surface_from_tools`] turns a `tools/list` result into the surface: per tool its
//! annotation hints (`null` = not set), the property names and required fields of its input and
//! output schemas, and a SHA-256 digest of each schema normalized by [`normalize_schema`]
//! (descriptions and titles removed, keys sorted, compact). Stable enums and the approval
//! mappings come from [`crate::contract`]. The shape is a superset of the public surface file
//! (`fixtures/toolhub-contract-v1-surface.json`), so the conformance suite's `contract` step can
//! read either.

use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

use mcp_safety_core::approvals::Operation;

use crate::contract::{ApprovalStatus, CONTRACT_VERSION, Outcome};

const HINTS: [(&str, &str); 4] = [
    ("destructive_hint", "destructiveHint"),
    ("idempotent_hint", "idempotentHint"),
    ("open_world_hint", "openWorldHint"),
    ("read_only_hint", "readOnlyHint"),
];

/// Removes cosmetic keywords (`description`, `title`, `examples`) everywhere, except where
/// they are property names inside a `properties` map, and sorts object keys.
pub fn normalize_schema(schema: &Value) -> Value {
    normalize(schema, false)
}

fn normalize(v: &Value, in_properties: bool) -> Value {
    match v {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            let mut out = Map::new();
            for k in keys {
                if !in_properties && matches!(k.as_str(), "description" | "title" | "examples") {
                    continue;
                }
                let child_is_properties = !in_properties
                    && matches!(
                        k.as_str(),
                        "properties" | "$defs" | "definitions" | "patternProperties"
                    );
                out.insert(k.clone(), normalize(&map[k], child_is_properties));
            }
            Value::Object(out)
        }
        Value::Array(items) => Value::Array(items.iter().map(|i| normalize(i, false)).collect()),
        other => other.clone(),
    }
}

/// Lowercase hex SHA-256 of the canonical (normalized, compact) serialization.
pub fn schema_digest(schema: &Value) -> String {
    let canonical = serde_json::to_string(&normalize_schema(schema)).unwrap_or_default();
    mcp_safety_core::digest::to_hex(&Sha256::digest(canonical.as_bytes()))
}

fn sorted_names(v: Option<&Value>) -> Vec<String> {
    let mut names: Vec<String> = match v {
        Some(Value::Object(m)) => m.keys().cloned().collect(),
        Some(Value::Array(a)) => a
            .iter()
            .filter_map(|s| s.as_str().map(String::from))
            .collect(),
        _ => Vec::new(),
    };
    names.sort();
    names
}

fn side(schema: Option<&Value>) -> Value {
    json!({
        "properties": sorted_names(schema.and_then(|s| s.get("properties"))),
        "required": sorted_names(schema.and_then(|s| s.get("required"))),
        "schema_sha256": schema.map(schema_digest),
    })
}

/// The surface of a `tools/list` `tools` array (MCP wire shape).
pub fn surface_from_tools(tools: &[Value]) -> Value {
    let mut by_name: Vec<(&str, &Value)> = tools
        .iter()
        .filter_map(|t| t.get("name").and_then(Value::as_str).map(|n| (n, t)))
        .collect();
    by_name.sort_by(|a, b| a.0.cmp(b.0));
    let mut out = Map::new();
    for (name, tool) in by_name {
        let mut hints = Map::new();
        for (snake, camel) in HINTS {
            hints.insert(
                snake.to_string(),
                tool.pointer(&format!("/annotations/{camel}"))
                    .cloned()
                    .unwrap_or(Value::Null),
            );
        }
        out.insert(
            name.to_string(),
            json!({
                "annotations": hints,
                "input": side(tool.get("inputSchema")),
                "output": side(tool.get("outputSchema")),
            }),
        );
    }
    let mut ops: Vec<Value> = Operation::ALL
        .iter()
        .map(|op| json!({"initial_tool": op.initial_tool(), "resume_tool": op.resume_tool()}))
        .collect();
    ops.sort_by_key(|v| v["initial_tool"].as_str().map(String::from));
    json!({
        "note": "Contract V1 surface of mcp-toolhub: names, annotations, fields, required fields and normalized schema digests (SHA-256 of each schema with descriptions/titles/examples removed, keys sorted, compact). Regenerate deliberately: see reference/toolhub/README.md.",
        "contract_version": CONTRACT_VERSION,
        "outcomes": Outcome::ALL.iter().map(|o| o.as_str()).collect::<Vec<_>>(),
        "approval_statuses": ApprovalStatus::ALL.iter().map(|s| s.as_str()).collect::<Vec<_>>(),
        "approval_operations": ops,
        "tools": out,
    })
}

/// The surface facts the public surface file states (no digests, no note): used to compare
/// our surface with `fixtures/toolhub-contract-v1-surface.json`.
pub fn facts(surface: &Value) -> Value {
    let mut tools = Map::new();
    if let Some(map) = surface.get("tools").and_then(Value::as_object) {
        for (name, t) in map {
            let side = |k: &str| {
                json!({
                    "properties": sorted_names(t.pointer(&format!("/{k}/properties"))),
                    "required": sorted_names(t.pointer(&format!("/{k}/required"))),
                })
            };
            tools.insert(
                name.clone(),
                json!({
                    "annotations": t.get("annotations").cloned().unwrap_or(Value::Null),
                    "input": side("input"),
                    "output": side("output"),
                }),
            );
        }
    }
    let mut ops = surface
        .get("approval_operations")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    ops.sort_by_key(|v| v["initial_tool"].as_str().map(String::from));
    json!({
        "contract_version": surface.get("contract_version"),
        "outcomes": surface.get("outcomes"),
        "approval_statuses": surface.get("approval_statuses"),
        "approval_operations": ops,
        "tools": tools,
    })
}

/// Pretty, key-sorted JSON (stable text for fixtures and diffs).
pub fn pretty(v: &Value) -> String {
    let mut s = serde_json::to_string_pretty(&sort_keys(v)).unwrap_or_default();
    s.push('\n');
    s
}

fn sort_keys(v: &Value) -> Value {
    match v {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            Value::Object(
                keys.into_iter()
                    .map(|k| (k.clone(), sort_keys(&map[k])))
                    .collect(),
            )
        }
        Value::Array(a) => Value::Array(a.iter().map(sort_keys).collect()),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalization_strips_cosmetics_but_not_property_names() {
        let a = json!({"type": "object", "description": "x", "title": "T",
            "properties": {"title": {"type": "string", "description": "d"}}});
        let b = json!({"properties": {"title": {"type": "string"}}, "type": "object"});
        assert_eq!(normalize_schema(&a), b);
        assert_eq!(schema_digest(&a), schema_digest(&b));
        let c = json!({"type": "object", "properties": {"title": {"type": "integer"}}});
        assert_ne!(schema_digest(&a), schema_digest(&c));
        // Only the maps of property names are exempt, not every object under a schema.
        let items = json!({"items": {"type": "string", "description": "d"}});
        assert_eq!(
            normalize_schema(&items),
            json!({"items": {"type": "string"}})
        );
    }

    #[test]
    fn pretty_sorts_keys_everywhere_and_ends_with_a_newline() {
        let v = json!({"b": 1, "a": [{"d": 1, "c": 2}]});
        assert_eq!(
            pretty(&v),
            "{\n  \"a\": [\n    {\n      \"c\": 2,\n      \"d\": 1\n    }\n  ],\n  \"b\": 1\n}\n"
        );
    }

    #[test]
    fn facts_keep_what_the_public_surface_file_states() {
        let tools = [json!({
            "name": "t",
            "annotations": {"readOnlyHint": true},
            "inputSchema": {"type": "object", "properties": {"b": {}, "a": {}}, "required": ["b"]},
        })];
        let f = facts(&surface_from_tools(&tools));
        assert_eq!(f["contract_version"], CONTRACT_VERSION);
        assert_eq!(f["tools"]["t"]["input"]["properties"], json!(["a", "b"]));
        assert_eq!(f["tools"]["t"]["input"]["required"], json!(["b"]));
        assert_eq!(f["tools"]["t"]["annotations"]["read_only_hint"], true);
        assert!(f.get("note").is_none() && f["tools"]["t"].get("digest").is_none());
    }
}
