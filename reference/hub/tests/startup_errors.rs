//! What the hub says when an upstream cannot be used, and what it says on a normal start,
//! as exact text: the real `mcp-hub` over real upstream processes (a command that does not
//! exist, `sh` exiting with status 2 after one stderr line, the suite's fixture server).
//!
//! Log lines are compared without their timestamp; everything after it (level, target,
//! message, fields) is compared exactly. Every wait is a deadline (assert_cmd's timeout, the
//! line client's), never a sleep.

mod common;

use std::process::Command;

use assert_cmd::Command as Assert;
use common::{HUB, Sandbox};
use mcp_testkit::lines::{DEADLINE, LineClient};

/// An upstream whose command is nowhere on `PATH`.
const MISSING: &str = "[servers.x]\ncommand = \"no-such-upstream-command-y\"\n";
/// An upstream that writes one stderr line and exits with status 2 before reading anything.
const EXITS: &str =
    "[servers.quick]\ncommand = \"sh\"\nargs = [\"-c\", \"echo boom >&2; exit 2\"]\n";
/// A healthy upstream (seven tools).
const HEALTHY: &str = "[servers.fixture]\ncommand = FIXTURE\nargs = [\"fixture-server\"]\n";

const MISSING_CAUSE: &str = "command `no-such-upstream-command-y` not found on PATH";
const EXITS_CAUSE: &str = "exited with status 2 before answering initialize: boom";

/// A stderr line without its leading timestamp (log lines have one; the hub's own
/// `mcp-hub: ...` lines do not).
fn untimed(line: &str) -> String {
    let stamp = regex::Regex::new(r"^\d{4}-\d\d-\d\dT[0-9:.]+Z\s+").expect("regex");
    stamp.replace(line, "").into_owned()
}

fn untimed_lines(stderr: &str) -> Vec<String> {
    stderr.lines().map(untimed).collect()
}

/// The hub's own lines: its log records (target `mcp_hub...`) and its `mcp-hub: ...` lines.
/// Those of its MCP library (rmcp's INFO records of the client session) are left out: their
/// text is the library's, not the hub's.
fn hub_lines(lines: &[String]) -> Vec<String> {
    let own = regex::Regex::new(r"^(mcp-hub: |[A-Z]+ mcp_hub(::\S+)?: )").expect("regex");
    lines.iter().filter(|l| own.is_match(l)).cloned().collect()
}

/// Asserts that no line is a DEBUG or TRACE record, whoever logged it.
fn assert_no_debug(lines: &[String]) {
    let verbose = regex::Regex::new(r"^(DEBUG|TRACE) ").expect("regex");
    assert!(!lines.iter().any(|l| verbose.is_match(l)), "{lines:#?}");
}

/// Runs the hub (default logging: no `RUST_LOG`) on a configuration that cannot serve:
/// asserts exit 1 and an empty stdout, returns the stderr lines without timestamps.
fn failed_start(body: &str) -> Vec<String> {
    let sandbox = Sandbox::new();
    let path = sandbox.config(body);
    let output = Assert::new(HUB)
        .arg(&path)
        .env_remove("RUST_LOG")
        .env_remove("MCP_HUB_CONFIG")
        .env_remove("MCP_HUB_STARTUP_TIMEOUT_MS")
        .timeout(common::DEADLINE)
        .assert()
        .code(1)
        .stdout("")
        .get_output()
        .clone();
    let lines = untimed_lines(&String::from_utf8_lossy(&output.stderr));
    assert_no_debug(&lines);
    lines
}

/// Runs the hub (default logging) on a configuration that serves: initializes, lists the
/// tools, closes stdin; asserts that nothing was logged at DEBUG or TRACE; returns the tool
/// count and the hub's own stderr lines, without timestamps.
fn served(body: &str) -> (usize, Vec<String>) {
    let sandbox = Sandbox::new();
    let path = sandbox.config(body);
    let mut cmd = Command::new(HUB);
    cmd.arg(&path)
        .env_remove("RUST_LOG")
        .env_remove("MCP_HUB_CONFIG")
        .env_remove("MCP_HUB_STARTUP_TIMEOUT_MS");
    let mut client = LineClient::spawn(cmd, true);
    client.initialize("startup-errors");
    let list = client.request(1, "tools/list", serde_json::json!({}));
    let tools = list["result"]["tools"].as_array().map_or(0, Vec::len);
    client.close_stdin();
    let status = client
        .wait_exit(DEADLINE)
        .expect("the hub exits on stdin EOF");
    assert!(status.success(), "{status}");
    let lines = untimed_lines(&client.stderr_text());
    assert_no_debug(&lines);
    (tools, hub_lines(&lines))
}

