//! Approval lifecycles over real pipes, with the real admin binary approving via stdin.

mod common;

use common::{Sandbox, Server};
use predicates::prelude::*;
use serde_json::{Value, json};

fn sha256(s: &str) -> String {
    mcp_safety_core::digest::sha256_hex(s.as_bytes())
}

fn submit_write(s: &mut Server, path: &str, content: &str) -> (String, String) {
    let r = s.structured(
        "filesystem.write_file",
        json!({"path": path, "content": content}),
    );
    assert_eq!(r["outcome"], "APPROVAL_REQUIRED", "{r}");
    assert_eq!(r["executed"], false);
    assert_eq!(r["approval"]["status"], "PENDING");
    assert_eq!(
        r["approval"]["resume_tool"],
        "filesystem.write_file_approved"
    );
    let rid = r["approval"]["request_id"]
        .as_str()
        .expect("rid")
        .to_string();
    assert_eq!(r["request_id"], json!(rid));
    (rid, r["trace_id"].as_str().expect("trace").to_string())
}

/// A workspace holding notes.txt ("v1\n") and an initialized server over it.
fn notes_v1() -> (Sandbox, Server) {
    let sb = Sandbox::new();
    sb.write("notes.txt", "v1\n");
    let mut s = sb.server();
    s.initialize();
    (sb, s)
}

/// Submits `args` to `tool`, which must answer APPROVAL_REQUIRED, and has the operator
/// approve it; returns the request id.
fn approved(sb: &Sandbox, s: &mut Server, tool: &str, args: Value) -> String {
    let r = s.structured(tool, args);
    assert_eq!(r["outcome"], "APPROVAL_REQUIRED", "{r}");
    let rid = r["approval"]["request_id"]
        .as_str()
        .expect("rid")
        .to_string();
    sb.admin(&["approve", &rid], "APPROVE\n").success();
    rid
}

fn status(s: &mut Server, rid: &str) -> Value {
    s.structured("toolhub.request_status", json!({"request_id": rid}))
}

#[test]
fn write_lifecycle_with_the_admin_approving_on_stdin() {
    let (sb, mut s) = notes_v1();
    let (rid, trace) = submit_write(&mut s, "notes.txt", "v2\n");

    let st = status(&mut s, &rid);
    assert_eq!(st["outcome"], "APPROVAL_PENDING");
    assert_eq!(st["trace_id"], json!(trace));
    assert!(st["approval"].get("payload").is_none());

    sb.admin(&["list"], "")
        .success()
        .stdout(predicate::str::contains(&rid).and(predicate::str::contains("PENDING")));
    // The operator sees the protected request and must type APPROVE exactly.
    sb.admin(&["approve", &rid], "APPROVE\n").success().stdout(
        predicate::str::contains("notes.txt")
            .and(predicate::str::contains("v2"))
            .and(predicate::str::contains(&trace))
            .and(predicate::str::contains(sha256("v1\n"))),
    );
    assert_eq!(status(&mut s, &rid)["outcome"], "APPROVAL_APPROVED");
    assert_eq!(
        sb.read("notes.txt"),
        "v1\n",
        "approval alone writes nothing"
    );

    let done = s.structured("filesystem.write_file_approved", json!({"request_id": rid}));
    assert_eq!(done["outcome"], "SUCCEEDED", "{done}");
    assert_eq!(done["executed"], true);
    assert_eq!(done["trace_id"], json!(trace));
    assert_eq!(done["approval"]["status"], "CONSUMED");
    assert_eq!(done["new_hash"], json!(sha256("v2\n")));
    assert_eq!(done["previous_hash"], json!(sha256("v1\n")));
    assert_eq!(sb.read("notes.txt"), "v2\n");

    // Single use.
    let again = s.structured("filesystem.write_file_approved", json!({"request_id": rid}));
    assert_eq!(again["outcome"], "APPROVAL_CONSUMED");
    assert_eq!(again["executed"], false);
    assert_eq!(again["trace_id"], json!(trace));
    // A refused resume still names the request's file; an unknown request names none.
    assert_eq!(again["path"], "notes.txt", "{again}");
    let unknown = s.structured(
        "filesystem.write_file_approved",
        json!({"request_id": "req_0000"}),
    );
    assert_eq!(unknown["path"], "", "{unknown}");
    assert_eq!(status(&mut s, &rid)["outcome"], "APPROVAL_CONSUMED");

    // The audit trail of the lifecycle, under its trace id.
    let audit = s.structured("toolhub.audit_recent", json!({"limit": 50}));
    let events: Vec<&str> = audit["events"]
        .as_array()
        .expect("events")
        .iter()
        .filter(|e| e["trace_id"] == json!(trace))
        .filter_map(|e| e["event"].as_str())
        .collect();
    for want in [
        "approval.requested",
        "approval.approved",
        "approval.consumed",
        "operation.executed",
    ] {
        assert!(events.contains(&want), "{want} missing from {events:?}");
    }
    assert!(
        !audit.to_string().contains("v2\\n"),
        "content leaked into audit"
    );
    let (code, _) = s.close();
    assert!(code.success());
}

