//! `safe-mcp terminal` over real stdio: verdicts, execution, containment, redaction, audit.

#![allow(clippy::unwrap_used)]

mod common;

use std::path::Path;

use common::{BASE_POLICY, Sandbox, Server};
use serde_json::json;

fn server(sb: &Sandbox, body: &str) -> Server {
    Server::start(&sb.policy(body), &[])
}

#[test]
fn allowlisted_runs_and_nonzero_exit_is_still_ok() {
    let sb = Sandbox::new();
    let mut s = server(&sb, BASE_POLICY);
    let r = s.run("cat notes.txt");
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(r["code"], "OK");
    assert_eq!(r["action"], "run_command");
    assert_eq!(r["reason"], "'cat' is allowed");
    assert_eq!(r["detail"]["exit_code"], 0);
    assert_eq!(r["detail"]["stdout"], "demo file\n");
    // No process was left behind, so none was killed and the field is left out.
    assert!(r["detail"].get("descendants_killed").is_none(), "{r}");
    let r = s.run("false");
    assert_eq!(
        (r["ok"].clone(), r["code"].clone()),
        (json!(true), json!("OK"))
    );
    assert_eq!(r["detail"]["exit_code"], 1);
}

#[test]
fn denials_carry_the_reason_and_explain_agrees() {
    let sb = Sandbox::new();
    let mut s = server(&sb, BASE_POLICY);
    for (cmd, reason) in [
        ("rm -rf /", "'rm' is on the denylist"),
        (
            "python3 -c 1",
            "'python3' is not on the allowlist (deny by default)",
        ),
        (
            "git push --force origin",
            "force-push rewrites shared history",
        ),
    ] {
        let run = s.run(cmd);
        let explain = s.call("explain_command", json!({ "command": cmd }));
        for r in [&run, &explain] {
            assert_eq!(r["ok"], false, "{r}");
            assert_eq!(r["code"], "POLICY_DENIED");
            assert_eq!(r["reason"], reason);
            assert_eq!(r["detail"], json!({}));
        }
    }
    // explain reaches "allowed" and runs nothing.
    let r = s.call(
        "explain_command",
        json!({"command": "touch made-by-explain"}),
    );
    assert_eq!(
        (r["ok"].clone(), r["code"].clone()),
        (json!(true), json!("OK"))
    );
    assert!(r["detail"].get("stdout").is_none() && r["detail"].get("exit_code").is_none());
    assert!(!sb.path("jail/made-by-explain").exists());
}

#[test]
fn metacharacters_are_refused_before_policy_even_quoted() {
    let sb = Sandbox::new();
    let mut s = server(&sb, BASE_POLICY);
    for m in [";", "|", "&", "<", ">", "`", "$("] {
        for cmd in [
            format!("echo a{m}b"),
            format!("echo \"a{m}b\""),
            format!("rm x{m}"),
        ] {
            for tool in ["run_command", "explain_command"] {
                let r = s.call(tool, json!({ "command": cmd }));
                assert_eq!(r["code"], "POLICY_DENIED", "{cmd}: {r}");
                let reason = r["reason"].as_str().unwrap();
                assert!(reason.contains("metacharacter"), "{cmd}: {reason}");
            }
        }
    }
}

#[test]
fn cwd_escape_runs_nothing() {
    let sb = Sandbox::new();
    std::fs::create_dir(sb.path("jail/sub")).unwrap();
    let mut s = server(&sb, BASE_POLICY);
    for cwd in ["..", "/", "sub/../.."] {
        let r = s.call(
            "run_command",
            json!({"command": "touch escaped", "cwd": cwd}),
        );
        assert_eq!(r["code"], "PATH_ESCAPE", "{cwd}: {r}");
        assert_eq!(r["detail"], json!({}));
    }
    assert!(!sb.path("escaped").exists() && !sb.path("jail/escaped").exists());
    let r = s.call(
        "run_command",
        json!({"command": "touch inside", "cwd": "sub"}),
    );
    assert_eq!(r["code"], "OK", "{r}");
    assert!(sb.path("jail/sub/inside").exists());
}

