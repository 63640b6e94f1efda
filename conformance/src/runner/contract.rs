//! The `contract` step: `tools/list` compared with a contract surface file.
//!
//! A surface file lists, per tool, its annotations (snake_case hint names, `null` for
//! "not set") and the property names and required fields of its input and output schemas
//! (the shape of `toolhub-contract-v1-surface.json`). Descriptions, titles and schema details
//! are deliberately not compared: they are an implementation's own.

use serde_json::{Value, json};
use std::collections::BTreeSet;
use std::path::Path;

/// Reads and checks a surface file (beside a built-in scenario: the embedded copy).
pub fn load_surface(path: &Path) -> Result<Value, String> {
    let text = match crate::builtin::read(path) {
        Some(text) => text.to_string(),
        None => std::fs::read_to_string(path)
            .map_err(|e| format!("contract: cannot read {}: {e}", path.display()))?,
    };
    let surface: Value = serde_json::from_str(&text)
        .map_err(|e| format!("contract: {} is not JSON: {e}", path.display()))?;
    if !surface.get("tools").is_some_and(Value::is_object) {
        return Err(format!(
            "contract: {} has no `tools` object",
            path.display()
        ));
    }
    Ok(surface)
}

/// The annotation field of MCP for a surface hint name (`read_only_hint` -> `readOnlyHint`).
fn camel(name: &str) -> String {
    let mut out = String::new();
    let mut upper = false;
    for c in name.chars() {
        if c == '_' {
            upper = true;
        } else if upper {
            out.extend(c.to_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

fn names(v: Option<&Value>) -> BTreeSet<String> {
    match v {
        Some(Value::Array(items)) => items
            .iter()
            .filter_map(|i| i.as_str().map(String::from))
            .collect(),
        Some(Value::Object(map)) => map.keys().cloned().collect(),
        _ => BTreeSet::new(),
    }
}

/// `{tools, missing, extra, mismatches}`: tool names the surface lists but the server does
/// not, tools the server lists beyond the surface, and per-field differences.
pub fn compare(surface: &Value, listed: &Value) -> Value {
    let expected = surface["tools"].as_object().cloned().unwrap_or_default();
    let tools: Vec<&Value> = listed
        .as_array()
        .map(|a| a.iter().collect())
        .unwrap_or_default();
    let listed_names: BTreeSet<String> = tools
        .iter()
        .filter_map(|t| t.get("name").and_then(Value::as_str).map(String::from))
        .collect();
    let missing: Vec<&String> = expected
        .keys()
        .filter(|n| !listed_names.contains(*n))
        .collect();
    let extra: Vec<&String> = listed_names
        .iter()
        .filter(|n| !expected.contains_key(*n))
        .collect();
    let mut mismatches = Vec::new();
    for tool in &tools {
        let Some(name) = tool.get("name").and_then(Value::as_str) else {
            continue;
        };
        let Some(want) = expected.get(name) else {
            continue;
        };
        let mut differ = |field: String, expected: Value, actual: Value| {
            if expected != actual {
                mismatches.push(
                    json!({"tool": name, "field": field, "expected": expected, "actual": actual}),
                );
            }
        };
        if let Some(hints) = want.get("annotations").and_then(Value::as_object) {
            for (hint, value) in hints {
                let field = camel(hint);
                let actual = tool
                    .pointer(&format!("/annotations/{field}"))
                    .cloned()
                    .unwrap_or(Value::Null);
                differ(format!("annotations.{field}"), value.clone(), actual);
            }
        }
        for (side, schema_key) in [("input", "inputSchema"), ("output", "outputSchema")] {
            let Some(spec) = want.get(side) else {
                continue;
            };
            let schema = tool.get(schema_key);
            let props = names(schema.and_then(|s| s.get("properties")));
            let required = names(schema.and_then(|s| s.get("required")));
            differ(
                format!("{schema_key}.properties"),
                json!(names(spec.get("properties"))),
                json!(props),
            );
            differ(
                format!("{schema_key}.required"),
                json!(names(spec.get("required"))),
                json!(required),
            );
        }
    }
    json!({
        "tools": tools.len(),
        "missing": missing,
        "extra": extra,
        "mismatches": mismatches,
    })
}

/// True when nothing differs.
pub fn is_clean(obs: &Value) -> bool {
    ["missing", "extra", "mismatches"]
        .iter()
        .all(|k| obs[k].as_array().is_some_and(Vec::is_empty))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compares_names_hints_and_fields() {
        let surface = json!({"tools": {
            "a": {"annotations": {"read_only_hint": true, "idempotent_hint": null},
                  "input": {"properties": ["x"], "required": ["x"]},
                  "output": {"properties": [], "required": []}},
            "b": {}
        }});
        let good = json!([{"name": "a", "annotations": {"readOnlyHint": true},
                           "inputSchema": {"type": "object", "properties": {"x": {}}, "required": ["x"]}},
                          {"name": "b"}]);
        assert!(is_clean(&compare(&surface, &good)));
        let bad = json!([{"name": "a", "annotations": {"readOnlyHint": false, "idempotentHint": true},
                          "inputSchema": {"type": "object", "properties": {"x": {}, "y": {}}}},
                         {"name": "c"}]);
        let obs = compare(&surface, &bad);
        assert_eq!(obs["missing"], json!(["b"]));
        assert_eq!(obs["extra"], json!(["c"]));
        assert_eq!(obs["mismatches"].as_array().map(Vec::len), Some(4));
    }
}
