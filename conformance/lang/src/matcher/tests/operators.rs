//! The `$` operators, alone and combined.

use super::*;
use serde_json::json;

#[test]
fn regex_is_unanchored() {
    ok(json!({"$regex": "b+"}), json!("abbc"));
    ok(json!({"$regex": "^req-[0-9]+$"}), json!("req-42"));
    let m = bad_at(
        json!({"id": {"$regex": "^req-[0-9]+$"}}),
        json!({"id": "req-4x"}),
        "$.id",
    );
    assert_eq!(m.reason, r#""req-4x" does not match regex /^req-[0-9]+$/"#);
    let m = bad_at(json!({"$regex": "1"}), json!(1), "$");
    assert_eq!(m.reason, "`$regex` needs a string, got 1");
}

#[test]
fn type_names() {
    for (name, value) in [
        ("string", json!("s")),
        ("number", json!(1.5)),
        ("integer", json!(3)),
        ("integer", json!(3.0)),
        ("integer", json!(-3)),
        ("boolean", json!(false)),
        ("object", json!({})),
        ("array", json!([])),
        ("null", json!(null)),
    ] {
        ok(json!({"$type": name}), value);
    }
    ok(json!({"$type": ["string", "null"]}), json!(null));
    bad_at(json!({"$type": "integer"}), json!(1.5), "$");
    bad_at(json!({"$type": "null"}), json!(0), "$");
    let m = bad_at(
        json!({"a": [{"$type": ["string", "null"]}]}),
        json!({"a": [7]}),
        "$.a[0]",
    );
    assert_eq!(m.reason, "expected type string or null, got number 7");
}

#[test]
fn absent_requires_a_missing_key() {
    ok(json!({"error": {"$absent": true}}), json!({"result": 1}));
    let m = bad_at(
        json!({"error": {"$absent": true}}),
        json!({"error": null}),
        "$.error",
    );
    assert_eq!(m.reason, "key must be absent, but it is present: null");
}

#[test]
fn any_requires_a_present_key() {
    ok(json!({"a": {"$any": true}}), json!({"a": null}));
    ok(json!({"a": {"$any": true}}), json!({"a": [1]}));
    let m = bad_at(json!({"a": {"$any": true}}), json!({}), "$.a");
    assert_eq!(m.actual, None);
    assert_eq!(m.reason, "key is missing (`$any` needs a value)");
}

#[test]
fn len_of_strings_arrays_objects() {
    ok(json!({"$len": 3}), json!("héé")); // chars, not bytes
    ok(json!({"$len": 2}), json!([1, 2]));
    ok(json!({"$len": 1}), json!({"a": 1}));
    ok(json!({"$len": {"$gte": 1, "$lt": 3}}), json!([0, 0]));
    let m = bad_at(
        json!({"items": {"$len": {"$gte": 1}}}),
        json!({"items": []}),
        "$.items",
    );
    assert_eq!(
        m.reason,
        "length 0 does not match `$len`: expected a number >= 1, got 0"
    );
    let m = bad_at(json!({"$len": 2}), json!("abc"), "$");
    assert_eq!(
        m.reason,
        "length 3 does not match `$len`: expected 2, got 3"
    );
    bad_at(json!({"$len": 0}), json!(5), "$");
}

#[test]
fn contains_in_arrays_and_strings() {
    ok(
        json!({"$contains": {"name": "echo"}}),
        json!([{"name": "add"}, {"name": "echo", "x": 1}]),
    );
    ok(json!({"$contains": 2}), json!([1, 2.0]));
    ok(json!({"$contains": "ell"}), json!("hello"));
    ok(json!({"$contains": "b"}), json!(["a", "b"]));
    let m = bad_at(
        json!({"tools": {"$contains": {"name": "echo"}}}),
        json!({"tools": [{"title": "x"}, {"name": "add"}]}),
        "$.tools[1].name",
    );
    assert_eq!(
        m.reason,
        r#"none of the 2 element(s) matches `$contains`; closest is [1]: expected "echo", got "add""#
    );
    let m = bad_at(json!({"$contains": "z"}), json!("hello"), "$");
    assert_eq!(m.reason, r#""hello" does not contain "z""#);
    bad_at(json!({"$contains": 1}), json!([]), "$");
    bad_at(json!({"$contains": 1}), json!("1"), "$");
    bad_at(json!({"$contains": "a"}), json!({"a": 1}), "$.a");
}

#[test]
fn contains_in_an_object_looks_at_its_values() {
    let requests = json!({"user_name": {"method": "elicitation/create"},
                          "greeting": {"method": "sampling/createMessage"}});
    ok(
        json!({"$contains": {"method": "sampling/createMessage"}}),
        requests,
    );
    let m = bad_at(
        json!({"$contains": {"method": "roots/list", "params": {}}}),
        json!({"user_name": "not a request", "client_roots": {"method": "roots/get", "params": {}}}),
        "$.client_roots.method",
    );
    assert!(
        m.reason.starts_with(
            r#"none of the 2 value(s) matches `$contains`; closest is "client_roots""#
        ),
        "{}",
        m.reason
    );
    bad_at(json!({"$contains": 1}), json!({}), "$");
}

#[test]
fn numeric_bounds() {
    ok(json!({"$gte": 1, "$lte": 1}), json!(1.0));
    ok(json!({"$gt": 0, "$lt": 1}), json!(0.5));
    ok(json!({"$gte": -5}), json!(u64::MAX));
    bad_at(json!({"$gt": 1}), json!(1), "$");
    bad_at(json!({"$lt": 1}), json!(1), "$");
    bad_at(json!({"$lte": 1}), json!(1.01), "$");
    let m = bad_at(json!({"n": {"$gte": 2}}), json!({"n": 1}), "$.n");
    assert_eq!(m.reason, "expected a number >= 2, got 1");
    let m = bad_at(json!({"$gte": 2}), json!("3"), "$");
    assert_eq!(m.reason, r#"expected a number >= 2, got "3""#);
}

#[test]
fn exact_is_deep_equality_without_subsets() {
    ok(
        json!({"$exact": {"a": [1, {"b": null}]}}),
        json!({"a": [1.0, {"b": null}]}),
    );
    // `$` keys inside `$exact` are literal.
    ok(json!({"$exact": {"$ref": "x"}}), json!({"$ref": "x"}));
    let m = bad_at(
        json!({"r": {"$exact": {"a": 1}}}),
        json!({"r": {"a": 1, "b": 2}}),
        "$.r",
    );
    assert_eq!(
        m.reason,
        "unexpected key `b` (`$exact` allows no extra keys)"
    );
    let m = bad_at(
        json!({"$exact": {"a": {"b": 1}}}),
        json!({"a": {}}),
        "$.a.b",
    );
    assert_eq!(m.actual, None);
    bad_at(json!({"$exact": [1, 2]}), json!([2, 1]), "$[0]");
    bad_at(json!({"$exact": [1]}), json!([1, 1]), "$");
    bad_at(json!({"$exact": {}}), json!([]), "$");
}

#[test]
fn one_of_needs_one_option() {
    ok(json!({"$one_of": [1, "one"]}), json!("one"));
    ok(
        json!({"a": {"$one_of": [{"$absent": true}, {"$type": "string"}]}}),
        json!({}),
    );
    let m = bad_at(
        json!({"c": {"$one_of": [{"type": "image"}, {"type": "text", "text": "hi"}]}}),
        json!({"c": {"type": "text", "text": "ho"}}),
        "$.c.text",
    );
    assert_eq!(
        m.reason,
        r#"none of the 2 `$one_of` options matched; closest is option 1: expected "hi", got "ho""#
    );
    // On a tie, the first option is reported.
    let m = bad_at(json!({"$one_of": [1, 2]}), json!(3), "$");
    assert_eq!(
        m.reason,
        "none of the 2 `$one_of` options matched; closest is option 0: expected 1, got 3"
    );
    bad_at(
        json!({"a": {"$one_of": [{"$type": "string"}]}}),
        json!({}),
        "$.a",
    );
    // A failed `$absent` is the least informative option to report.
    let m = bad_at(
        json!({"s": {"$one_of": [{"$absent": true}, {"$type": "string"}]}}),
        json!({"s": 3}),
        "$.s",
    );
    assert!(
        m.reason
            .ends_with("option 1: expected type string, got number 3"),
        "{}",
        m.reason
    );
}

#[test]
fn not_inverts() {
    ok(json!({"$not": "error"}), json!("ok"));
    ok(json!({"status": {"$not": "error"}}), json!({})); // missing is "not error"
    ok(json!({"a": {"$not": {"$absent": true}}}), json!({"a": 1}));
    bad_at(json!({"a": {"$not": {"$absent": true}}}), json!({}), "$.a");
    let m = bad_at(
        json!({"s": {"$not": {"$regex": "^err"}}}),
        json!({"s": "error"}),
        "$.s",
    );
    assert_eq!(
        m.reason,
        r#""error" matches the pattern under `$not`: {"$regex":"^err"}"#
    );
    // Presence plus negation.
    bad_at(json!({"s": {"$any": true, "$not": 1}}), json!({}), "$.s");
}

#[test]
fn each_over_arrays_and_object_values() {
    ok(json!({"$each": {"$type": "integer"}}), json!([1, 2, 3]));
    ok(json!({"$each": {"$type": "integer"}}), json!([]));
    ok(json!({"$each": {"$gte": 0}}), json!({"a": 1, "b": 2}));
    bad_at(
        json!({"xs": {"$each": {"$gte": 0}}}),
        json!({"xs": [1, -1]}),
        "$.xs[1]",
    );
    bad_at(
        json!({"$each": {"$gte": 0}}),
        json!({"a": 1, "b": -2}),
        "$.b",
    );
    bad_at(json!({"$each": 1}), json!("1"), "$");
}

#[test]
fn unordered_matches_one_to_one() {
    ok(json!({"$unordered": [1, 2, 3]}), json!([3, 1, 2]));
    ok(json!({"$unordered": []}), json!([]));
    // Greedy would give "a" to the first pattern and fail; a full matching succeeds.
    ok(
        json!({"$unordered": [{"$type": "string"}, "a"]}),
        json!(["a", "b"]),
    );
    let m = bad_at(json!({"$unordered": [1, 2]}), json!([1]), "$");
    assert_eq!(m.reason, "`$unordered` expects 2 element(s), got 1");
    let m = bad_at(
        json!({"xs": {"$unordered": [{"n": 1}, {"n": 2}]}}),
        json!({"xs": [{"n": 2}, {"n": 3}]}),
        "$.xs[0].n",
    );
    assert!(
        m.reason
            .starts_with("`$unordered` pattern 0 matches no element; closest is [0]"),
        "{}",
        m.reason
    );
    let m = bad_at(json!({"$unordered": ["a", "a"]}), json!(["a", "b"]), "$");
    assert!(m.reason.contains("pattern(s) 1 are left"), "{}", m.reason);
    let m = bad_at(
        json!({"$unordered": [{"$type": "string"}, {"$type": "string"}, "a"]}),
        json!(["a", "b", 1]),
        "$",
    );
    assert!(
        m.reason.contains("no one-to-one assignment"),
        "{}",
        m.reason
    );
}

#[test]
fn has_keys_and_keys() {
    ok(json!({"$has_keys": ["a"]}), json!({"a": 1, "b": 2}));
    ok(json!({"$keys": ["b", "a"]}), json!({"a": 1, "b": 2}));
    let m = bad_at(
        json!({"o": {"$has_keys": ["a", "c"]}}),
        json!({"o": {"a": 1}}),
        "$.o",
    );
    assert_eq!(m.reason, "`$has_keys`: missing key `c`");
    let m = bad_at(json!({"$keys": ["a", "c"]}), json!({"a": 1, "b": 2}), "$");
    assert_eq!(m.reason, "`$keys`: missing key `c`; unexpected key `b`");
    bad_at(json!({"$keys": []}), json!([]), "$");
}

#[test]
fn json_parses_strings() {
    ok(
        json!({"text": {"$json": {"id": 7}}}),
        json!({"text": r#"{"id": 7, "x": 1}"#}),
    );
    let m = bad_at(
        json!({"content": [{"text": {"$json": {"id": 7}}}]}),
        json!({"content": [{"text": r#"{"id": 8}"#}]}),
        "$.content[0].text<json>.id",
    );
    assert_eq!(m.reason, "expected 7, got 8");
    let m = bad_at(json!({"$json": 1}), json!("{"), "$");
    assert!(
        m.reason
            .starts_with("`$json`: the string is not valid JSON"),
        "{}",
        m.reason
    );
    bad_at(json!({"$json": 1}), json!(1), "$");
}

#[test]
fn operators_combine_with_and() {
    ok(
        json!({"$type": "string", "$regex": "^a", "$len": 3}),
        json!("abc"),
    );
    let m = bad_at(
        json!({"$type": "string", "$regex": "^a", "$len": 3}),
        json!("abcd"),
        "$",
    );
    assert!(m.reason.contains("`$len`"), "{}", m.reason);
}

#[test]
fn operators_other_than_absent_not_one_of_need_the_key() {
    for pattern in [
        json!({"$regex": "x"}),
        json!({"$type": "null"}),
        json!({"$len": 0}),
        json!({"$contains": "x"}),
        json!({"$gte": 0}),
        json!({"$exact": null}),
        json!({"$each": 1}),
        json!({"$unordered": []}),
        json!({"$has_keys": []}),
        json!({"$keys": []}),
        json!({"$json": null}),
    ] {
        let m = bad_at(json!({"k": pattern}), json!({}), "$.k");
        assert_eq!(m.actual, None);
    }
}
