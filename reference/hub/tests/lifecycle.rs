//! Process lifecycle: concurrent startup, omitted upstreams, stderr relay, and upstream
//! children ending with the hub (stdin EOF, SIGTERM, SIGKILL).

mod common;

use std::time::{Duration, Instant};

use common::{Hub, Sandbox, children, fixtures, wait_gone};
use mcp_testkit::procs::{alive, wait_until};
use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;

/// Starts a hub over `n` fixture upstreams and waits until it serves.
fn serving(sandbox: &Sandbox, n: usize) -> (Hub, Vec<common::Proc>) {
    let path = sandbox.config(&fixtures(n, ""));
    let mut hub = Hub::spawn(&[&path], &[]);
    hub.initialize();
    let upstreams = children(hub.pid());
    assert_eq!(upstreams.len(), n, "one child per upstream");
    (hub, upstreams)
}

#[test]
fn upstreams_end_on_stdin_eof() {
    let sandbox = Sandbox::new();
    let (mut hub, upstreams) = serving(&sandbox, 2);
    hub.close_stdin();
    assert!(hub.wait_exit().success());
    wait_gone(&upstreams);
}

/// On stdin EOF the hub closes each upstream's stdin and gives it a grace period to finish
/// before it ends the group: an upstream that does a little work after its server exits
/// (here a wrapper that touches a marker 100 ms later) gets to do it.
#[test]
fn upstreams_get_a_grace_period_on_stdin_eof() {
    let sandbox = Sandbox::new();
    let marker = sandbox.path("finished");
    let body = format!(
        "[servers.slow_exit]\ncommand = \"sh\"\nargs = [\"-c\", \"\\\"$0\\\" fixture-server; sleep 0.1; touch \\\"$1\\\"\", FIXTURE, {}]\n",
        toml_quoted(&marker.display().to_string())
    );
    let path = sandbox.config(&body);
    let mut hub = Hub::spawn(&[&path], &[]);
    hub.initialize();
    hub.close_stdin();
    assert!(hub.wait_exit().success());
    assert!(
        marker.exists(),
        "the upstream was ended before it could finish after EOF"
    );
}

fn toml_quoted(s: &str) -> String {
    serde_json::to_string(s).expect("a string")
}

/// Reads the pid a wrapper upstream wrote to `path` (waits for the file, bounded).
fn pid_from(path: &std::path::Path) -> i32 {
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut pid = None;
    assert!(
        wait_until(deadline, || {
            pid = std::fs::read_to_string(path)
                .ok()
                .and_then(|t| t.trim().parse().ok());
            pid.is_some()
        }),
        "no pid in {}",
        path.display()
    );
    pid.unwrap_or_default()
}

/// Waits (bounded) for `pid` to end; fails with `what` if it does not.
fn assert_ends(pid: i32, what: &str) {
    assert!(
        wait_until(Instant::now() + Duration::from_secs(10), || !alive(pid)),
        "{what} (pid {pid})"
    );
}

/// An upstream whose group outlives its MCP server (a wrapper that goes on after the server
/// exited on EOF) is signalled after the grace period, so the hub still exits and nothing of
/// that group is left.
#[test]
fn an_upstream_group_that_outlives_eof_is_ended() {
    let sandbox = Sandbox::new();
    let pidfile = sandbox.path("lingering.pid");
    let body = format!(
        "[servers.lingering]\ncommand = \"sh\"\nargs = [\"-c\", \"\\\"$0\\\" fixture-server; sleep 600 & echo $! > \\\"$1\\\"; wait\", FIXTURE, {}]\n",
        toml_quoted(&pidfile.display().to_string())
    );
    let path = sandbox.config(&body);
    let mut hub = Hub::spawn(&[&path], &[]);
    hub.initialize();
    hub.close_stdin();
    assert!(hub.wait_exit().success());
    assert_ends(pid_from(&pidfile), "the upstream's sleep outlived the hub");
}

