//! Failing cases kept as regression tests: a sweep's failing scenario cut down to what it
//! needs (the session opened, the one step that failed, and the liveness check when that was
//! the step) and written out, with the target it ran on, as files `mcp-conformance run`
//! replays.

use std::path::{Path, PathBuf};

use serde_json::Value;

/// `scenario` (a sweep scenario document) reduced to its first step and step `failed`; the
/// whole scenario when the failure was its last step (a server that stopped answering may
/// have been stopped by any call before). Named after the step it keeps.
pub fn shrink(scenario: &Value, failed: usize) -> Value {
    let Some(steps) = scenario.get("steps").and_then(Value::as_array) else {
        return scenario.clone();
    };
    if failed == 0 || failed + 1 >= steps.len() {
        return scenario.clone();
    }
    // A liveness check that failed keeps what came before it back to the line that was sent
    // (that line stopped the server; a check of its answer may stand between them).
    let after = steps[failed]
        .get("label")
        .and_then(Value::as_str)
        .is_some_and(|l| l.starts_with("the server still answers after"));
    let sent = |step: &Value| step.get("send").is_some() || step.get("send_bytes").is_some();
    let from = if after {
        (1..failed)
            .rev()
            .find(|&i| sent(&steps[i]))
            .unwrap_or(failed)
    } else {
        failed
    };
    let mut kept = vec![steps[0].clone()];
    kept.extend(steps[from..=failed].iter().cloned());
    let mut out = scenario.clone();
    out["steps"] = Value::Array(kept);
    let name = scenario
        .get("name")
        .and_then(Value::as_str)
        .unwrap_or("sweep");
    out["name"] = Value::String(format!("{name}/step-{failed}"));
    out
}

/// Argument sets one edit simpler than `args` (a property left out; a string, number, array,
/// object or `true` made empty, zero or false) that `schema` still accepts: the candidates a
/// failing valid call is shrunk through.
pub fn simpler(args: &Value, schema: &Value) -> Vec<Value> {
    let (Ok(validator), Some(map)) = (jsonschema::validator_for(schema), args.as_object()) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for key in map.keys() {
        let mut fewer = map.clone();
        fewer.remove(key);
        out.push(Value::Object(fewer));
    }
    for (key, value) in map {
        let smaller = match value {
            Value::String(s) if !s.is_empty() => Some(Value::String(String::new())),
            Value::Number(n) if n.as_f64() != Some(0.0) => Some(Value::from(0)),
            Value::Array(a) if !a.is_empty() => Some(Value::Array(Vec::new())),
            Value::Object(o) if !o.is_empty() => Some(Value::Object(serde_json::Map::new())),
            Value::Bool(true) => Some(Value::Bool(false)),
            _ => None,
        };
        if let Some(smaller) = smaller {
            let mut simpler = map.clone();
            simpler.insert(key.clone(), smaller);
            out.push(Value::Object(simpler));
        }
    }
    out.retain(|candidate| validator.is_valid(candidate));
    out
}

/// A file name for scenario `name`: its characters outside `[A-Za-z0-9._-]` as `_`.
pub fn file_name(name: &str) -> String {
    let safe: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect();
    format!("{safe}.yaml")
}

/// Writes `scenarios` (documents) and `target` (a target file's text) into `dir`; returns the
/// target file's path.
pub fn write(dir: &Path, target: &str, scenarios: &[Value]) -> std::io::Result<PathBuf> {
    std::fs::create_dir_all(dir)?;
    let target_path = dir.join("target.yaml");
    std::fs::write(&target_path, target)?;
    let scenario_dir = dir.join("scenarios");
    std::fs::create_dir_all(&scenario_dir)?;
    for scenario in scenarios {
        let name = scenario
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or("sweep");
        let text = serde_saphyr::to_string(scenario).map_err(std::io::Error::other)?;
        std::fs::write(scenario_dir.join(file_name(name)), text)?;
    }
    Ok(target_path)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_failing_call_keeps_the_session_and_itself_and_a_dead_server_keeps_everything() {
        let s = json!({"name": "sweep/tool/x/valid", "steps": [
            {"initialize": {}}, {"call": "x", "args": {"a": 1}}, {"call": "x", "args": {"a": 2}},
            {"list_tools": {}}]});
        let cut = shrink(&s, 2);
        assert_eq!(cut["name"], "sweep/tool/x/valid/step-2");
        assert_eq!(
            cut["steps"],
            json!([{"initialize": {}}, {"call": "x", "args": {"a": 2}}])
        );
        assert_eq!(shrink(&s, 3), s);
        let fuzz = json!({"name": "sweep/protocol/fuzz", "steps": [
            {"initialize": {}}, {"send": "a"}, {"list_tools": {}, "label": "the server still answers after a"},
            {"send": "b"}, {"expect_message": {"id": 1}},
            {"list_tools": {}, "label": "the server still answers after b"}, {"stdout": {}}]});
        let cut = shrink(&fuzz, 5);
        assert_eq!(cut["steps"].as_array().map(Vec::len), Some(4), "{cut}");
        assert_eq!(cut["steps"][1], json!({"send": "b"}));
        let schema = json!({"type": "object", "required": ["a"],
                            "properties": {"a": {"type": "integer"}, "b": {"type": "string", "minLength": 1}}});
        let candidates = simpler(&json!({"a": 5, "b": "xyz"}), &schema);
        assert_eq!(
            candidates,
            vec![json!({"a": 5}), json!({"a": 0, "b": "xyz"})]
        );
        assert_eq!(
            file_name("sweep/tool/a b/valid [modern]"),
            "sweep_tool_a_b_valid__modern_.yaml"
        );
    }
}