#[test]
fn wrong_confirmation_and_rejection_change_nothing() {
    let (sb, mut s) = notes_v1();
    let (rid, trace) = submit_write(&mut s, "notes.txt", "v2\n");
    for answer in ["approve\n", "APPROVE \n", "yes\n", ""] {
        sb.admin(&["approve", &rid], answer)
            .code(1)
            .stderr(predicate::str::contains("NOT approved"));
        assert_eq!(status(&mut s, &rid)["outcome"], "APPROVAL_PENDING");
    }
    sb.admin(&["reject", &rid], "").success();
    assert_eq!(status(&mut s, &rid)["outcome"], "APPROVAL_REJECTED");
    sb.admin(&["approve", &rid], "APPROVE\n").code(1);
    let r = s.structured("filesystem.write_file_approved", json!({"request_id": rid}));
    assert_eq!(r["outcome"], "APPROVAL_REJECTED");
    assert_eq!(r["executed"], false);
    assert_eq!(r["trace_id"], json!(trace));
    assert_eq!(sb.read("notes.txt"), "v1\n");
    sb.admin(&["approve", "req_0000"], "APPROVE\n").code(1);
}

#[test]
fn conflicts_at_submission_and_after_approval() {
    let (sb, mut s) = notes_v1();
    let r = s.structured(
        "filesystem.write_file",
        json!({"path": "notes.txt", "content": "v2\n", "expected_hash": sha256("other")}),
    );
    assert_eq!(r["outcome"], "CONFLICT", "{r}");
    assert_eq!(r["executed"], false);
    assert!(r.get("approval").is_none());
    assert!(r["error"]["code"].is_string());

    let args = json!({"path": "notes.txt", "content": "v2\n", "expected_hash": sha256("v1\n")});
    let rid = approved(&sb, &mut s, "filesystem.write_file", args);
    sb.write("notes.txt", "changed by someone else\n");
    let r = s.structured("filesystem.write_file_approved", json!({"request_id": rid}));
    assert_eq!(r["outcome"], "CONFLICT", "{r}");
    assert_eq!(r["executed"], false);
    assert_eq!(sb.read("notes.txt"), "changed by someone else\n");
    // Consumed before validation: a retry needs a new approval.
    let r = s.structured("filesystem.write_file_approved", json!({"request_id": rid}));
    assert_eq!(r["outcome"], "APPROVAL_CONSUMED");
}

