//! One redactor for every output: with `RUST_LOG=trace`, the real `safe-mcp terminal` and
//! `safe-mcp files` write on stderr no secret the audit trail redacts, whether it has a
//! built-in shape or the policy's own (`[redaction] extra_patterns`), and in whatever
//! rendering the MCP library logs it (`Debug` with its escaped quotes and line breaks, JSON
//! inside that): `mcp_safety_core::redact::log`, installed in `src/cli.rs`. Every test also
//! finds the redaction marker on stderr, so the sentinels did reach the log and were replaced.

#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};
use std::process::Command;

use mcp_testkit::lines::run_at_trace;
use serde_json::{Value, json};

const REDACTED: &str = "[REDACTED]";

/// A temporary tree with `jail/`, `ws/` and a policy made of `body` (paths relative to it).
struct Tree {
    dir: tempfile::TempDir,
}

impl Tree {
    fn new(body: &str) -> Tree {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir(dir.path().join("jail")).expect("jail");
        std::fs::create_dir(dir.path().join("ws")).expect("ws");
        std::fs::write(dir.path().join("policy.toml"), body).expect("policy");
        Tree { dir }
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    /// `safe-mcp MODE --config policy.toml` with nothing of the caller's environment.
    fn command(&self, mode: &str) -> Command {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_safe-mcp"));
        cmd.arg(mode)
            .arg("--config")
            .arg(self.path("policy.toml"))
            .env_clear()
            .env("PATH", "/usr/bin:/bin");
        cmd
    }

    fn audit(&self) -> String {
        std::fs::read_to_string(self.path("audit.jsonl")).expect("the audit trail was written")
    }
}

fn handshake() -> Vec<Value> {
    vec![
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "log-secrets", "version": "1"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    ]
}

fn call(id: u64, tool: &str, arguments: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
           "params": {"name": tool, "arguments": arguments}})
}

fn run(id: u64, command: &str) -> Value {
    call(id, "run_command", json!({ "command": command }))
}

/// Neither stderr nor the audit trail holds any of `secrets`; stderr holds the marker.
fn assert_redacted(stderr: &str, audit: &str, secrets: &[&str]) {
    assert!(
        stderr.contains("run_command") || stderr.contains("move_file"),
        "trace logging names the calls: {stderr}"
    );
    for secret in secrets {
        assert!(!stderr.contains(secret), "{secret} on stderr:\n{stderr}");
        assert!(!audit.contains(secret), "{secret} in the audit:\n{audit}");
    }
    assert!(stderr.contains(REDACTED), "no redaction marker:\n{stderr}");
}

#[test]
fn no_command_or_output_secret_reaches_stderr_at_trace() {
    let tree = Tree::new(
        "audit_log = \"audit.jsonl\"\n[terminal]\njail_root = \"jail\"\n[terminal.allowlist]\ncommands = [\"cat\", \"echo\"]\n",
    );
    std::fs::write(
        tree.path("jail/creds.txt"),
        "password=SENTINEL-OUT-1\nsk-SENTINELOUT2abcdefghijkl\n",
    )
    .expect("creds");
    let mut requests = handshake();
    requests.push(run(1, "cat creds.txt"));
    requests.push(run(2, "echo --api-key SENTINEL-ARG-1 token=SENTINEL-ARG-2"));
    let (stdout, stderr) = run_at_trace(tree.command("terminal"), &requests);
    assert!(stdout.contains("\"id\":1"), "{stdout}");
    assert_redacted(
        &stderr,
        &tree.audit(),
        &[
            "SENTINEL-OUT-1",
            "SENTINELOUT2",
            "SENTINEL-ARG-1",
            "SENTINEL-ARG-2",
        ],
    );
}

