//! `$increasing`: a sequence whose every element is greater than the one before.

use super::*;
use serde_json::json;

#[test]
fn numbers_must_strictly_increase() {
    ok(json!({"$increasing": true}), json!([0, 50, 100]));
    ok(json!({"$increasing": true}), json!([0.5, 1, 1.5]));
    ok(json!({"$increasing": true}), json!([]));
    ok(json!({"$increasing": true}), json!([7]));
    let m = bad_at(json!({"$increasing": true}), json!([0, 50, 50]), "$[2]");
    assert_eq!(m.reason, "50 is not greater than the element before it, 50");
    let m = bad_at(json!({"$increasing": true}), json!([3, 1]), "$[1]");
    assert_eq!(m.reason, "1 is not greater than the element before it, 3");
    let m = bad_at(json!({"$increasing": true}), json!([1, "2"]), "$[1]");
    assert_eq!(m.reason, "`$increasing` compares numbers, got \"2\"");
    let m = bad_at(json!({"$increasing": true}), json!({"a": 1}), "$");
    assert_eq!(
        m.reason,
        "`$increasing` needs an array, got an object with 1 key(s)"
    );
}

#[test]
fn a_key_compares_that_member_of_each_element() {
    let progress = json!([
        {"progressToken": "t", "progress": 0, "total": 100},
        {"progressToken": "t", "progress": 50},
        {"progressToken": "t", "progress": 100},
    ]);
    ok(json!({"$increasing": "progress"}), progress);
    let m = bad_at(
        json!({"p": {"$increasing": "progress"}}),
        json!({"p": [{"progress": 2}, {"progress": 1}]}),
        "$.p[1].progress",
    );
    assert_eq!(m.reason, "1 is not greater than the element before it, 2");
    let m = bad_at(
        json!({"$increasing": "progress"}),
        json!([{"progress": 1}, {"total": 2}]),
        "$[1].progress",
    );
    assert_eq!(m.reason, "key is missing (`$increasing` compares numbers)");
    assert_eq!(m.actual, None);
}

#[test]
fn the_argument_is_true_or_a_key() {
    for arg in [json!(false), json!(1), json!(""), json!(["progress"])] {
        let e = pattern_error(json!({"$increasing": arg}));
        assert!(e.message.contains("`$increasing` takes"), "{}", e.message);
    }
    let m = bad_at(json!({"k": {"$increasing": true}}), json!({}), "$.k");
    assert_eq!(m.actual, None);
}
