//! The JSON-RPC 2.0 check every scenario gets (`engine/jsonrpc/`): the fixture server
//! breaking JSON-RPC 2.0 one way (`--jsonrpc-defect`) fails each scenario with exactly what is
//! wrong, the rule quoted, at level must, as soon as the broken answer arrives.

use mcp_conformance::runner::jsonrpc::JUDGED_AFTER_THE_STEPS;
use serde_json::Value;

use crate::{ENGINE, ENGINE_TARGET, Outcome, marked_position, num, run, yaml_files};

const SAME_ID: &str = "It MUST be the same as the value of the id member in the Request Object.";
const ONE_OF: &str = "Either the result member or error member MUST be included, but both members MUST NOT be included.";

fn run_all() -> Outcome {
    let o = run(ENGINE_TARGET, &[&format!("{ENGINE}/jsonrpc")], &["-j", "4"]);
    assert_eq!(o.code, 1, "{}", o.dump());
    assert_eq!(
        o.report["summary"]["failed"],
        yaml_files("jsonrpc").len(),
        "{}",
        o.dump()
    );
    o
}

/// The failure of `engine/jsonrpc/NAME`, checked to be a must assertion whose first line is
/// `first` and which quotes `rule`, at the step marked in its file.
fn failure<'a>(o: &'a Outcome, name: &str, first: &str, rule: &str) -> &'a Value {
    let s = o.scenario(&format!("engine/jsonrpc/{name}"));
    assert_eq!(s["status"], "failed", "{s}");
    let f = &s["failure"];
    assert_eq!(f["kind"], "assertion", "{f}");
    assert_eq!(f["level"], "must", "{f}");
    let message = f["message"].as_str().unwrap_or("");
    assert_eq!(message.lines().next(), Some(first), "{message}");
    let quoted = message.lines().nth(1).unwrap_or("");
    assert!(
        quoted.starts_with(
            "JSON-RPC 2.0 (https://www.jsonrpc.org/specification, 5 Response object): \""
        ) && quoted.contains(rule),
        "{name}: the rule is quoted: {message}"
    );
    let file = format!("{ENGINE}/jsonrpc/{name}.yaml");
    if std::fs::read_to_string(crate::repo().join(&file))
        .is_ok_and(|t| t.contains(crate::FAILS_MARKER))
    {
        let (line, column) = marked_position(&file);
        assert_eq!(
            f["position"],
            serde_json::json!({"line": line, "column": column}),
            "{name}: {f}"
        );
    }
    // Each ends when the broken answer arrives: far from the 10 s step timeout.
    assert!(num(&s["duration_ms"]) < 5_000, "{name} waited: {s}");
    f
}

#[test]
fn each_break_of_jsonrpc_is_named_for_what_it_is() {
    let o = run_all();

    let f = failure(
        &o,
        "string-ids",
        "answered request 1 with id \"1\" (a string)",
        SAME_ID,
    );
    assert_eq!(f["actual"]["id"], "1", "the answer itself is shown: {f}");
    assert!(
        o.stdout
            .contains("answered request 1 with id \"1\" (a string)"),
        "the human report says it\n{}",
        o.stdout
    );
    assert!(!o.stdout.contains("no answer within"), "{}", o.stdout);

    // A should step does not soften it.
    failure(
        &o,
        "string-ids-should",
        "answered request 1 with id \"1\" (a string)",
        SAME_ID,
    );
    let s = o.scenario("engine/jsonrpc/string-ids-should");
    assert!(s["warnings"].as_array().is_none_or(Vec::is_empty), "{s}");

    // A raw request's answer, waited for by expect_message.
    let f = failure(
        &o,
        "string-ids-raw",
        "answered request 7 with id \"7\" (a string)",
        SAME_ID,
    );
    let message = f["message"].as_str().unwrap_or("");
    assert!(
        message.contains("(no message matching the pattern arrived within 1s)"),
        "{message}"
    );

    let f = failure(
        &o,
        "result-and-error",
        "a response with both result and error",
        ONE_OF,
    );
    assert_eq!(f["step_label"], "call echo", "{f}");
    assert!(f["actual"]["result"].is_object() && f["actual"]["error"].is_object());

    failure(
        &o,
        "result-and-error-awaited",
        "a response with both result and error",
        ONE_OF,
    );

    // Taken by expect_message, whose pattern it matches.
    failure(
        &o,
        "result-and-error-raw",
        "a response with both result and error",
        ONE_OF,
    );

    // Nobody waits for it: judged after the steps, at the step it arrived by.
    let f = failure(
        &o,
        "result-and-error-unawaited",
        "a response with both result and error",
        ONE_OF,
    );
    let message = f["message"].as_str().unwrap_or("");
    assert!(
        message.ends_with(&format!("({JUDGED_AFTER_THE_STEPS})")),
        "{message}"
    );
    assert!(
        [1, 2].contains(&num(&f["step"])),
        "the call's step or the ping's: {f}"
    );

    // Progress after the answer breaks MCP's progress rules, not JSON-RPC's: the same check,
    // quoting the progress page.
    let s = o.scenario("engine/jsonrpc/progress-after-response");
    assert_eq!(s["status"], "failed", "{s}");
    let f = &s["failure"];
    assert_eq!(f["level"], "must", "{f}");
    let message = f["message"].as_str().unwrap_or("");
    assert!(
        message.starts_with("progress notification for token ")
            && message.contains("after the response to request 2"),
        "{message}"
    );
    assert!(
        message.contains(
            "(https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/progress, \
             Behavior Requirements): \"Progress notifications MUST only reference tokens that:"
        ),
        "{message}"
    );
    assert!(
        message.ends_with(&format!("({JUDGED_AFTER_THE_STEPS})")),
        "{message}"
    );
    assert_eq!(
        f["actual"]["params"]["progress"], 2,
        "the first late one: {f}"
    );

    // A request of the server's for a capability the client did not declare.
    let s = o.scenario("engine/jsonrpc/undeclared-sampling");
    assert_eq!(s["status"], "failed", "{s}");
    let f = &s["failure"];
    assert_eq!(f["level"], "must", "{f}");
    let message = f["message"].as_str().unwrap_or("");
    assert!(
        message.starts_with(
            "a sampling/createMessage request, but the client's initialize declared no sampling capability"
        ) && message.contains("Only use capabilities that were successfully negotiated"),
        "{message}"
    );
    assert_eq!(f["actual"]["method"], "sampling/createMessage", "{f}");
}
