use super::*;

#[test]
fn entries_change_only_the_name_and_the_overridden_hints() {
    let entry = r#"{"inputSchema":{"type":"object","maximum":1.0E3},"name":"x","annotations":{"readOnlyHint":true,"x-other":1},"execution":{"taskSupport":"forbidden"}}"#;
    assert_eq!(
        tool_entry(entry, "p.x", &[]).expect("entry"),
        r#"{"inputSchema":{"type":"object","maximum":1.0E3},"name":"p.x","annotations":{"readOnlyHint":true,"x-other":1},"execution":{"taskSupport":"forbidden"}}"#
    );
    assert_eq!(
        tool_entry(
            entry,
            "x",
            &[("readOnlyHint", false), ("openWorldHint", true)]
        )
        .expect("entry"),
        r#"{"inputSchema":{"type":"object","maximum":1.0E3},"name":"x","annotations":{"readOnlyHint":false,"x-other":1,"openWorldHint":true},"execution":{"taskSupport":"forbidden"}}"#
    );
    assert_eq!(
        tool_entry(
            r#"{"name":"y","annotations":[1]}"#,
            "y",
            &[("destructiveHint", true)]
        )
        .expect("entry"),
        r#"{"name":"y","annotations":{"destructiveHint":true}}"#
    );
    assert_eq!(
        tool_entry(r#"{"name":"y"}"#, "y", &[("destructiveHint", true)]).expect("entry"),
        r#"{"name":"y","annotations":{"destructiveHint":true}}"#
    );
}

#[test]
fn older_clients_get_object_output_schemas_only() {
    let array = r#"{"name":"a","outputSchema":{"type":"array"},"inputSchema":{}}"#;
    assert_eq!(
        legacy_entry(array).expect("entry").as_deref(),
        Some(r#"{"name":"a","inputSchema":{}}"#)
    );
    let any_of = r#"{"name":"a","outputSchema":{"anyOf":[{"type":"object"}]}}"#;
    assert_eq!(
        legacy_entry(any_of).expect("entry").as_deref(),
        Some(r#"{"name":"a"}"#)
    );
    for same in [
        r#"{"name":"a","outputSchema":{"type":"object"}}"#,
        r#"{"name":"a"}"#,
    ] {
        assert_eq!(legacy_entry(same).expect("entry"), None);
    }
}

#[test]
fn results_get_what_the_generation_asks() {
    let upstream =
        r#"{"content":[{"type":"text","text":"t","annotations":{"priority":1}}],"x":1.50}"#;
    assert_eq!(
        call_result(upstream, Era::Legacy).expect("result"),
        upstream
    );
    assert_eq!(
        call_result(upstream, Era::Modern).expect("result"),
        r#"{"resultType":"complete","content":[{"type":"text","text":"t","annotations":{"priority":1}}],"x":1.50}"#
    );
    let modern_upstream = r#"{"content":[],"resultType":"complete"}"#;
    assert_eq!(
        call_result(modern_upstream, Era::Legacy).expect("result"),
        r#"{"content":[]}"#
    );
    assert_eq!(
        call_result(modern_upstream, Era::Modern).expect("result"),
        modern_upstream
    );
    assert_eq!(
        call_result("{}", Era::Legacy).expect("result"),
        r#"{"content":[]}"#
    );
}

#[test]
fn results_the_hub_cannot_relay_are_refused() {
    for (result, expected) in [
        (r#"{"resultType":"input_required"}"#, "input_required"),
        (r#"{"resultType":"task","content":[]}"#, "task"),
        (r#"{"resultType":3}"#, "resultType"),
        (r#"{"content":{}}"#, "content"),
        (r#"{"content":[],"isError":"yes"}"#, "isError"),
        ("[1]", "object"),
    ] {
        let error = call_result(result, Era::Modern).expect_err(result);
        assert!(error.to_string().contains(expected), "{result}: {error}");
    }
}

#[test]
fn the_upstreams_identity_stays_behind() {
    let result =
        r#"{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"u"},"app/t":1.0},"content":[]}"#;
    assert_eq!(
        call_result(result, Era::Legacy).expect("result"),
        r#"{"_meta":{"app/t":1.0},"content":[]}"#
    );
    let only = r#"{"content":[],"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"u"}}}"#;
    assert_eq!(
        call_result(only, Era::Legacy).expect("result"),
        r#"{"content":[]}"#
    );
    let own_empty = r#"{"content":[],"_meta":{}}"#;
    assert_eq!(
        call_result(own_empty, Era::Legacy).expect("result"),
        own_empty
    );
}

#[test]
fn non_object_structured_content_becomes_text_for_older_clients() {
    let held = r#"{"content":[{"type":"text","text":"[1, 2.0]"}],"structuredContent":[1,2.00]}"#;
    assert_eq!(
        call_result(held, Era::Legacy).expect("result"),
        r#"{"content":[{"type":"text","text":"[1, 2.0]"}]}"#
    );
    let elsewhere = r#"{"content":[],"structuredContent":"s"}"#;
    assert_eq!(
        call_result(elsewhere, Era::Legacy).expect("result"),
        r#"{"content":[{"type":"text","text":"\"s\""}]}"#
    );
    assert_eq!(
        call_result(r#"{"structuredContent":null}"#, Era::Legacy).expect("result"),
        r#"{"content":[]}"#
    );
    // Without content: the empty list the hub adds holds the text.
    assert_eq!(
        call_result(r#"{"structuredContent":[1]}"#, Era::Legacy).expect("result"),
        r#"{"content":[{"type":"text","text":"[1]"}]}"#
    );
    assert_eq!(
        call_result(elsewhere, Era::Modern).expect("result"),
        r#"{"resultType":"complete","content":[],"structuredContent":"s"}"#
    );
}

#[test]
fn lines_carry_the_clients_id_as_written() {
    assert_eq!(
        result_line(r#""a\u00e9""#, "{}"),
        b"{\"jsonrpc\":\"2.0\",\"id\":\"a\\u00e9\",\"result\":{}}\n"
    );
    assert_eq!(
        String::from_utf8(error_line(
            "7",
            -32602,
            "unknown tool: \"x\"",
            Some(r#"{"a":1}"#)
        ))
        .expect("utf-8"),
        "{\"jsonrpc\":\"2.0\",\"id\":7,\"error\":{\"code\":-32602,\"message\":\"unknown tool: \\\"x\\\"\",\"data\":{\"a\":1}}}\n"
    );
    assert_eq!(
        progress_params(
            r#"{"progressToken":3,"progress":0.50,"total":1E1}"#,
            r#""tok""#
        )
        .expect("params"),
        r#"{"progressToken":"tok","progress":0.50,"total":1E1}"#
    );
    assert_eq!(
        list_result(r#"{"name":"a"}"#, Era::Modern),
        r#"{"resultType":"complete","ttlMs":0,"cacheScope":"private","tools":[{"name":"a"}]}"#
    );
}
