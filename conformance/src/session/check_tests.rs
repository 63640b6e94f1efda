use super::*;
use serde_json::json;

fn sent(ids: &[Value]) -> HashSet<String> {
    ids.iter().map(id_key).collect()
}

fn what(message: Value, ids: &[Value]) -> Option<String> {
    check(&message, &sent(ids)).violation.map(|v| v.what)
}

#[test]
fn every_allowed_form_passes() {
    let ids = [json!(1), json!("a"), json!(9_007_199_254_740_993_u64)];
    for ok in [
        json!({"jsonrpc": "2.0", "id": 1, "result": {}}),
        json!({"jsonrpc": "2.0", "id": 1.0, "result": null}),
        json!({"jsonrpc": "2.0", "id": "a", "error": {"code": -32601, "message": "m"}}),
        json!({"jsonrpc": "2.0", "id": "a", "error": {"code": -32601.0, "message": "m", "data": [1]}}),
        // A parse error or an invalid request: the id could not be read.
        json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32700, "message": "m"}}),
        // What a double-precision parser makes of an id past 2^53.
        json!({"jsonrpc": "2.0", "id": 9_007_199_254_740_992_u64, "result": {}}),
        json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {}}),
        json!({"jsonrpc": "2.0", "id": 5, "method": "ping"}),
    ] {
        let c = check(&ok, &sent(&ids));
        assert_eq!(c.violation, None, "{ok}");
    }
    let c = check(
        &json!({"jsonrpc": "2.0", "id": 1, "result": {}}),
        &sent(&ids),
    );
    assert_eq!(c.answers.as_deref(), Some("1"));
}

#[test]
fn an_id_of_another_type_is_named_a_near_miss() {
    let c = check(
        &json!({"jsonrpc": "2.0", "id": "1", "result": {}}),
        &sent(&[json!(1)]),
    );
    let v = c.violation.expect("a violation");
    assert_eq!(v.what, "answered request 1 with id \"1\" (a string)");
    assert_eq!(v.answers.as_deref(), Some("1"));
    assert_eq!(c.answers, None, "not routed as the answer");
    assert!(
        v.report()
            .contains("It MUST be the same as the value of the id member in the Request Object."),
        "{}",
        v.report()
    );
    assert_eq!(
        what(
            json!({"jsonrpc": "2.0", "id": 7, "result": {}}),
            &[json!("7")]
        )
        .as_deref(),
        Some("answered request \"7\" with id 7 (a number)")
    );
}

#[test]
fn result_and_error_together_or_neither_are_named() {
    let both =
        json!({"jsonrpc": "2.0", "id": 3, "result": {}, "error": {"code": 1, "message": "m"}});
    let c = check(&both, &sent(&[json!(3)]));
    let v = c.violation.expect("a violation");
    assert_eq!(v.what, "a response with both result and error");
    assert_eq!(v.answers.as_deref(), Some("3"));
    assert!(v.report().contains(
        "Either the result member or error member MUST be included, but both members MUST NOT be included."
    ));
    assert_eq!(
        what(json!({"jsonrpc": "2.0", "id": 3}), &[json!(3)]).as_deref(),
        Some("a response with neither result nor error")
    );
}

#[test]
fn ids_of_no_request_and_other_id_rules() {
    let ids = [json!(1)];
    let cases = [
        (
            json!({"jsonrpc": "2.0", "id": 2, "result": {}}),
            "a response with id 2, the id of no request sent to the server",
        ),
        (
            json!({"jsonrpc": "2.0", "id": null, "result": {"ok": true}}),
            "a result with id null (null is the id of an error about a request whose id could not be read)",
        ),
        (
            json!({"jsonrpc": "2.0", "result": {}}),
            "a response without an id",
        ),
        (
            json!({"jsonrpc": "2.0", "id": {"an": "object"}, "error": {"code": 1, "message": "m"}}),
            "a response with id {\"an\":\"object\"} (an object): an id is a string, a number or null",
        ),
        (
            json!({"id": 1, "result": {}}),
            "a message without the jsonrpc member",
        ),
        (
            json!({"jsonrpc": "1.0", "method": "x"}),
            "a message whose jsonrpc member is \"1.0\", not \"2.0\"",
        ),
        (
            json!({"jsonrpc": "2.0", "id": 1, "error": "boom"}),
            "an error response whose error is \"boom\", not an object",
        ),
        (
            json!({"jsonrpc": "2.0", "id": 1, "error": {"code": "E1", "message": "m"}}),
            "an error response whose error code is \"E1\", not an integer",
        ),
        (
            json!({"jsonrpc": "2.0", "id": 1, "error": {"code": 1}}),
            "an error response whose error has no message",
        ),
    ];
    for (message, expected) in cases {
        assert_eq!(
            what(message.clone(), &ids).as_deref(),
            Some(expected),
            "{message}"
        );
    }
    // A null id answers a request we sent with id null.
    assert_eq!(
        what(
            json!({"jsonrpc": "2.0", "id": null, "result": {}}),
            &[Value::Null]
        ),
        None
    );
}

#[test]
fn the_ids_of_lines_we_wrote_are_read_even_from_broken_lines() {
    assert_eq!(
        ids_in_line(br#"{"jsonrpc":"2.0","id":"x","method":"m"}"#),
        ["\"x\""]
    );
    assert_eq!(
        ids_in_line(br#"[{"id":1,"method":"m"},{"id":"b","method":"m"}]"#),
        ["1", "\"b\""]
    );
    assert_eq!(
        ids_in_line(br#"{"jsonrpc": "2.0", "id": "fuzz-1""#),
        ["\"fuzz-1\""]
    );
    assert_eq!(ids_in_line(br#"{"jsonrpc": "2.0", "id": 4,}"#), ["4"]);
    let deep = format!(
        "{{\"id\":\"fuzz-deep\",\"params\":{}1{}}}",
        "{\"a\":".repeat(2000),
        "}".repeat(2000)
    );
    assert_eq!(ids_in_line(deep.as_bytes()), ["\"fuzz-deep\""]);
    assert_eq!(
        ids_in_line(b"{\"jsonrpc\":\"2.0\",\x00\"id\":\"fuzz-nul\"}"),
        ["\"fuzz-nul\""]
    );
    assert_eq!(
        ids_in_line(b"{\"id\":\"\xc3AB\",\"method\":\"m\"}").len(),
        1
    );
    assert!(ids_in_line(b"this is not json").is_empty());
    assert!(ids_in_line(br#"{"jsonrpc":"2.0","method":"notifications/x"}"#).is_empty());
}
