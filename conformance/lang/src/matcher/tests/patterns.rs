//! Pattern validation: errors that point into the pattern, and compiled patterns.

#![allow(clippy::unwrap_used)]

use super::*;
use serde_json::json;

#[test]
fn pattern_errors_point_into_the_pattern() {
    let cases = [
        (
            json!({"a": {"$lenn": 1}}),
            "$.a.$lenn",
            "did you mean `$len`?",
        ),
        (
            json!({"$frobnicate": 1}),
            "$.$frobnicate",
            "known operators",
        ),
        (json!({"$len": "x"}), "$.$len", "non-negative integer"),
        (json!({"$len": -1}), "$.$len", "non-negative integer"),
        (json!({"$len": 1.5}), "$.$len", "non-negative integer"),
        (json!({"$len": {"a": 1}}), "$.$len", "operator pattern"),
        (
            json!({"$len": {"$gte": "1"}}),
            "$.$len.$gte",
            "takes a number",
        ),
        (json!({"$type": "strng"}), "$.$type", "unknown type `strng`"),
        (json!({"$type": ["string", 1]}), "$.$type[1]", "type name"),
        (json!({"$type": []}), "$.$type", "non-empty"),
        (json!({"$regex": "("}), "$.$regex", "invalid regex"),
        (json!({"$regex": 1}), "$.$regex", "takes a string"),
        (json!({"$absent": false}), "$.$absent", "only takes `true`"),
        (
            json!({"$absent": true, "$type": "null"}),
            "$",
            "cannot be combined",
        ),
        (json!({"$any": false}), "$.$any", "only takes `true`"),
        (json!({"a": 1, "$len": 1}), "$", "cannot be mixed"),
        (json!({"$one_of": []}), "$.$one_of", "non-empty list"),
        (
            json!({"$one_of": [1, {"$x": 1}]}),
            "$.$one_of[1].$x",
            "unknown operator",
        ),
        (
            json!({"$unordered": {}}),
            "$.$unordered",
            "list of patterns",
        ),
        (
            json!({"$has_keys": "a"}),
            "$.$has_keys",
            "list of key names",
        ),
        (json!({"$keys": ["a", 1]}), "$.$keys[1]", "strings"),
        (json!({"$keys": ["a", "a"]}), "$.$keys[1]", "twice"),
        (json!({"$gt": null}), "$.$gt", "takes a number"),
        (
            json!({"$not": {"$regex": "["}}),
            "$.$not.$regex",
            "invalid regex",
        ),
        (
            json!({"$each": {"$absent": 1}}),
            "$.$each.$absent",
            "only takes `true`",
        ),
        (
            json!({"$json": {"a": {"$tpye": "x"}}}),
            "$.$json.a.$tpye",
            "did you mean `$type`?",
        ),
        (
            json!({"$contains": {"$q": 1}}),
            "$.$contains.$q",
            "unknown operator",
        ),
        (
            json!([{"a b": {"$": 1}}]),
            r#"$[0]["a b"].$"#,
            "unknown operator",
        ),
    ];
    for (pattern, path, message) in cases {
        let e = pattern_error(pattern.clone());
        assert_eq!(e.path, path, "{pattern}: {e}");
        assert!(e.message.contains(message), "{pattern}: {e}");
    }
}

#[test]
fn pattern_error_display() {
    let e = pattern_error(json!({"x": {"$type": "strng"}}));
    assert_eq!(
        e.to_string(),
        "at $.x.$type: unknown type `strng`; expected one of string, number, integer, boolean, \
         object, array, null"
    );
}

#[test]
fn exact_argument_is_not_validated_as_a_pattern() {
    check_pattern(&json!({"$exact": {"$bogus": 1, "a": 2}})).unwrap();
}

#[test]
fn matching_an_invalid_pattern_is_a_mismatch_not_a_panic() {
    let m = matches(&json!({"a": {"$regex": "("}}), &json!({"a": "("})).unwrap_err();
    assert_eq!(m.path, "$");
    assert!(
        m.reason.starts_with("invalid pattern: at $.a.$regex:"),
        "{}",
        m.reason
    );
}

#[test]
fn compiled_pattern_is_reusable() {
    let p = Pattern::compile(&json!({"n": {"$gt": 0}})).unwrap();
    assert!(p.matches(&json!({"n": 1})).is_ok());
    assert!(p.matches(&json!({"n": 0})).is_err());
    assert_eq!(p.as_json(), &json!({"n": {"$gt": 0}}));
}

#[test]
fn a_variable_key_is_a_plain_key_not_an_operator() {
    // Checked at load time with its `${...}` unexpanded; matched once expanded.
    let p = Pattern::compile(&json!({"${key}": {"$type": "object"}, "other": 1})).unwrap();
    assert!(p.matches(&json!({"${key}": {}, "other": 1})).is_ok());
    assert!(Pattern::compile(&json!({"${key}": 1, "$len": 1})).is_err());
}
