//! What the operator is shown: control characters escaped, previews bounded, every field of a
//! protected request in words.

#![allow(clippy::unwrap_used)]

use super::*;
use mcp_safety_core::clock::Timestamp;

fn write_request(payload: Value) -> ApprovalRecord {
    ApprovalRecord {
        request_id: "req_1".into(),
        trace_id: "trace_1".into(),
        operation: Operation::WriteFile,
        workspace_id: "ws".into(),
        status: ApprovalStatus::Pending,
        payload,
        created_at: Timestamp::from_unix_millis(0),
        expires_at: Timestamp::from_unix_millis(60_000),
        decided_at: None,
        consumed_at: None,
        terminal_at: None,
    }
}

#[test]
fn control_characters_are_escaped_newlines_and_tabs_kept() {
    assert_eq!(
        terminal_safe("a\u{1b}[2Jb\tc\nd\u{7}\u{9b}"),
        "a\\u{1b}[2Jb\tc\nd\\u{7}\\u{9b}"
    );
}

#[test]
fn a_preview_shows_at_most_its_limit_and_counts_the_rest() {
    let at = "x".repeat(ADMIN_PREVIEW_CHARS);
    assert_eq!(preview(&at), format!("    | {at}\n"));
    let over = preview(&"é".repeat(ADMIN_PREVIEW_CHARS + 2));
    assert!(
        over.ends_with("\n    [... 2 more characters not shown]\n"),
        "{}",
        &over[over.len() - 80..]
    );
    assert_eq!(preview("a\nb"), "    | a\n    | b\n");
}

#[test]
fn a_write_request_says_whether_it_creates_parents() {
    let shown = |create: Value| {
        let r =
            write_request(json!({"path": "notes.txt", "content": "hi", "create_parents": create}));
        describe(&r, Timestamp::from_unix_millis(1))
    };
    assert!(
        shown(json!(true)).contains("create parents:    yes\n"),
        "{}",
        shown(json!(true))
    );
    assert!(shown(json!(false)).contains("create parents:    no\n"));
    assert!(shown(Value::Null).contains("create parents:    no\n"));
    let text = shown(json!(true));
    assert!(text.contains("status:            PENDING\n"), "{text}");
    assert!(
        text.contains("  new content (2 bytes):\n    | hi\n"),
        "{text}"
    );
}
