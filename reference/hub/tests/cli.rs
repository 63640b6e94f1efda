//! The command line: configuration from the argument or `MCP_HUB_CONFIG`, help and version,
//! and configuration errors (exit 2, one stderr line naming file and key, nothing on stdout).

mod common;

use assert_cmd::Command;
use common::{Hub, Sandbox};
use predicates::prelude::*;

fn hub() -> Command {
    let mut cmd = Command::new(common::HUB);
    cmd.env_remove("MCP_HUB_CONFIG")
        .env_remove("MCP_HUB_STARTUP_TIMEOUT_MS")
        .timeout(common::DEADLINE);
    cmd
}

/// Asserts a configuration error: exit 2, empty stdout, one stderr line with `needles`.
fn config_error(cmd: &mut Command, needles: &[&str]) {
    let output = cmd.assert().code(2).stdout(predicate::str::is_empty());
    let stderr = String::from_utf8_lossy(&output.get_output().stderr).into_owned();
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    for needle in needles {
        assert!(stderr.contains(needle), "{needle:?} missing in {stderr}");
    }
}

#[test]
fn help_and_version_go_to_stdout() {
    hub()
        .arg("--help")
        .assert()
        .success()
        .stdout(predicate::str::contains("MCP_HUB_CONFIG"))
        .stdout(predicate::str::contains("MCP_HUB_STARTUP_TIMEOUT_MS"));
    hub()
        .arg("--version")
        .assert()
        .success()
        .stdout(predicate::str::starts_with("mcp-hub "));
}

#[test]
fn without_a_configuration_the_hub_refuses_to_start() {
    config_error(&mut hub(), &["MCP_HUB_CONFIG"]);
    config_error(hub().env("MCP_HUB_CONFIG", ""), &["MCP_HUB_CONFIG"]);
}

#[test]
fn configuration_errors_name_the_file_and_the_key() {
    let sandbox = Sandbox::new();
    let missing = sandbox.path("missing.toml");
    config_error(hub().arg(&missing), &["missing.toml", "cannot read"]);

    let cases = [
        ("", vec!["servers"]),
        (
            "[servers.\"a.b\"]\ncommand = \"x\"\n",
            vec!["servers.a.b", "instance id"],
        ),
        (
            "[servers.a]\ncommand = \"x\"\nprefix = \"g.h\"\n",
            vec!["servers.a.prefix"],
        ),
        (
            "[servers.a]\ncommand = \"x\"\nstderr = 1\n",
            vec!["servers.a.stderr", ":3:"],
        ),
        (
            "[servers.a]\ncommand = \"x\"\n[servers.a.tools.overrides.\"e*\"]\nread_only = true\n",
            vec!["servers.a.tools.overrides.e*"],
        ),
    ];
    for (text, needles) in cases {
        let path = sandbox.path("bad.toml");
        std::fs::write(&path, text).expect("write");
        let mut needles = needles;
        needles.push("bad.toml");
        config_error(hub().arg(&path), &needles);
    }
}

#[test]
fn an_invalid_startup_timeout_is_a_configuration_error() {
    let sandbox = Sandbox::new();
    let path = sandbox.config("[servers.a]\ncommand = FIXTURE\nargs = [\"fixture-server\"]\n");
    config_error(
        hub().arg(&path).env("MCP_HUB_STARTUP_TIMEOUT_MS", "soon"),
        &["MCP_HUB_STARTUP_TIMEOUT_MS"],
    );
}

#[test]
fn the_configuration_can_come_from_mcp_hub_config() {
    let sandbox = Sandbox::new();
    let path = sandbox.config(
        "[servers.fx]\nprefix = \"fx\"\ncommand = FIXTURE\nargs = [\"fixture-server\"]\n[servers.fx.tools]\ninclude = [\"echo\"]\n",
    );
    let path = path.display().to_string();
    let mut hub = Hub::spawn(&[], &[("MCP_HUB_CONFIG", path.as_str())]);
    let init = hub.initialize();
    assert_eq!(init["result"]["protocolVersion"], "2025-11-25");
    assert_eq!(hub.tool_names(), ["fx.echo"]);
    hub.close_stdin();
    assert!(hub.wait_exit().success());
}