#[test]
fn a_missing_command_is_named_with_its_upstream_first() {
    assert_eq!(
        failed_start(MISSING),
        [
            format!("WARN mcp_hub::upstream: upstream `x` omitted: {MISSING_CAUSE} instance_id=x"),
            format!("mcp-hub: startup failed: upstream `x`: {MISSING_CAUSE}"),
        ]
    );
}

/// The process is started twice (the first exit happens on the `server/discover` probe,
/// after which a legacy server is restarted to be initialized), so its line is relayed twice.
#[test]
fn an_upstream_that_exits_at_once_is_reported_with_its_status_and_last_stderr_line() {
    assert_eq!(
        failed_start(EXITS),
        [
            "INFO mcp_hub::upstream_stderr: boom instance_id=quick".to_owned(),
            "INFO mcp_hub::upstream_stderr: boom instance_id=quick".to_owned(),
            format!(
                "WARN mcp_hub::upstream: upstream `quick` omitted: {EXITS_CAUSE} instance_id=quick"
            ),
            format!("mcp-hub: startup failed: upstream `quick`: {EXITS_CAUSE}"),
        ]
    );
}

#[test]
fn without_its_stderr_an_exiting_upstream_is_reported_with_its_status() {
    let body = EXITS.replace("command = \"sh\"", "stderr = false\ncommand = \"sh\"");
    let cause = "exited with status 2 before answering initialize";
    assert_eq!(
        failed_start(&body),
        [
            format!("WARN mcp_hub::upstream: upstream `quick` omitted: {cause} instance_id=quick"),
            format!("mcp-hub: startup failed: upstream `quick`: {cause}"),
        ]
    );
}

/// Several unusable upstreams: the failure line names each, in configuration order.
#[test]
fn every_omitted_upstream_is_named_in_the_failure() {
    let lines = failed_start(&format!("{MISSING}\n{EXITS}"));
    assert_eq!(
        lines.last().map(String::as_str),
        Some(
            format!(
                "mcp-hub: startup failed: upstream `x`: {MISSING_CAUSE}; upstream `quick`: \
                 {EXITS_CAUSE}"
            )
            .as_str()
        ),
        "{lines:#?}"
    );
}

/// Upstreams that failed are omitted and warned about (named, with why); the healthy one
/// serves, and nothing is logged at DEBUG.
#[test]
fn with_some_upstreams_unusable_the_others_serve() {
    let (tools, lines) = served(&format!("{HEALTHY}\n{MISSING}\n{EXITS}"));
    assert_eq!(tools, 7);
    // The upstreams start concurrently: their lines come in any order, before "serving".
    let mut startup = lines[..lines.len() - 2].to_vec();
    startup.sort();
    assert_eq!(
        startup,
        [
            "INFO mcp_hub::upstream_stderr: boom instance_id=quick".to_owned(),
            "INFO mcp_hub::upstream_stderr: boom instance_id=quick".to_owned(),
            format!(
                "WARN mcp_hub::upstream: upstream `quick` omitted: {EXITS_CAUSE} instance_id=quick"
            ),
            format!("WARN mcp_hub::upstream: upstream `x` omitted: {MISSING_CAUSE} instance_id=x"),
        ],
        "{lines:#?}"
    );
    assert_eq!(
        lines[lines.len() - 2..],
        [
            "INFO mcp_hub::run: serving tools=7 upstreams=1",
            "INFO mcp_hub::run: client closed stdin; shutting down",
        ],
        "{lines:#?}"
    );
}

#[test]
fn a_normal_start_logs_at_info_without_debug_lines() {
    let (tools, lines) = served(HEALTHY);
    assert_eq!(tools, 7);
    assert_eq!(
        lines,
        [
            "INFO mcp_hub::run: serving tools=7 upstreams=1",
            "INFO mcp_hub::run: client closed stdin; shutting down",
        ]
    );
}

#[test]
fn a_usage_error_keeps_clap_s_tip_and_usage_line_and_writes_no_stdout() {
    let out = Assert::new(HUB)
        .arg("--bogus")
        .timeout(DEADLINE)
        .output()
        .expect("mcp-hub runs");
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "mcp-hub: unexpected argument '--bogus' found; tip: to pass '--bogus' as a value, \
         use '-- --bogus' (see --help)\nUsage: mcp-hub [CONFIG]\n"
    );
}