#[test]
fn child_environment_is_only_path_home_lang() {
    let sb = Sandbox::new();
    let mut s = Server::start(
        &sb.policy(BASE_POLICY),
        &[("LEAKY_TOKEN", "should-not-pass"), ("LANG", "C")],
    );
    let r = s.run("env");
    let out = r["detail"]["stdout"].as_str().unwrap();
    let names: Vec<&str> = out.lines().filter_map(|l| l.split('=').next()).collect();
    assert!(
        names.iter().all(|n| ["PATH", "HOME", "LANG"].contains(n)),
        "{out}"
    );
    assert_eq!(names.len(), 3, "{out}");
    assert!(out.contains("LANG=C\n"), "{out}");
}

fn write_script(dir: &Path, name: &str, body: &str) {
    use std::os::unix::fs::PermissionsExt;
    let p = dir.join(name);
    std::fs::write(&p, body).unwrap();
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
}

fn alive(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => {
            let state = stat.rsplit(')').next().unwrap_or("").trim_start();
            !state.starts_with('Z') && !state.starts_with('X')
        }
        Err(_) => false,
    }
}

#[test]
fn a_hung_command_times_out_and_leaves_no_descendant() {
    let sb = Sandbox::new();
    let bin = sb.path("bin");
    std::fs::create_dir(&bin).unwrap();
    // Backgrounds a grandchild, records its pid, then hangs.
    write_script(
        &bin,
        "forker",
        "#!/bin/sh\nsleep 30 &\necho $! > \"$1\"\necho started\nexec sleep 30\n",
    );
    let body = BASE_POLICY
        .replace("timeout_seconds = 10", "timeout_seconds = 0.3")
        .replace("\"false\"]", "\"false\", \"forker\"]");
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut s = Server::start(&sb.policy(&body), &[("PATH", &path)]);
    let r = s.run("forker grandchild.pid");
    assert_eq!(r["ok"], false, "{r}");
    assert_eq!(r["code"], "TIMEOUT");
    assert_eq!(r["detail"]["stdout"], "started\n");
    let pid: i32 = std::fs::read_to_string(sb.path("jail/grandchild.pid"))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert!(!alive(pid), "grandchild {pid} survived the timeout");
    let killed = r["detail"]["descendants_killed"].as_u64();
    assert!(
        killed.is_some_and(|n| n >= 1),
        "the grandchild is counted: {r}"
    );
}

#[test]
fn output_is_redacted_then_truncated_and_the_audit_is_redacted() {
    let sb = Sandbox::new();
    let body = BASE_POLICY.replace("max_output_bytes = 4096", "max_output_bytes = 16")
        + "\n[redaction]\nextra_patterns = [{ name = \"acme\", regex = \"ACME-[0-9]{12}\" }]\n";
    let mut s = server(&sb, &body);
    // The secret straddles the 16-byte cap.
    let r = s.run("echo abcdefghij ACME-123456789012");
    assert_eq!(r["code"], "OUTPUT_TRUNCATED", "{r}");
    assert_eq!(r["ok"], true);
    let out = r["detail"]["stdout"].as_str().unwrap();
    assert!(out.len() <= 16, "{out}");
    assert!(!out.contains("ACME") && !out.contains("1234"), "{out}");
    // Audit: an attempt and an outcome per call, the argument secret redacted.
    let audit = sb.audit();
    assert_eq!(audit.len(), 2, "{audit:?}");
    assert_eq!(audit[0]["phase"], "attempt");
    assert_eq!(audit[1]["phase"], "outcome");
    assert_eq!(audit[0]["call_id"], audit[1]["call_id"]);
    assert_eq!(audit[1]["code"], "OUTPUT_TRUNCATED");
    let text = std::fs::read_to_string(sb.path("state/audit.jsonl")).unwrap();
    assert!(!text.contains("ACME-1234"), "{text}");
    assert!(text.contains("[REDACTED]"), "{text}");
}

#[test]
fn audit_fail_closed_runs_nothing_and_open_proceeds() {
    let sb = Sandbox::new();
    let unwritable = BASE_POLICY.replace("state/audit.jsonl", "state/missing-dir/audit.jsonl");
    let mut s = server(&sb, &unwritable);
    let r = s.run("touch made-closed");
    assert_eq!(r["ok"], false, "{r}");
    assert_eq!(r["code"], "AUDIT_UNAVAILABLE");
    assert!(!sb.path("jail/made-closed").exists());
    drop(s);
    let open = format!("audit_fail_mode = \"open\"\n{unwritable}");
    let mut s = server(&sb, &open);
    let r = s.run("touch made-open");
    assert_eq!(r["code"], "OK", "{r}");
    assert!(sb.path("jail/made-open").exists());
}
