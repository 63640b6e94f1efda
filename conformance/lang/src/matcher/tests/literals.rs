//! Literals, objects and arrays: equality, subsets, paths of mismatches, odd and `$$` keys.

use super::*;
use serde_json::json;

#[test]
fn scalars_match_by_equality() {
    ok(json!("a"), json!("a"));
    ok(json!(null), json!(null));
    ok(json!(true), json!(true));
    let m = bad_at(json!("a"), json!("b"), "$");
    assert_eq!(m.reason, r#"expected "a", got "b""#);
    bad_at(json!("1"), json!(1), "$");
    bad_at(json!(null), json!(false), "$");
    bad_at(json!(0), json!(false), "$");
}

#[test]
fn numbers_compare_numerically() {
    ok(json!(1), json!(1.0));
    ok(json!(1.0), json!(1));
    ok(json!(-0.0), json!(0));
    ok(json!(u64::MAX), json!(u64::MAX));
    bad_at(json!(1), json!(1.5), "$");
    bad_at(json!(-1), json!(u64::MAX), "$");
    // Exact across int/float: 2^53 + 1 is not the float 2^53.
    bad_at(
        json!(9_007_199_254_740_993_u64),
        json!(9_007_199_254_740_992.0),
        "$",
    );
}

#[test]
fn objects_match_as_subsets() {
    ok(json!({"a": 1}), json!({"a": 1, "b": 2}));
    ok(json!({}), json!({"a": 1}));
    let m = bad_at(
        json!({"structured": {"approval": {"request_id": "r1"}}}),
        json!({"structured": {"approval": {"request_id": "r2"}}}),
        "$.structured.approval.request_id",
    );
    assert_eq!(m.expected, json!("r1"));
    assert_eq!(m.actual, Some(json!("r2")));
    let m = bad_at(json!({"a": {}}), json!({"a": []}), "$.a");
    assert_eq!(m.reason, "expected an object, got an array of 0 element(s)");
}

#[test]
fn missing_key_is_a_mismatch_at_its_path() {
    let m = bad_at(json!({"a": {"b": 1}}), json!({"a": {}}), "$.a.b");
    assert_eq!(m.actual, None);
    assert_eq!(m.reason, "key is missing");
    // Even a null pattern needs the key.
    bad_at(json!({"a": null}), json!({}), "$.a");
}

#[test]
fn arrays_match_elementwise_with_the_same_length() {
    ok(json!([1, {"a": 2}]), json!([1, {"a": 2, "b": 3}]));
    let m = bad_at(json!([1, 2]), json!([1, 2, 3]), "$");
    assert_eq!(m.reason, "expected an array of 2 element(s), got 3");
    bad_at(
        json!({"content": [{"text": "x"}]}),
        json!({"content": [{"text": "y"}]}),
        "$.content[0].text",
    );
    bad_at(json!([]), json!({}), "$");
}

#[test]
fn odd_keys_are_bracketed_in_paths() {
    bad_at(json!({"a b": 1}), json!({"a b": 2}), r#"$["a b"]"#);
    bad_at(
        json!({"x": {"0": 1}}),
        json!({"x": {"0": 2}}),
        r#"$.x["0"]"#,
    );
    bad_at(json!({"": 1}), json!({"": 2}), r#"$[""]"#);
    bad_at(
        json!({"content-type": "a"}),
        json!({"content-type": "b"}),
        "$.content-type",
    );
    bad_at(json!({"q\"": 1}), json!({"q\"": 2}), r#"$["q\""]"#);
}

#[test]
fn doubled_dollar_matches_a_literal_dollar_key() {
    ok(json!({"$$ref": "#/a"}), json!({"$ref": "#/a"}));
    ok(json!({"$$$x": 1}), json!({"$$x": 1}));
    bad_at(json!({"$$ref": "#/a"}), json!({"$ref": "#/b"}), "$.$ref");
    bad_at(json!({"$$ref": "#/a"}), json!({"$$ref": "#/a"}), "$.$ref");
    // Escaped keys are plain keys, so they mix with other plain keys.
    ok(json!({"$$ref": 1, "a": 2}), json!({"$ref": 1, "a": 2}));
}