/// An upstream omitted at startup is ended with its whole process group, not only the
/// process the hub started: a descendant it left in the background does not survive.
#[test]
fn an_omitted_upstream_leaves_no_descendant() {
    let sandbox = Sandbox::new();
    let pidfile = sandbox.path("background.pid");
    let body = format!(
        "[servers.good]\ncommand = FIXTURE\nargs = [\"fixture-server\"]\n\n[servers.refuses]\ncommand = \"sh\"\nargs = [\"-c\", \"sleep 600 & echo $! > \\\"$1\\\"; exec \\\"$0\\\" fixture-server --fail-initialize\", FIXTURE, {}]\n",
        toml_quoted(&pidfile.display().to_string())
    );
    let path = sandbox.config(&body);
    let mut hub = Hub::spawn(&[&path], &[]);
    hub.initialize();
    hub.wait_stderr(&["instance_id=refuses", "omitted"]);
    assert_ends(
        pid_from(&pidfile),
        "the omitted upstream's background process survived",
    );
}

/// An upstream that dies after startup is reported as lost (WARN, with its instance id); the
/// hub's own shutdown ending every upstream is not a loss and warns about none.
#[test]
fn a_lost_upstream_is_warned_about_a_shutdown_is_not() {
    let sandbox = Sandbox::new();
    let path = sandbox.config(
        "[servers.fragile]\nprefix = \"fragile\"\ncommand = FIXTURE\nargs = [\"fixture-server\", \"--crash-after\", \"1\"]\n\n[servers.steady]\nprefix = \"steady\"\ncommand = FIXTURE\nargs = [\"fixture-server\"]\n",
    );
    let mut hub = Hub::spawn(&[&path], &[]);
    hub.initialize();
    hub.request(
        "tools/call",
        serde_json::json!({"name": "fragile.echo", "arguments": {"text": "last words"}}),
    );
    hub.wait_stderr(&["WARN", "instance_id=fragile", "upstream connection lost"]);
    hub.close_stdin();
    assert!(hub.wait_exit().success());
    let lost: Vec<String> = hub
        .stderr_text()
        .lines()
        .filter(|l| l.contains("upstream connection lost"))
        .map(str::to_owned)
        .collect();
    assert_eq!(lost.len(), 1, "{lost:#?}");
}

#[test]
fn upstreams_end_on_sigterm() {
    let sandbox = Sandbox::new();
    let (mut hub, upstreams) = serving(&sandbox, 2);
    kill(Pid::from_raw(hub.pid()), Signal::SIGTERM).expect("SIGTERM");
    hub.wait_exit();
    wait_gone(&upstreams);
}

#[test]
fn upstreams_end_when_the_hub_is_killed() {
    let sandbox = Sandbox::new();
    let (mut hub, upstreams) = serving(&sandbox, 2);
    kill(Pid::from_raw(hub.pid()), Signal::SIGKILL).expect("SIGKILL");
    hub.wait_exit();
    wait_gone(&upstreams);
}

#[test]
fn upstreams_start_concurrently() {
    let sandbox = Sandbox::new();
    let path = sandbox.config(&fixtures(3, ", \"--init-delay-ms\", \"300\""));
    let start = Instant::now();
    let mut hub = Hub::spawn(&[&path], &[]);
    hub.initialize();
    let took = start.elapsed();
    // One after another would take at least 900 ms.
    assert!(took < Duration::from_millis(800), "startup took {took:?}");
    assert_eq!(hub.tool_names().len(), 3 * 7);
}

