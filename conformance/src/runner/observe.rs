//! What steps observe, as JSON objects that `expect` patterns match and `save` reads.

use serde_json::{Map, Value, json};

/// The response of a request without its envelope: `{result}` or `{error}`.
pub fn response_observation(response: &Value) -> Value {
    let mut out = Map::new();
    for key in ["result", "error"] {
        if let Some(v) = response.get(key) {
            out.insert(key.to_string(), v.clone());
        }
    }
    Value::Object(out)
}

/// A `tools/call` response as scenarios see it: `{result, isError, structured, content,
/// text}` for a result (structured is absent when the server sent none; `isError` defaults
/// to false as the specification says), `{error}` for a JSON-RPC error, and `progress` with
/// the progress notifications received for the call.
pub fn call_observation(response: &Value, progress: Vec<Value>) -> Value {
    let mut out = Map::new();
    if let Some(result) = response.get("result") {
        out.insert("result".into(), result.clone());
        let is_error = result.get("isError").cloned().unwrap_or(Value::Bool(false));
        out.insert("isError".into(), is_error);
        if let Some(s) = result.get("structuredContent") {
            out.insert("structured".into(), s.clone());
        }
        let content = result.get("content").cloned().unwrap_or(Value::Null);
        let text: Vec<&str> = content
            .as_array()
            .map(|items| {
                items
                    .iter()
                    .filter(|c| c.get("type").and_then(Value::as_str) == Some("text"))
                    .filter_map(|c| c.get("text").and_then(Value::as_str))
                    .collect()
            })
            .unwrap_or_default();
        out.insert("content".into(), content.clone());
        out.insert("text".into(), Value::String(text.join("\n")));
    }
    if let Some(e) = response.get("error") {
        out.insert("error".into(), e.clone());
    }
    out.insert(
        "progress".into(),
        Value::Array(
            progress
                .into_iter()
                .map(|p| p.get("params").cloned().unwrap_or(Value::Null))
                .collect(),
        ),
    );
    Value::Object(out)
}

/// Whether a call's result conforms to the `outputSchema` its tool declared (the
/// specification: "Servers MUST provide structured results that conform to this schema"):
/// `null` when no schema is known (none declared, or no `tools/list` seen in this session);
/// `{valid: null}` for an error result without `structuredContent`; else `{valid: true}`, or
/// `{valid: false, error}` with the first violation (or the missing `structuredContent`).
pub fn output_check(schema: Option<&Value>, observation: &Value) -> Value {
    let Some(schema) = schema else {
        return Value::Null;
    };
    let is_error = observation.get("isError") == Some(&Value::Bool(true));
    let Some(structured) = observation.get("structured") else {
        return if is_error || observation.get("error").is_some() {
            json!({"valid": null})
        } else {
            json!({"valid": false, "error": "the result has no structuredContent"})
        };
    };
    let validator = match jsonschema::validator_for(schema) {
        Ok(v) => v,
        Err(e) => {
            return json!({"valid": false, "error": format!("the declared outputSchema is not usable: {e}")});
        }
    };
    match validator.iter_errors(structured).next() {
        None => json!({"valid": true}),
        Some(e) => json!({"valid": false, "error": format!("at {}: {e}", e.instance_path())}),
    }
}

/// `{exited, code, signal}` for a server that was stopped or waited for.
pub fn exit_observation(status: Option<std::process::ExitStatus>) -> Value {
    use std::os::unix::process::ExitStatusExt;
    json!({
        "exited": status.is_some(),
        "code": status.and_then(|s| s.code()),
        "signal": status.and_then(|s| s.signal()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_result_is_held_against_the_declared_output_schema() {
        let schema =
            json!({"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]});
        let ok = json!({"isError": false, "structured": {"n": 1}});
        assert_eq!(output_check(Some(&schema), &ok), json!({"valid": true}));
        let wrong = json!({"isError": false, "structured": {"n": "x"}});
        assert_eq!(output_check(Some(&schema), &wrong)["valid"], json!(false));
        let missing = json!({"isError": false});
        assert_eq!(output_check(Some(&schema), &missing)["valid"], json!(false));
        let refused = json!({"isError": true});
        assert_eq!(
            output_check(Some(&schema), &refused),
            json!({"valid": null})
        );
        assert_eq!(output_check(None, &ok), Value::Null);
    }

    #[test]
    fn call_shapes() {
        let ok = json!({"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"a"},{"type":"text","text":"b"}],"structuredContent":{"x":1}}});
        let o = call_observation(&ok, vec![]);
        assert_eq!(o["isError"], json!(false));
        assert_eq!(o["structured"], json!({"x":1}));
        assert_eq!(o["text"], json!("a\nb"));
        let err = json!({"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"m"}});
        let o = call_observation(&err, vec![]);
        assert!(o.get("isError").is_none());
        assert_eq!(o["error"]["code"], json!(-32602));
    }
}