/// The policy's own patterns reach the log lines too, not only the audit and the results: a
/// secret of the operator's shape, twice on one line and beside another, in a command line
/// and its output.
#[test]
fn the_policys_own_patterns_are_redacted_from_every_log_line() {
    let tree = Tree::new(
        "audit_log = \"audit.jsonl\"\n[redaction]\nextra_patterns = [{ name = \"house\", regex = \"ZQX-[0-9]{4}[a-z]{4}\" }]\n[terminal]\njail_root = \"jail\"\n[terminal.allowlist]\ncommands = [\"cat\", \"echo\"]\n",
    );
    std::fs::write(
        tree.path("jail/notes.txt"),
        "first ZQX-1111aaaa then ZQX-2222bbbb and ZQX-1111aaaa again\n",
    )
    .expect("notes");
    let mut requests = handshake();
    requests.push(run(1, "cat notes.txt"));
    requests.push(run(2, "echo ZQX-3333cccc ZQX-3333cccc ZQX-4444dddd"));
    let (_, stderr) = run_at_trace(tree.command("terminal"), &requests);
    assert_redacted(&stderr, &tree.audit(), &["ZQX-"]);
}

/// What the audit redacts in the plain string is redacted in the escaped renderings the MCP
/// library logs: a pattern anchored at the start and end of a line (`(?m)^...$`, the line
/// break logged as `\n`), a pattern with a quote in it (logged as `\"`), and the built-in
/// `KEY="VALUE"` shape with its quotes escaped. Each secret twice on one line, between other
/// words, in arguments of `false` (which prints nothing, so no result carries them) and in
/// `cat`'s output.
#[test]
fn secrets_behind_escaped_quotes_and_line_breaks_are_redacted_too() {
    let tree = Tree::new(concat!(
        "audit_log = \"audit.jsonl\"\n",
        "[redaction]\n",
        "extra_patterns = [\n",
        "  { name = \"pin\", regex = '(?m)^PIN-[0-9]{4}$' },\n",
        "  { name = \"quoted\", regex = 'code=\"[0-9]{5}\"' },\n",
        "]\n",
        "[terminal]\njail_root = \"jail\"\n[terminal.allowlist]\ncommands = [\"false\", \"cat\"]\n",
    ));
    write(
        &tree.path("jail/notes.txt"),
        "a\nPIN-4321\nb code=\"98765\" c code=\"98765\"\npassword=\"hunter22\"\n",
    );
    let mut requests = handshake();
    requests.push(run(1, "false a\nPIN-4321\nb\nPIN-4321"));
    requests.push(run(2, "false code=\"98765\" x code=\"98765\" y"));
    requests.push(run(
        3,
        "false password=\"hunter22\" z password=\"hunter22\"",
    ));
    requests.push(run(4, "cat notes.txt"));
    let (_, stderr) = run_at_trace(tree.command("terminal"), &requests);
    assert_redacted(&stderr, &tree.audit(), &["PIN-4321", "98765", "hunter22"]);
}

/// The files server logs through the same redactor: a file name of the operator's shape in
/// `move_file` arguments.
#[test]
fn the_files_server_redacts_its_log_lines_with_the_policy_too() {
    let tree = Tree::new(
        "audit_log = \"audit.jsonl\"\n[redaction]\nextra_patterns = [{ name = \"house\", regex = \"ZQX-[0-9]{4}[a-z]{4}\" }]\n[files]\nworkspace_root = \"ws\"\njournal = \"journal.json\"\n",
    );
    write(&tree.path("ws/ZQX-5555eeee.txt"), "x\n");
    std::fs::create_dir(tree.path("ws/keep")).expect("keep");
    let mut requests = handshake();
    requests.push(call(
        1,
        "move_file",
        json!({"src": "ZQX-5555eeee.txt", "dest": "keep/ZQX-5555eeee.txt"}),
    ));
    let (stdout, stderr) = run_at_trace(tree.command("files"), &requests);
    assert!(stdout.contains("\"id\":1"), "{stdout}");
    assert!(tree.path("ws/keep/ZQX-5555eeee.txt").exists(), "{stdout}");
    assert_redacted(&stderr, &tree.audit(), &["ZQX-"]);
}

fn write(path: &Path, text: &str) {
    std::fs::write(path, text).expect("write");
}
