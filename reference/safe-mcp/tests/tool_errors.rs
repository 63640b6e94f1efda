//! A refusal is a tool execution error (issue 30, item 9): every `ok: false` result of both
//! servers (`POLICY_DENIED`, `PATH_ESCAPE`, `INVALID_REQUEST`, `CONFLICT`, ...) comes back with
//! `isError: true`, so a client does not take it for a success, and every `ok: true` result
//! (a nonzero exit included) with `isError: false`. The structured body is unchanged by it:
//! the same `OperationResult`, also as the text content. Real `safe-mcp` processes over pipes.

#![allow(clippy::unwrap_used)]

mod common;

use common::{BASE_POLICY, Sandbox, Server};
use serde_json::{Value, json};

/// Checks `isError` against `ok` and that the text content is the structured body.
fn assert_flagged(result: &Value, ok: bool, code: &str) {
    let structured = &result["structuredContent"];
    assert_eq!(structured["ok"], json!(ok), "{result}");
    assert_eq!(structured["code"], json!(code), "{result}");
    assert_eq!(
        result["isError"],
        json!(!ok),
        "isError is the opposite of ok: {result}"
    );
    let text = result["content"][0]["text"].as_str().expect("a text block");
    let parsed: Value = serde_json::from_str(text).expect("the text is the body as JSON");
    assert_eq!(&parsed, structured, "the text block is the structured body");
    for key in ["ok", "code", "action", "reason", "detail", "duration_ms"] {
        assert!(structured.get(key).is_some(), "{key} missing: {result}");
    }
}

#[test]
fn terminal_refusals_are_tool_errors_and_successes_are_not() {
    let sb = Sandbox::new();
    let mut s = Server::start(&sb.policy(BASE_POLICY), &[]);
    let run = |s: &mut Server, command: &str, cwd: Option<&str>| {
        let mut args = json!({ "command": command });
        if let Some(cwd) = cwd {
            args["cwd"] = json!(cwd);
        }
        s.call_result("run_command", args)
    };
    let denied = run(&mut s, "rm -rf /", None);
    assert_flagged(&denied, false, "POLICY_DENIED");
    assert_eq!(denied["structuredContent"]["detail"], json!({}));
    assert_eq!(
        denied["structuredContent"]["reason"],
        "'rm' is on the denylist"
    );
    assert_flagged(&run(&mut s, "echo a;b", None), false, "POLICY_DENIED");
    assert_flagged(
        &run(&mut s, "cat notes.txt", Some("..")),
        false,
        "PATH_ESCAPE",
    );
    assert_flagged(&run(&mut s, "echo 'open", None), false, "INVALID_REQUEST");
    assert_flagged(
        &s.call_result("explain_command", json!({"command": "python3 -c 1"})),
        false,
        "POLICY_DENIED",
    );
    assert_flagged(&run(&mut s, "cat notes.txt", None), true, "OK");
    assert_flagged(&run(&mut s, "false", None), true, "OK");
    assert_flagged(
        &s.call_result("explain_command", json!({"command": "cat notes.txt"})),
        true,
        "OK",
    );
}

#[test]
fn files_refusals_are_tool_errors_and_successes_are_not() {
    let sb = Sandbox::new();
    std::fs::create_dir(sb.path("ws")).unwrap();
    std::fs::create_dir(sb.path("ws/Documents")).unwrap();
    std::fs::write(sb.path("ws/report.pdf"), "report\n").unwrap();
    std::fs::write(sb.path("ws/Documents/taken.pdf"), "taken\n").unwrap();
    std::os::unix::fs::symlink(sb.path("jail/notes.txt"), sb.path("ws/link.pdf")).unwrap();
    let policy = sb.policy(
        "audit_log = \"state/audit.jsonl\"\n[files]\nworkspace_root = \"ws\"\njournal = \"state/journal.json\"\n[files.categories]\nDocuments = [\".pdf\"]\n",
    );
    let mut s = Server::start_files(&policy);
    let mv = |s: &mut Server, src: &str, dest: &str| {
        s.call_result("move_file", json!({"src": src, "dest": dest}))
    };
    assert_flagged(&mv(&mut s, "../x.pdf", "x.pdf"), false, "PATH_ESCAPE");
    assert_flagged(
        &mv(&mut s, "link.pdf", "Documents/link.pdf"),
        false,
        "POLICY_DENIED",
    );
    assert_flagged(
        &mv(&mut s, "report.pdf", "Documents/taken.pdf"),
        false,
        "CONFLICT",
    );
    assert_flagged(
        &s.call_result("undo_last_action", json!({})),
        false,
        "INVALID_REQUEST",
    );
    assert_flagged(
        &s.call_result("apply_plan", json!({"plan_id": "no-such-plan"})),
        false,
        "INVALID_REQUEST",
    );
    assert_flagged(&s.call_result("list_files", json!({})), true, "OK");
    assert_flagged(
        &mv(&mut s, "report.pdf", "Documents/report.pdf"),
        true,
        "OK",
    );
    assert_flagged(&s.call_result("undo_last_action", json!({})), true, "OK");
}
