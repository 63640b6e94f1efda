//! Expiry through the tool layer with an injected clock (no sleeping): pending and approved
//! requests expire, `request_status` reports it without persisting anything, and resumes
//! are refused with APPROVAL_EXPIRED.

use std::sync::Arc;
use std::time::Duration;

use mcp_safety_core::clock::{ManualClock, Timestamp};
use mcp_toolhub::config::{Config, ENV_APPROVAL_TTL, ENV_STATE_ROOT, ENV_WORKSPACE_ROOT};
use mcp_toolhub::contract::{Outcome, RequestIdInput, WriteFileInput};
use mcp_toolhub::hub::Hub;

fn hub(dir: &tempfile::TempDir) -> (Arc<Hub>, Arc<ManualClock>) {
    let ws = dir.path().join("ws");
    std::fs::create_dir_all(&ws).expect("mkdir");
    std::fs::write(ws.join("notes.txt"), "v1\n").expect("write");
    let state = dir.path().join("state").display().to_string();
    let ws = ws.display().to_string();
    let config = Config::from_lookup(&|k| match k {
        ENV_WORKSPACE_ROOT => Some(ws.clone()),
        ENV_STATE_ROOT => Some(state.clone()),
        ENV_APPROVAL_TTL => Some("60".into()),
        _ => None,
    })
    .expect("config");
    let clock = ManualClock::shared(Timestamp::from_unix_millis(1_800_000_000_000));
    (Hub::with_clock(config, clock.clone()), clock)
}

fn submit(hub: &Hub) -> String {
    let out = hub
        .write_file(WriteFileInput {
            path: "notes.txt".into(),
            content: "v2\n".into(),
            create_parents: None,
            expected_hash: None,
        })
        .expect("write_file");
    assert_eq!(out.lifecycle.outcome, Outcome::ApprovalRequired);
    out.lifecycle.request_id.expect("request id")
}

fn status(hub: &Hub, rid: &str) -> Outcome {
    hub.request_status(RequestIdInput {
        request_id: rid.into(),
    })
    .expect("status")
    .outcome
}

#[test]
fn pending_and_approved_requests_expire() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (hub, clock) = hub(&dir);
    assert_eq!(hub.capabilities().limits.approval_ttl_seconds, 60);
    let pending = submit(&hub);
    let approved = submit(&hub);
    hub.approvals.approve(&approved).expect("approve");

    clock.advance(Duration::from_secs(59));
    assert_eq!(status(&hub, &pending), Outcome::ApprovalPending);
    assert_eq!(status(&hub, &approved), Outcome::ApprovalApproved);

    clock.advance(Duration::from_secs(1));
    let before = hub.approvals.export().expect("store");
    assert_eq!(status(&hub, &pending), Outcome::ApprovalExpired);
    assert_eq!(status(&hub, &approved), Outcome::ApprovalExpired);
    assert_eq!(
        hub.approvals.export().expect("store"),
        before,
        "request_status must not persist lazy expiry"
    );

    let out = hub
        .write_file_approved(RequestIdInput {
            request_id: approved.clone(),
        })
        .expect("resume");
    assert_eq!(out.lifecycle.outcome, Outcome::ApprovalExpired);
    assert!(!out.lifecycle.executed);
    let ws = hub.workspace.root().join("notes.txt");
    assert_eq!(std::fs::read_to_string(ws).expect("read"), "v1\n");

    // A clock stepping back does not revive a request whose expiry was persisted.
    clock.set(Timestamp::from_unix_millis(1_800_000_000_000));
    assert_eq!(status(&hub, &approved), Outcome::ApprovalExpired);
}