#[test]
fn patch_lifecycle_and_operation_mismatch() {
    let sb = Sandbox::new();
    sb.write("src/lib.txt", "a\nb\nc\n");
    let mut s = sb.server();
    s.initialize();
    let patch = "--- a/src/lib.txt\n+++ b/src/lib.txt\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n";
    let r = s.structured(
        "filesystem.apply_patch",
        json!({"path": "src/lib.txt", "patch": patch}),
    );
    assert_eq!(r["outcome"], "APPROVAL_REQUIRED", "{r}");
    assert_eq!(
        r["approval"]["resume_tool"],
        "filesystem.apply_patch_approved"
    );
    let rid = r["approval"]["request_id"]
        .as_str()
        .expect("rid")
        .to_string();
    let trace = r["trace_id"].clone();
    sb.admin(&["approve", &rid], "APPROVE\n")
        .success()
        .stdout(predicate::str::contains("+B"));

    // The wrong resume tool refuses without consuming.
    let wrong = s.structured("filesystem.write_file_approved", json!({"request_id": rid}));
    assert_eq!(wrong["outcome"], "REFUSED", "{wrong}");
    assert_eq!(wrong["error"]["code"], "OPERATION_MISMATCH");
    assert_eq!(status(&mut s, &rid)["outcome"], "APPROVAL_APPROVED");
    let shell = s.structured("shell.run_approved", json!({"request_id": rid}));
    assert_eq!(shell["outcome"], "REFUSED");
    assert_eq!(status(&mut s, &rid)["outcome"], "APPROVAL_APPROVED");

    let done = s.structured(
        "filesystem.apply_patch_approved",
        json!({"request_id": rid}),
    );
    assert_eq!(done["outcome"], "SUCCEEDED", "{done}");
    assert_eq!(done["trace_id"], trace);
    assert_eq!(done["additions"], 1);
    assert_eq!(done["deletions"], 1);
    assert_eq!(done["changed"], true);
    assert_eq!(sb.read("src/lib.txt"), "a\nB\nc\n");

    // A patch that does not apply is not submitted.
    let r = s.structured(
        "filesystem.apply_patch",
        json!({"path": "src/lib.txt", "patch": patch}),
    );
    assert_eq!(r["outcome"], "CONFLICT", "{r}");
    assert!(r.get("approval").is_none());
}

#[test]
fn unknown_ids_confinement_and_shell_secrets() {
    let sb = Sandbox::new();
    sb.write("notes.txt", "v1\n");
    let outside = sb.dir.path().join("outside.txt");
    std::fs::write(&outside, "secret\n").expect("write");
    std::os::unix::fs::symlink(&outside, sb.workspace.join("link.txt")).expect("symlink");
    std::os::unix::fs::symlink(sb.dir.path(), sb.workspace.join("up")).expect("symlink");
    let mut s = sb.server();
    s.initialize();

    let a = status(&mut s, "req_00000000000000000000000000000000");
    let b = status(&mut s, "not an id at all");
    for r in [&a, &b] {
        assert_eq!(r["outcome"], "REFUSED");
        assert_eq!(r["error"]["code"], "REQUEST_NOT_FOUND");
        assert!(r.get("approval").is_none());
    }
    let keys = |v: &Value| v.as_object().map(|m| m.keys().cloned().collect::<Vec<_>>());
    assert_eq!(keys(&a), keys(&b));
    let r = s.structured(
        "filesystem.write_file_approved",
        json!({"request_id": "req_00000000000000000000000000000000"}),
    );
    assert_eq!(r["outcome"], "REFUSED");
    assert_eq!(r["error"]["code"], "REQUEST_NOT_FOUND");

    // Reads: refused as tool errors carrying the code.
    for (path, code) in [
        ("../outside.txt", "PATH_TRAVERSAL"),
        ("/etc/passwd", "PATH_ABSOLUTE"),
        ("link.txt", "SYMLINK_REFUSED"),
        ("up/outside.txt", "SYMLINK_REFUSED"),
    ] {
        let r = s.call("filesystem.read_file", json!({"path": path}));
        assert_eq!(r["isError"], true, "{path}: {r}");
        let text = r["content"][0]["text"].as_str().expect("text");
        let body: Value = serde_json::from_str(text).expect("json text");
        assert_eq!(body["error"]["code"], code, "{path}");
        assert!(!text.contains("secret"));
    }
    // Mutations: structured REFUSED at submission, no approval created.
    for path in ["../outside.txt", "/tmp/x", "link.txt", "up/outside.txt"] {
        let r = s.structured(
            "filesystem.write_file",
            json!({"path": path, "content": "pwned\n"}),
        );
        assert_eq!(r["outcome"], "REFUSED", "{path}: {r}");
        assert!(r.get("approval").is_none());
    }
    assert_eq!(std::fs::read_to_string(&outside).expect("read"), "secret\n");
    let ok = s.structured("filesystem.read_file", json!({"path": "notes.txt"}));
    assert_eq!(ok["content"], "v1\n");
    assert_eq!(ok["sha256"], json!(sha256("v1\n")));
    let ls = s.structured("filesystem.list_directory", json!({}));
    let names: Vec<&str> = ls["entries"]
        .as_array()
        .expect("entries")
        .iter()
        .filter_map(|e| e["name"].as_str())
        .collect();
    assert_eq!(names, ["link.txt", "notes.txt", "up"]);

    let r = s.structured(
        "shell.run",
        json!({"program": "/bin/echo", "args": ["token=SENTINEL-123"]}),
    );
    assert_eq!(r["outcome"], "APPROVAL_REQUIRED", "{r}");
    assert_eq!(r["executed"], false);
    // The harness starts the server with an empty environment: no git on PATH.
    let r = s.call("git.status", json!({}));
    assert_eq!(r["isError"], true);
    assert!(r.to_string().contains("GIT_NOT_FOUND"), "{r}");
    let audit = s.structured("toolhub.audit_recent", json!({}));
    assert!(!audit.to_string().contains("SENTINEL-123"), "{audit}");
}

