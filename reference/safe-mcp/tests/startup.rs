//! Startup contract: every configuration failure is one `fatal:` line on stderr, a nonzero
//! exit and nothing on stdout; `--config` wins over `SAFE_MCP_POLICY_FILE`; environment
//! overrides win over keys (and the message names the variable). The exact text of each
//! message: `tests/config_messages.rs`.

#![allow(clippy::unwrap_used)]

mod common;

use assert_cmd::Command;
use common::{BASE_POLICY, BIN, Sandbox};
use predicates::prelude::*;

fn cmd() -> Command {
    let mut c = Command::new(BIN);
    for k in [
        "SAFE_MCP_POLICY_FILE",
        "SAFE_MCP_JAIL_ROOT",
        "SAFE_MCP_AUDIT_LOG",
        "SAFE_MCP_AUDIT_FAIL_MODE",
    ] {
        c.env_remove(k);
    }
    c
}

fn assert_fatal(mut c: Command, needle: &str) {
    let out = c.write_stdin("").assert().failure().stdout("");
    let err = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert_eq!(err.lines().count(), 1, "one line: {err}");
    assert!(err.starts_with("fatal: "), "{err}");
    assert!(err.contains(needle), "want {needle:?} in {err}");
}

#[test]
fn no_policy_path_refuses() {
    let mut c = cmd();
    c.arg("terminal");
    assert_fatal(c, "SAFE_MCP_POLICY_FILE");
}

#[test]
fn policy_file_failures() {
    let sb = Sandbox::new();
    let cases: &[(&str, &str)] = &[
        ("not toml at all", "policy.toml:1:5: "),
        ("[terminal]\n", "terminal.jail_root is not set"),
        ("[terminal]\njail_root = \"missing\"\n", "does not exist"),
        (
            "[terminal]\njail_root = \"policy.toml\"\n",
            "is not a directory",
        ),
        (
            "[terminal]\njail_root = \"jail\"\n[redaction]\nextra_patterns = [{ name = \"broken\", regex = \"[\" }]\n",
            "does not compile (pattern \"broken\")",
        ),
        (
            "audit_log = \"jail/audit.jsonl\"\n[terminal]\njail_root = \"jail\"\n",
            "must be outside",
        ),
        (
            "[terminal]\njail_root = \"jail\"\n[[files.skip]]\nwhen = [\"unsafe-name\"]\nreason = \"r\"\n",
            "no layer",
        ),
    ];
    for (body, needle) in cases {
        let p = sb.policy(body);
        let mut c = cmd();
        c.arg("terminal").arg("--config").arg(&p);
        assert_fatal(c, needle);
    }
    let mut c = cmd();
    c.arg("terminal")
        .arg("--config")
        .arg(sb.path("absent.toml"));
    assert_fatal(c, "cannot read the policy file");
}

#[test]
fn config_flag_beats_the_env_var_and_env_beats_keys() {
    let sb = Sandbox::new();
    let good = sb.policy(BASE_POLICY);
    // The env var names a missing file; --config wins, so the server starts and ends at EOF.
    cmd()
        .arg("terminal")
        .arg("--config")
        .arg(&good)
        .env("SAFE_MCP_POLICY_FILE", sb.path("absent.toml"))
        .write_stdin("")
        .assert()
        .success()
        .stdout("");
    // Without --config the env var is used.
    cmd()
        .arg("terminal")
        .env("SAFE_MCP_POLICY_FILE", &good)
        .write_stdin("")
        .assert()
        .success()
        .stdout("");
    // SAFE_MCP_JAIL_ROOT overrides a valid key: pointing it at a file is fatal.
    let mut c = cmd();
    c.arg("terminal")
        .arg("--config")
        .arg(&good)
        .env("SAFE_MCP_JAIL_ROOT", sb.path("policy.toml"));
    assert_fatal(c, "SAFE_MCP_JAIL_ROOT=");
    // SAFE_MCP_AUDIT_LOG overrides the key: into the jail is fatal.
    let mut c = cmd();
    c.arg("terminal")
        .arg("--config")
        .arg(&good)
        .env("SAFE_MCP_AUDIT_LOG", sb.path("jail/a.jsonl"));
    assert_fatal(c, "SAFE_MCP_AUDIT_LOG=");
    let mut c = cmd();
    c.arg("terminal")
        .arg("--config")
        .arg(&good)
        .env("SAFE_MCP_AUDIT_FAIL_MODE", "sometimes");
    assert_fatal(c, "SAFE_MCP_AUDIT_FAIL_MODE=");
}

#[test]
fn help_version_and_files() {
    cmd().arg("--help").assert().success().stdout(
        predicate::str::contains("terminal").and(predicate::str::contains("SAFE_MCP_POLICY_FILE")),
    );
    cmd()
        .arg("--version")
        .assert()
        .success()
        .stdout(predicate::str::starts_with("safe-mcp "));
    cmd()
        .arg("files")
        .env_remove("SAFE_MCP_POLICY_FILE")
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicate::str::starts_with("fatal: no policy file"));
}
