//! The JSON Schema operators: `$schema: SCHEMA` (the value is valid against an inline JSON
//! Schema) and `$is_schema: true` (the value is itself a valid JSON Schema). They let a
//! scenario check what the specification states as a schema (a tool's declared
//! `outputSchema`, the shape of a `CallToolResult`) without restating it operator by
//! operator. Validation is the `jsonschema` crate's: 2020-12 unless the schema's `$schema`
//! names another draft, as the specification says; no remote reference is ever fetched.

use std::fmt;
use std::sync::Arc;

use serde_json::Value;

/// A schema compiled once, when the pattern is.
#[derive(Clone)]
pub(super) struct SchemaCheck {
    validator: Arc<jsonschema::Validator>,
}

impl fmt::Debug for SchemaCheck {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SchemaCheck")
    }
}

impl SchemaCheck {
    /// Compiles `schema`; its mistakes (not a schema, an unknown draft, a reference that
    /// cannot be resolved locally) are the pattern's, reported before any server runs.
    pub(super) fn compile(schema: &Value) -> Result<SchemaCheck, String> {
        if let Err(e) = jsonschema::meta::validate(schema) {
            return Err(format!(
                "the argument of `$schema` is not a valid JSON Schema: {e}"
            ));
        }
        let validator = jsonschema::validator_for(schema)
            .map_err(|e| format!("the argument of `$schema` cannot be compiled: {e}"))?;
        Ok(SchemaCheck {
            validator: Arc::new(validator),
        })
    }

    /// `Ok` when `value` is valid; else the first violation, with where it is.
    pub(super) fn check(&self, value: &Value) -> Result<(), String> {
        match self.validator.iter_errors(value).next() {
            None => Ok(()),
            Some(e) => Err(located(&e.instance_path().to_string(), &e.to_string())),
        }
    }
}

/// `Ok` when `value` is a valid JSON Schema (against the meta-schema its `$schema` names,
/// 2020-12 when it names none); else why not.
pub(super) fn is_schema(value: &Value) -> Result<(), String> {
    if !matches!(value, Value::Object(_) | Value::Bool(_)) {
        return Err("a JSON Schema is an object (or a boolean)".to_string());
    }
    jsonschema::meta::validate(value).map_err(|e| {
        located(
            &e.instance_path().to_string(),
            &format!("not a valid JSON Schema: {e}"),
        )
    })
}

fn located(pointer: &str, message: &str) -> String {
    if pointer.is_empty() {
        message.to_string()
    } else {
        format!("at {pointer}: {message}")
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_value_is_checked_against_its_schema_with_the_place_of_the_first_violation() {
        let check = SchemaCheck::compile(&json!({
            "type": "object",
            "properties": {"n": {"type": "integer", "minimum": 1}},
            "required": ["n"]
        }))
        .unwrap();
        assert!(check.check(&json!({"n": 2})).is_ok());
        let e = check.check(&json!({"n": 0})).unwrap_err();
        assert!(e.starts_with("at /n:"), "{e}");
        assert!(check.check(&json!({})).is_err());
    }

    #[test]
    fn draft_07_is_honoured_when_named_and_nothing_is_fetched() {
        let check = SchemaCheck::compile(&json!({
            "$schema": "http://json-schema.org/draft-07/schema#",
            "type": "object",
            "properties": {"a": {"type": "number"}}
        }))
        .unwrap();
        assert!(check.check(&json!({"a": 1})).is_ok());
        assert!(SchemaCheck::compile(&json!({"$ref": "https://example.com/remote.json"})).is_err());
    }

    #[test]
    fn schemas_and_non_schemas() {
        assert!(is_schema(&json!({"type": "object"})).is_ok());
        assert!(is_schema(&json!(true)).is_ok());
        assert!(is_schema(&json!({"type": "objekt"})).is_err());
        assert!(is_schema(&json!({"required": "a"})).is_err());
        assert!(is_schema(&json!(null)).is_err());
        assert!(is_schema(&json!("object")).is_err());
    }
}