#[test]
fn capabilities() {
    let sb = Sandbox::new();
    let mut s = sb.server();
    s.initialize();
    let c = s.structured("toolhub.capabilities", json!({}));
    assert_eq!(c["contract_version"], "1.0");
    assert_eq!(c["package_version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(c["transport"], "stdio");
    assert_eq!(c["limits"]["shell_output_retained_chars"], 262_144);
    assert_eq!(c["limits"]["approval_ttl_seconds"], 900);
    assert_eq!(c["limits"]["approval_store_max_records"], 10_000);
    assert_eq!(c["approval_operations"].as_array().map(Vec::len), Some(3));
    let text = c.to_string();
    assert!(!text.contains(&sb.state.display().to_string()));
    assert!(!text.contains(&sb.workspace.display().to_string()));
}

#[test]
fn operator_prunes_are_dry_runs_unless_applied() {
    let (sb, mut s) = notes_v1();
    let (rid, _) = submit_write(&mut s, "notes.txt", "v2\n");
    sb.admin(&["reject", &rid], "").success();
    sb.admin(&["prune", "approvals", "--older-than-days", "0"], "")
        .success()
        .stdout(predicate::str::contains("dry run").and(predicate::str::contains(&rid)));
    assert_eq!(status(&mut s, &rid)["outcome"], "APPROVAL_REJECTED");
    sb.admin(
        &["prune", "approvals", "--older-than-days", "0", "--apply"],
        "",
    )
    .success();
    assert_eq!(status(&mut s, &rid)["error"]["code"], "REQUEST_NOT_FOUND");

    let count = |s: &mut Server| {
        s.structured("toolhub.audit_recent", json!({"limit": 500}))["count"].clone()
    };
    assert!(count(&mut s).as_u64().unwrap_or(0) >= 3);
    sb.admin(&["prune", "audit", "--keep-last", "1"], "")
        .success()
        .stdout(predicate::str::contains("dry run"));
    assert!(count(&mut s).as_u64().unwrap_or(0) >= 3);
    sb.admin(&["prune", "audit", "--keep-last", "1", "--apply"], "")
        .success();
    assert_eq!(count(&mut s), 1);
    sb.admin(&["prune", "audit", "--keep-last", "0", "--apply"], "")
        .success();
    assert_eq!(count(&mut s), 0);
    // A prune that removed nothing changed nothing, and records nothing either.
    sb.admin(
        &["prune", "approvals", "--older-than-days", "0", "--apply"],
        "",
    )
    .success()
    .stdout(predicate::str::contains("removed 0 "));
    assert_eq!(count(&mut s), 0);
}

#[test]
fn stops_are_audited_under_their_trace() {
    let (_sb, mut s) = notes_v1();
    let events = |s: &mut Server, trace: &Value| -> Vec<(String, String)> {
        s.structured("toolhub.audit_recent", json!({"limit": 500}))["events"]
            .as_array()
            .expect("events")
            .iter()
            .filter(|e| &e["trace_id"] == trace)
            .map(|e| {
                let text = |k: &str| e[k].as_str().unwrap_or_default().to_string();
                (text("event"), text("outcome"))
            })
            .collect()
    };
    let refused = s.structured(
        "filesystem.write_file",
        json!({"path": "../outside.txt", "content": "x"}),
    );
    assert_eq!(refused["outcome"], "REFUSED", "{refused}");
    assert_eq!(
        events(&mut s, &refused["trace_id"]),
        [("operation.refused".to_string(), "REFUSED".to_string())]
    );
    let conflict = s.structured(
        "filesystem.write_file",
        json!({"path": "notes.txt", "content": "v2\n", "expected_hash": "0".repeat(64)}),
    );
    assert_eq!(conflict["outcome"], "CONFLICT", "{conflict}");
    assert_eq!(
        events(&mut s, &conflict["trace_id"]),
        [("operation.conflict".to_string(), "CONFLICT".to_string())]
    );
}

#[test]
fn a_new_file_s_parent_is_checked_at_submission() {
    let (sb, mut s) = notes_v1();
    std::fs::create_dir_all(sb.workspace.join("sub/deeper")).expect("mkdir");
    std::os::unix::fs::symlink(sb.workspace.join("sub"), sb.workspace.join("link"))
        .expect("symlink");
    let mut submit = |path: &str, create_parents: Option<bool>| {
        let mut args = json!({"path": path, "content": "new\n"});
        if let Some(c) = create_parents {
            args["create_parents"] = json!(c);
        }
        let r = s.structured("filesystem.write_file", args);
        match r["outcome"].as_str() {
            Some("REFUSED") => r["error"]["code"].as_str().unwrap_or_default().to_string(),
            other => other.unwrap_or_default().to_string(),
        }
    };
    // Refused before any approval is asked for, so no human approves a write that cannot be.
    assert_eq!(submit("missing/new.txt", None), "PARENT_NOT_FOUND");
    assert_eq!(submit("missing/new.txt", Some(false)), "PARENT_NOT_FOUND");
    assert_eq!(submit("notes.txt/new.txt", None), "NOT_A_DIRECTORY");
    assert_eq!(submit("link/new.txt", None), "SYMLINK_REFUSED");
    assert_eq!(submit("link/new.txt", Some(true)), "SYMLINK_REFUSED");
    // The parent is checked at every depth, not only under a top-level folder.
    assert_eq!(submit("sub/missing/new.txt", None), "PARENT_NOT_FOUND");
    assert_eq!(submit("sub/deeper/gone/new.txt", None), "PARENT_NOT_FOUND");
    // An existing folder at any depth, or a missing one with create_parents, is fine.
    assert_eq!(submit("sub/new.txt", None), "APPROVAL_REQUIRED");
    assert_eq!(submit("sub/deeper/new.txt", None), "APPROVAL_REQUIRED");
    assert_eq!(submit("missing/new.txt", Some(true)), "APPROVAL_REQUIRED");
    assert_eq!(submit("top.txt", None), "APPROVAL_REQUIRED");
}

#[test]
fn an_approved_run_audits_its_capture_counters() {
    // "... with exact total/retained/dropped byte counters recorded as bounded audit metadata"
    let (sb, mut s) = notes_v1();
    let args = json!({"program": "/bin/sh", "args": ["-c", "printf 12345; printf ab >&2"]});
    let rid = approved(&sb, &mut s, "shell.run", args);
    let done = s.structured("shell.run_approved", json!({"request_id": rid}));
    assert_eq!(done["outcome"], "SUCCEEDED", "{done}");
    let audit = s.structured("toolhub.audit_recent", json!({"limit": 50}));
    let capture = audit["events"]
        .as_array()
        .expect("events")
        .iter()
        .find_map(|e| e["details"].get("capture"))
        .expect("an event with the capture counters")
        .clone();
    let counters = |stream: &str| {
        let c = &capture[stream];
        (
            c["total_bytes"].clone(),
            c["retained_bytes"].clone(),
            c["dropped_bytes"].clone(),
        )
    };
    assert_eq!(
        counters("stdout"),
        (json!(5), json!(5), json!(0)),
        "{capture}"
    );
    assert_eq!(
        counters("stderr"),
        (json!(2), json!(2), json!(0)),
        "{capture}"
    );
    // A refused resume echoes the stored request; an unknown one has none to echo.
    let again = s.structured("shell.run_approved", json!({"request_id": rid}));
    assert_eq!(again["outcome"], "APPROVAL_CONSUMED", "{again}");
    assert_eq!(again["program"], "/bin/sh", "{again}");
    assert_eq!(again["args"], json!(["-c", "printf 12345; printf ab >&2"]));
    assert_eq!(again["cwd"], ".");
    let unknown = s.structured("shell.run_approved", json!({"request_id": "req_0000"}));
    assert_eq!(unknown["program"], "", "{unknown}");
    assert_eq!(unknown["risk_reason"], "unknown request", "{unknown}");
}
