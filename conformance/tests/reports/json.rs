//! The JSON report: its fields are the public interface.

use mcp_conformance::report::json::to_json;
use serde_json::json;

use crate::sample_report;

#[test]
fn json_fields_are_the_public_interface() {
    let v = to_json(&sample_report());
    let keys: Vec<&str> = v
        .as_object()
        .expect("object")
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        [
            "target",
            "target_file",
            "summary",
            "duration_ms",
            "scenarios",
            "baseline",
            "not_judged"
        ]
    );
    assert_eq!(
        v["summary"],
        json!({"passed": 1, "failed": 2, "skipped": 1, "warnings": 0})
    );
    assert_eq!(v["duration_ms"], 2_345);
    assert_eq!(
        v["baseline"],
        json!({"stale": ["cancel long call"], "unknown": ["renamed scenario"]})
    );
    let s = &v["scenarios"];
    let keys: Vec<&str> = s[0]
        .as_object()
        .expect("object")
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        [
            "name",
            "file",
            "suite",
            "tags",
            "status",
            "duration_ms",
            "skip_reason",
            "failure",
            "baseline_expected_failure",
            "level",
            "warnings",
            "source"
        ]
    );
    assert_eq!(s[0]["status"], "passed");
    assert_eq!(s[0]["skip_reason"], serde_json::Value::Null);
    assert_eq!(s[0]["failure"], serde_json::Value::Null);
    assert_eq!(s[1]["status"], "failed");
    assert_eq!(s[1]["failure"]["kind"], "assertion");
    assert_eq!(s[1]["failure"]["step"], 2);
    assert_eq!(
        s[1]["failure"]["position"],
        json!({"line": 14, "column": 5})
    );
    assert_eq!(s[2]["status"], "skipped");
    assert_eq!(
        s[2]["skip_reason"],
        "server does not declare resources.subscribe"
    );
    assert_eq!(s[3]["baseline_expected_failure"], true);
    assert_eq!(s[3]["failure"]["position"], serde_json::Value::Null);
    assert_eq!(s[3]["failure"]["kind"], "error");
}
