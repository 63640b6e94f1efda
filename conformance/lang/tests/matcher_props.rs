//! Properties of the `expect:` matcher that must hold for any input, not just hand-picked ones.
#![allow(clippy::unwrap_used)]

use mcp_conformance_lang::matcher::{Mismatch, check_pattern, explain, matches};
use proptest::prelude::*;
use proptest::sample::Index;
use serde_json::{Map, Value, json};

fn scalar() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter("JSON numbers are finite", |f| f.is_finite())
            .prop_map(Value::from),
        "[a-z $é]{0,6}".prop_map(Value::from),
    ]
}

/// JSON whose object keys never start with `$`, so that as a pattern it holds no operators.
fn plain_json() -> impl Strategy<Value = Value> {
    scalar().prop_recursive(4, 48, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec(("[a-z]{1,4}", inner), 0..4)
                .prop_map(|entries| Value::Object(entries.into_iter().collect())),
        ]
    })
}

/// Any JSON at all, including `$` keys and strings that hold JSON.
fn any_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        4 => scalar(),
        1 => Just(Value::from(r#"{"a": [1, "x"]}"#)),
        1 => Just(Value::from("[]")),
    ];
    leaf.prop_recursive(5, 64, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec((r"\$?\$?[a-z_]{0,4}", inner), 0..4)
                .prop_map(|entries| Value::Object(entries.into_iter().collect())),
        ]
    })
}

/// Valid patterns that use every operator, nested in each other.
fn pattern() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        scalar(),
        prop::sample::select(vec![
            "string", "number", "integer", "boolean", "object", "array", "null"
        ])
        .prop_map(|t| json!({"$type": t})),
        Just(json!({"$type": ["string", "null"]})),
        prop::sample::select(vec!["^a", "b+", "^$", "[0-9]", "(?i)X", "é"])
            .prop_map(|re| json!({"$regex": re})),
        Just(json!({"$absent": true})),
        Just(json!({"$any": true})),
        (0u64..4).prop_map(|n| json!({"$len": n})),
        scalar().prop_map(|n| json!({"$contains": n})),
        any::<i32>().prop_map(|n| json!({"$gte": n, "$lt": 1.5})),
        any::<i32>().prop_map(|n| json!({"$gt": n, "$lte": u64::MAX})),
        plain_json().prop_map(|v| json!({"$exact": v})),
        Just(json!({"$has_keys": ["a"]})),
        Just(json!({"$keys": ["a", "$b"]})),
        Just(json!({"$$ref": 1})),
    ];
    leaf.prop_recursive(4, 48, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..3).prop_map(Value::Array),
            prop::collection::vec(("[a-z]{1,4}", inner.clone()), 0..3)
                .prop_map(|entries| Value::Object(entries.into_iter().collect())),
            prop::collection::vec(inner.clone(), 1..3).prop_map(|o| json!({"$one_of": o})),
            prop::collection::vec(inner.clone(), 0..3).prop_map(|o| json!({"$unordered": o})),
            inner.clone().prop_map(|p| json!({"$not": p})),
            inner.clone().prop_map(|p| json!({"$each": p})),
            inner.clone().prop_map(|p| json!({"$json": p})),
            inner.clone().prop_map(|p| json!({"$contains": p})),
            Just(json!({"$len": {"$gte": 1, "$not": 3}})),
        ]
    })
}

/// Adds the key `EXTRA` (never produced by `plain_json`) to every object in `v`.
fn with_extra_keys(v: &Value, extra: &Value) -> Value {
    match v {
        Value::Object(map) => {
            let mut out: Map<String, Value> = map
                .iter()
                .map(|(k, v)| (k.clone(), with_extra_keys(v, extra)))
                .collect();
            out.insert("EXTRA".to_owned(), extra.clone());
            Value::Object(out)
        }
        Value::Array(items) => {
            Value::Array(items.iter().map(|v| with_extra_keys(v, extra)).collect())
        }
        _ => v.clone(),
    }
}

/// Matches, and when that fails, checks that reporting the failure works too.
fn exercise(pattern: &Value, actual: &Value) -> Option<Mismatch> {
    let m = matches(pattern, actual).err()?;
    let text = explain(&m);
    assert!(text.contains(&m.path), "{text}");
    assert!(!m.to_string().is_empty());
    Some(m)
}

proptest! {
    #[test]
    fn plain_values_match_themselves(v in plain_json()) {
        check_pattern(&v).unwrap();
        prop_assert_eq!(matches(&v, &v), Ok(()));
    }

    #[test]
    fn exact_matches_its_own_argument(v in any_json()) {
        let pattern = json!({"$exact": v.clone()});
        check_pattern(&pattern).unwrap();
        prop_assert_eq!(matches(&pattern, &v), Ok(()));
    }

    #[test]
    fn generated_patterns_are_valid_and_never_panic(p in pattern(), actual in any_json()) {
        check_pattern(&p).unwrap();
        let _ = exercise(&p, &actual);
        let _ = exercise(&json!({"k": p}), &json!({}));
    }

    #[test]
    fn arbitrary_json_as_pattern_never_panics(p in any_json(), actual in any_json()) {
        let checked = check_pattern(&p);
        let result = exercise(&p, &actual);
        if let Err(e) = checked {
            prop_assert!(!e.to_string().is_empty());
            prop_assert!(result.unwrap().reason.starts_with("invalid pattern: "));
        }
    }

    #[test]
    fn not_inverts_every_pattern(p in pattern(), actual in any_json()) {
        let negated = json!({"$not": p.clone()});
        prop_assert_ne!(matches(&p, &actual).is_ok(), matches(&negated, &actual).is_ok());
    }

    #[test]
    fn removing_a_required_key_mismatches_at_its_path(
        entries in prop::collection::vec(("[a-z]{1,4}", plain_json()), 1..5),
        pick in any::<Index>(),
    ) {
        let object: Map<String, Value> = entries.into_iter().collect();
        let key = object.keys().nth(pick.index(object.len())).unwrap().clone();
        let mut without = object.clone();
        without.shift_remove(&key);
        let pattern = Value::Object(object);

        let m = matches(&pattern, &Value::Object(without.clone())).unwrap_err();
        prop_assert_eq!(&m.path, &format!("$.{key}"));
        prop_assert_eq!(m.actual, None);

        let nested = json!({"outer": [pattern]});
        let m = matches(&nested, &json!({"outer": [without]})).unwrap_err();
        prop_assert_eq!(m.path, format!("$.outer[0].{key}"));
    }

    #[test]
    fn extra_actual_keys_keep_a_match(v in plain_json(), extra in any_json()) {
        let actual = with_extra_keys(&v, &extra);
        prop_assert_eq!(matches(&v, &actual), Ok(()));
    }

    #[test]
    fn integers_match_their_float_spelling(n in -(1i64 << 53)..(1i64 << 53)) {
        #[allow(clippy::cast_precision_loss)]
        let f = n as f64;
        prop_assert_eq!(matches(&json!(n), &json!(f)), Ok(()));
        prop_assert_eq!(matches(&json!({"$exact": [f]}), &json!([n])), Ok(()));
        prop_assert_eq!(matches(&json!({"$type": "integer"}), &json!(f)), Ok(()));
    }
}