#[test]
fn failing_and_slow_upstreams_are_omitted_and_logged() {
    let sandbox = Sandbox::new();
    let path = sandbox.config(
        r#"
[servers.good]
command = FIXTURE
args = ["fixture-server"]
[servers.good.tools]
include = ["echo"]

[servers.missing]
command = "./no-such-upstream-program"

[servers.exits]
command = FIXTURE
args = ["fixture-server", "--exit-at-start", "1"]

[servers.refuses]
command = FIXTURE
args = ["fixture-server", "--fail-initialize"]

[servers.slow_init]
command = FIXTURE
args = ["fixture-server", "--init-delay-ms", "5000"]

[servers.slow_list]
command = FIXTURE
args = ["fixture-server", "--list-delay-ms", "5000"]
"#,
    );
    let start = Instant::now();
    let mut hub = Hub::spawn(&[&path], &[("MCP_HUB_STARTUP_TIMEOUT_MS", "300")]);
    hub.initialize();
    assert!(
        start.elapsed() < Duration::from_secs(3),
        "{:?}",
        start.elapsed()
    );
    assert_eq!(hub.tool_names(), ["echo"]);
    for id in ["missing", "exits", "refuses", "slow_init", "slow_list"] {
        hub.wait_stderr(&["WARN", &format!("instance_id={id}"), "omitted"]);
    }
    hub.wait_stderr(&["instance_id=slow_list", "tools/list"]);
    hub.wait_stderr(&["instance_id=slow_init", "initialize"]);
    // Omitted upstreams are not left running (killed, then reaped: wait for it, bounded).
    let deadline = Instant::now() + Duration::from_secs(5);
    while children(hub.pid()).len() != 1 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(10));
    }
    assert_eq!(children(hub.pid()).len(), 1, "{:?}", children(hub.pid()));
}

#[test]
fn no_usable_upstream_is_a_startup_error() {
    let sandbox = Sandbox::new();
    let path = sandbox.config(
        "[servers.exits]\ncommand = FIXTURE\nargs = [\"fixture-server\", \"--exit-at-start\", \"1\"]\n",
    );
    let mut hub = Hub::spawn(&[&path], &[]);
    let status = hub.wait_exit();
    assert_eq!(status.code(), Some(1));
    hub.wait_stderr(&[
        "mcp-hub: startup failed: upstream `exits`: exited with status 1 before answering \
         initialize",
    ]);
}

#[test]
fn upstream_stderr_is_relayed_with_the_instance_id_unless_disabled() {
    let sandbox = Sandbox::new();
    let path = sandbox.config(
        &r#"
[servers.loud]
prefix = "loud"
command = FIXTURE
args = ["fixture-server", "--stderr-line", "loud diagnostics"]

[servers.long]
prefix = "long"
command = FIXTURE
args = ["fixture-server", "--stderr-line", "LONGLINE"]

[servers.quiet]
prefix = "quiet"
stderr = false
command = FIXTURE
args = ["fixture-server", "--stderr-line", "quiet diagnostics"]
"#
        .replace("LONGLINE", &"x".repeat(4000)),
    );
    let mut hub = Hub::spawn(&[&path], &[]);
    hub.initialize();
    let line = hub.wait_stderr(&["loud diagnostics"]);
    assert!(line.contains("instance_id=loud"), "{line}");
    // Long lines are relayed whole, up to the relay's limit (64 KiB).
    hub.wait_stderr(&["instance_id=long", &"x".repeat(4000)]);
    assert!(line.contains("mcp_hub::upstream_stderr"), "{line}");
    hub.close_stdin();
    hub.wait_stderr(&["client closed stdin"]);
    hub.wait_exit();
    assert!(
        !hub.stderr_text().contains("quiet diagnostics"),
        "{}",
        hub.stderr_text()
    );
}

#[test]
fn stdin_eof_ends_calls_in_flight_at_once() {
    let sandbox = Sandbox::new();
    let (mut hub, upstreams) = serving(&sandbox, 1);
    hub.send(
        &serde_json::json!({"jsonrpc": "2.0", "id": "long", "method": "tools/call",
        "params": {"name": "u0.slow", "arguments": {"ms": 30000, "steps": 30},
                   "_meta": {"progressToken": "t"}}}),
    );
    // Progress shows the call is running upstream.
    assert_eq!(hub.next_message()["method"], "notifications/progress");
    let start = Instant::now();
    hub.close_stdin();
    assert!(hub.wait_exit().success());
    wait_gone(&upstreams);
    assert!(
        start.elapsed() < Duration::from_secs(3),
        "{:?}",
        start.elapsed()
    );
}
