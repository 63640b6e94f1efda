//! How a mismatch is displayed and explained.

use super::*;
use serde_json::json;

#[test]
fn mismatch_display() {
    let m = bad(json!({"a": [1]}), json!({"a": [2]}));
    assert_eq!(m.to_string(), "at $.a[0]: expected 1, got 2");
}

#[test]
fn explain_nested_mismatch() {
    let pattern = json!({
        "structured": {
            "approval": {"request_id": {"$regex": "^req-"}, "state": "pending", "tags": ["a", "b"]}
        }
    });
    let actual = json!({
        "structured": {
            "approval": {"request_id": "req-1", "state": "pending", "tags": ["a", "c", "b"], "by": "bob"}
        }
    });
    let m = bad(pattern, actual.clone());
    insta::assert_snapshot!(explain(&m), @r#"
    mismatch at $.structured.approval.tags
    reason: expected an array of 2 element(s), got 3
    --- expected
    +++ actual
    @@ -1,4 +1,5 @@
     [
       "a",
    +  "c",
       "b"
     ]
    "#);
    let m = bad(
        json!({"structured": {"approval": {"$exact": {"request_id": "req-1", "state": "pending", "tags": ["a", "c", "b"]}}}}),
        actual,
    );
    insta::assert_snapshot!(explain(&m), @r#"
    mismatch at $.structured.approval
    reason: unexpected key `by` (`$exact` allows no extra keys)
    --- expected
    +++ actual
    @@ -5,5 +5,6 @@
         "a",
         "c",
         "b"
    -  ]
    +  ],
    +  "by": "bob"
     }
    "#);
}

#[test]
fn explain_missing_key() {
    let m = bad(json!({"a": {"b": {"c": 1}}}), json!({"a": {}}));
    insta::assert_snapshot!(explain(&m), @r#"
    mismatch at $.a.b
    reason: key is missing
    --- expected
    +++ actual (key is missing)
    @@ -1,3 +0,0 @@
    -{
    -  "c": 1
    -}
    "#);
}

#[test]
fn explain_when_texts_are_equal() {
    let m = bad(
        json!({"$not": {"$any": true}}),
        json!({"$not": {"$any": true}}),
    );
    let text = explain(&m);
    assert!(text.contains("print the same"), "{text}");
}
