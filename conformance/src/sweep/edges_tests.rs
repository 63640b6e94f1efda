//! Tests of the edge cases: each kind of edge made, valid, labelled, within the budget.

#![allow(clippy::unwrap_used)]

use super::*;

fn schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "text": {"type": "string", "minLength": 1, "maxLength": 5},
            "free": {"type": "string"},
            "n": {"type": "integer", "minimum": 1, "maximum": 3},
            "size": {"type": "integer", "exclusiveMinimum": 0, "exclusiveMaximum": 100},
            "ratio": {"type": "number", "exclusiveMinimum": 0, "maximum": 1.5},
            "step": {"type": "integer", "minimum": 1, "maximum": 20, "multipleOf": 5},
            "mode": {"enum": ["a", "b", "c"]},
            "kind": {"const": "fixed"},
            "flag": {"type": "boolean"},
            "tags": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 3,
                     "uniqueItems": true},
            "path": {"anyOf": [{"type": "string"}, {"type": "null"}]},
            "inner": {"$ref": "#/$defs/inner"}
        },
        "required": ["text", "n"],
        "additionalProperties": false,
        "$defs": {"inner": {"type": "object", "properties": {
            "ok": {"type": "boolean"},
            "deep": {"type": "object", "properties": {"depth": {"type": "integer", "maximum": 9}}}
        }}}
    })
}

fn whats(edges: &[Edge]) -> Vec<&str> {
    edges.iter().map(|e| e.what.as_str()).collect()
}

#[test]
fn every_edge_is_there_valid_distinct_and_the_same_every_time() {
    let all = edges(&schema(), 200);
    let validator = jsonschema::validator_for(&schema()).unwrap();
    for e in &all {
        assert!(validator.is_valid(&e.args), "{}: {}", e.what, e.args);
        assert_eq!(all.iter().filter(|o| o.args == e.args).count(), 1, "{e:?}");
    }
    assert_eq!(all, edges(&schema(), 200));
    let found = whats(&all);
    for expected in [
        "text minLength 1",
        "text maxLength 5",
        "free empty string",
        "n minimum 1",
        "n maximum 3",
        "size exclusiveMinimum 0: 1",
        "size exclusiveMaximum 100: 99",
        "ratio exclusiveMinimum 0: 5e-324",
        "ratio maximum 1.5",
        "step minimum 5",
        "step maximum 20",
        "mode enum member \"a\"",
        "mode enum member \"b\"",
        "mode enum member \"c\"",
        "kind const \"fixed\"",
        "flag true",
        "flag false",
        "tags minItems 1",
        "tags maxItems 3",
        "path empty string",
        "path null",
        "inner empty object",
        "inner.ok true",
        "inner.deep.depth maximum 9",
        "only the required properties, at plain values",
    ] {
        assert!(found.contains(&expected), "{expected} in {found:?}");
    }
    let by = |what: &str| &all.iter().find(|e| e.what == what).unwrap().args;
    // One edge on the plain set: the required properties at plain values, inside the bounds
    // and off the edges; an optional property alone beside them.
    assert_eq!(
        *by("only the required properties, at plain values"),
        json!({"text": "a", "n": 2})
    );
    assert_eq!(*by("n maximum 3"), json!({"text": "a", "n": 3}));
    assert_eq!(*by("text maxLength 5"), json!({"text": "xxxxx", "n": 2}));
    assert_eq!(*by("flag true"), json!({"text": "a", "n": 2, "flag": true}));
    assert_eq!(
        *by("tags maxItems 3"),
        json!({"text": "a", "n": 2, "tags": ["a", "a1", "a2"]})
    );
    assert_eq!(
        *by("inner.deep.depth maximum 9"),
        json!({"text": "a", "n": 2, "inner": {"deep": {"depth": 9}}})
    );
}

#[test]
fn the_budget_keeps_the_first_edges_of_every_property() {
    let members: Vec<Value> = (0..50).map(|i| json!(format!("m{i}"))).collect();
    let schema = json!({"type": "object", "required": ["mode"], "properties": {
        "mode": {"enum": members},
        "count": {"type": "integer", "minimum": 0, "maximum": 10}
    }});
    let kept = edges(&schema, 6);
    assert_eq!(kept.len(), 6);
    let found = whats(&kept);
    assert!(found.contains(&"count minimum 0"), "{found:?}");
    assert!(found.contains(&"count maximum 10"), "{found:?}");
    assert!(found.contains(&"mode enum member \"m3\""), "{found:?}");
    assert_eq!(edges(&schema, 200).len(), 50 + 2);
}

#[test]
fn edges_the_schema_rejects_are_dropped_and_impossible_schemas_give_none() {
    // A pattern no plain string matches: the base comes from a fixed-seed draw, and the
    // length edges the pattern forbids are left out.
    let coded = json!({"type": "object", "required": ["code"], "properties": {
        "code": {"type": "string", "pattern": "^[A-Z]{3}-[0-9]{4}$", "maxLength": 20}
    }});
    let found = edges(&coded, 24);
    assert!(!found.is_empty());
    let validator = jsonschema::validator_for(&coded).unwrap();
    assert!(
        found.iter().all(|e| validator.is_valid(&e.args)),
        "{found:?}"
    );
    assert!(!whats(&found).contains(&"code maxLength 20"));
    let never = json!({"type": "object", "properties": {"x": false}, "required": ["x"]});
    assert!(edges(&never, 24).is_empty());
    let none = edges(
        &json!({"type": "object", "additionalProperties": false}),
        24,
    );
    assert_eq!(whats(&none), vec!["no arguments"]);
    assert_eq!(none[0].args, json!({}));
    // Too long to send: no case, rather than a megabyte string.
    let huge =
        json!({"type": "object", "properties": {"t": {"type": "string", "maxLength": 10_000_000}}});
    assert!(
        !whats(&edges(&huge, 24))
            .iter()
            .any(|w| w.contains("maxLength"))
    );
}
