//! `schema`: the JSON Schema of scenario and target files.

use serde_json::Value;

use crate::mcpc;

#[test]
fn schema_prints_json_schema_of_scenarios_and_targets() {
    let scenario = mcpc(&["schema", "scenario"]);
    assert_eq!(scenario.code, 0);
    let s: Value = serde_json::from_str(&scenario.stdout).expect("scenario schema is JSON");
    assert!(
        s["$schema"]
            .as_str()
            .is_some_and(|u| u.contains("json-schema.org"))
    );
    assert_eq!(s["type"], "object");
    for key in [
        "name",
        "suite",
        "steps",
        "servers",
        "workspace",
        "requires",
        "timeout",
    ] {
        assert!(s["properties"][key].is_object(), "scenario property {key}");
    }
    let required: Vec<&str> = s["required"]
        .as_array()
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    for key in ["name", "suite", "steps"] {
        assert!(required.contains(&key), "{key} is required");
    }
    let defs = s["$defs"].as_object().expect("definitions");
    let step = &defs["RawStep"]["properties"];
    for kind in [
        "initialize",
        "list_tools",
        "call",
        "await",
        "poll",
        "request",
        "notify",
        "send",
        "expect_message",
        "no_message",
        "admin",
        "exec",
        "file",
        "processes",
        "stderr",
        "stdout",
        "start",
        "restart",
        "stop",
        "wait_exit",
        "kill",
        "parallel",
        "set",
        "repeat",
        "contract",
        "on",
        "args",
        "expect",
        "save",
        "within",
        "every",
        "timeout",
        "newline",
        "label",
    ] {
        assert!(step[kind].is_object(), "step key {kind} in the schema");
    }
    assert_eq!(
        mcpc(&["schema"]).stdout,
        scenario.stdout,
        "scenario is the default"
    );

    let target = mcpc(&["schema", "target"]);
    assert_eq!(target.code, 0);
    let t: Value = serde_json::from_str(&target.stdout).expect("target schema is JSON");
    for key in [
        "name", "suites", "server", "admin", "knobs", "vars", "timeouts",
    ] {
        assert!(t["properties"][key].is_object(), "target property {key}");
    }
    assert!(
        t["required"]
            .as_array()
            .is_some_and(|r| r.contains(&Value::from("server")))
    );

    let bad = mcpc(&["schema", "nonsense"]);
    assert_eq!(bad.code, 2);
    assert!(bad.stdout.is_empty());
}
