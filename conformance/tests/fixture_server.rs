//! Black-box tests of `mcp-conformance fixture-server`: the real binary over real pipes.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

const WAIT: Duration = Duration::from_secs(10);

/// A running fixture server; killed and reaped on drop so no test leaves it behind.
struct Fixture {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
}

impl Fixture {
    fn start(args: &[&str]) -> Self {
        let mut child = Command::new(env!("CARGO_BIN_EXE_mcp-conformance"))
            .arg("fixture-server")
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn fixture-server");
        let stdout = child.stdout.take().expect("stdout piped");
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let stdin = child.stdin.take();
        Self {
            child,
            stdin,
            lines,
        }
    }

    fn send_raw(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(line.as_bytes()).expect("write");
        stdin.write_all(b"\n").expect("write");
        stdin.flush().expect("flush");
    }

    fn send(&mut self, message: Value) {
        self.send_raw(&message.to_string());
    }

    fn request(&mut self, id: Value, method: &str, params: Value) {
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
    }

    /// The next stdout line as JSON; every stdout line must be JSON.
    fn next(&self) -> Value {
        let line = self
            .lines
            .recv_timeout(WAIT)
            .expect("a message from the server in time");
        serde_json::from_str(&line)
            .unwrap_or_else(|e| panic!("stdout line is not JSON ({e}): {line}"))
    }

    fn initialize(&mut self) -> Value {
        self.request(
            json!(0),
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "test", "version": "0"}}),
        );
        let reply = self.next();
        self.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        reply
    }

    fn close_stdin(&mut self) {
        self.stdin = None;
    }

    /// Waits for the process to exit, polling until `deadline`; `None` if it did not.
    fn wait_exit(&mut self, within: Duration) -> Option<ExitStatus> {
        let deadline = Instant::now() + within;
        loop {
            if let Some(status) = self.child.try_wait().expect("try_wait") {
                return Some(status);
            }
            if Instant::now() >= deadline {
                return None;
            }
            std::thread::yield_now();
            std::thread::park_timeout(Duration::from_millis(5));
        }
    }
}

impl Drop for Fixture {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn initialize_list_and_echo() {
    let mut server = Fixture::start(&["--name", "fx", "--server-version", "1.2.3"]);
    let init = server.initialize();
    assert_eq!(init["id"], json!(0));
    assert_eq!(init["result"]["protocolVersion"], json!("2025-06-18"));
    assert_eq!(
        init["result"]["capabilities"]["tools"],
        json!({"listChanged": true})
    );
    assert_eq!(
        init["result"]["serverInfo"],
        json!({"name": "fx", "version": "1.2.3"})
    );
    server.request(json!(1), "tools/list", json!({}));
    let list = server.next();
    let tools = list["result"]["tools"].as_array().expect("tools array");
    assert!(tools.iter().any(|t| t["name"] == json!("echo")));
    assert!(
        tools
            .iter()
            .all(|t| t["inputSchema"]["type"] == json!("object"))
    );
    server.request(
        json!(2),
        "tools/call",
        json!({"name": "echo", "arguments": {"text": "héllo"}}),
    );
    let echo = server.next();
    assert_eq!(echo["id"], json!(2));
    assert_eq!(
        echo["result"]["content"],
        json!([{"type": "text", "text": "héllo"}])
    );
    assert_eq!(
        echo["result"]["structuredContent"],
        json!({"text": "héllo"})
    );
}

#[test]
fn bad_input_never_kills_the_server() {
    let mut server = Fixture::start(&[]);
    server.send_raw("{\"jsonrpc\": \"2.0\", oops");
    let parse_error = server.next();
    assert_eq!(
        (&parse_error["id"], &parse_error["error"]["code"]),
        (&Value::Null, &json!(-32700))
    );
    server.request(json!("p"), "ping", json!({}));
    assert_eq!(
        server.next(),
        json!({"jsonrpc": "2.0", "id": "p", "result": {}})
    );
    server.request(json!(5), "no/such/method", json!({}));
    let unknown = server.next();
    assert_eq!(unknown["id"], json!(5));
    assert_eq!(unknown["error"]["code"], json!(-32601));
    server.send_raw("[]");
    let batch = server.next();
    assert_eq!(batch["id"], Value::Null);
    assert_eq!(batch["error"]["code"], json!(-32600));
    server.request(json!(6), "tools/call", json!({"name": "missing"}));
    assert_eq!(server.next()["error"]["code"], json!(-32602));
}

#[test]
fn stdin_eof_exits_zero_promptly_even_with_a_slow_call_in_flight() {
    let mut server = Fixture::start(&[]);
    server.initialize();
    server.request(
        json!(1),
        "tools/call",
        json!({"name": "slow", "arguments": {"ms": 60000}}),
    );
    server.request(json!(2), "ping", json!({}));
    assert_eq!(server.next()["id"], json!(2));
    let closed = Instant::now();
    server.close_stdin();
    let status = server.wait_exit(WAIT).expect("exited after EOF");
    assert!(status.success(), "{status}");
    assert!(
        closed.elapsed() < Duration::from_secs(1),
        "took {:?}",
        closed.elapsed()
    );
}

#[test]
fn slow_call_reports_progress_and_is_silent_once_cancelled() {
    let mut server = Fixture::start(&[]);
    server.initialize();
    server.request(
        json!(10),
        "tools/call",
        json!({"name": "slow", "arguments": {"ms": 2000, "steps": 10},
               "_meta": {"progressToken": 77}}),
    );
    let progress = server.next();
    assert_eq!(progress["method"], json!("notifications/progress"));
    assert_eq!(progress["params"]["progressToken"], json!(77));
    assert_eq!(progress["params"]["progress"], json!(1));
    assert_eq!(progress["params"]["total"], json!(10));
    server.send(
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                       "params": {"requestId": 10, "reason": "test"}}),
    );
    // A marker that finishes after the cancelled call would have: nothing for 10 may precede it.
    server.request(
        json!(11),
        "tools/call",
        json!({"name": "slow", "arguments": {"ms": 2500, "steps": 1}}),
    );
    loop {
        let message = server.next();
        assert_ne!(
            message["id"],
            json!(10),
            "cancelled request answered: {message}"
        );
        if message["id"] == json!(11) {
            assert_eq!(message["result"]["content"][0]["text"], json!("done"));
            break;
        }
        let late = message["params"]["progress"]
            .as_u64()
            .is_some_and(|p| p > 3);
        assert!(!late, "progress continued after cancellation: {message}");
    }
}

#[test]
fn record_file_holds_every_received_message() {
    let dir = tempfile::tempdir().expect("tempdir");
    let record = dir.path().join("received.jsonl");
    let mut server = Fixture::start(&["--record", path_str(&record)]);
    server.send_raw("{ \"jsonrpc\" : \"2.0\", \"id\" : 1, \"method\" : \"ping\" }");
    server.send_raw("not json at all");
    server.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    server.request(json!(2), "ping", json!({}));
    let mut ids: Vec<String> = (0..3).map(|_| server.next()["id"].to_string()).collect();
    ids.sort();
    assert_eq!(
        ids,
        ["1", "2", "null"],
        "the line that is not JSON is answered with id null"
    );
    let text = std::fs::read_to_string(&record).expect("record file");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines,
        [
            r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
            "not json at all",
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            r#"{"jsonrpc":"2.0","id":2,"method":"ping","params":{}}"#,
        ]
    );
}

#[test]
fn liar_answers_a_notification_and_outlives_eof() {
    let mut server = Fixture::start(&["--liar"]);
    server.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    let answer = server.next();
    assert_eq!(answer["id"], Value::Null);
    assert!(answer.get("result").is_some() && answer.get("error").is_none());
    server.request(
        json!(1),
        "initialize",
        json!({"protocolVersion": "2025-06-18"}),
    );
    assert_ne!(
        server.next()["result"]["protocolVersion"],
        json!("2025-06-18")
    );
    server.close_stdin();
    assert!(server.wait_exit(Duration::from_millis(300)).is_none());
}

#[test]
fn tools_file_errors_exit_2_with_nothing_on_stdout() {
    let dir = tempfile::tempdir().expect("tempdir");
    let tools = dir.path().join("tools.yaml");
    std::fs::write(&tools, "tools:\n  - name: x\n    kind: teleport\n").expect("write");
    let output = Command::new(env!("CARGO_BIN_EXE_mcp-conformance"))
        .args(["fixture-server", "--tools", path_str(&tools)])
        .stdin(Stdio::null())
        .output()
        .expect("run");
    assert_eq!(output.status.code(), Some(2));
    assert!(output.stdout.is_empty());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("teleport"), "{stderr}");
}

#[test]
fn exit_at_start_and_crash_exit_codes() {
    let output = Command::new(env!("CARGO_BIN_EXE_mcp-conformance"))
        .args([
            "fixture-server",
            "--stderr-line",
            "booting",
            "--exit-at-start",
            "9",
        ])
        .stdin(Stdio::null())
        .output()
        .expect("run");
    assert_eq!(output.status.code(), Some(9));
    assert_eq!(String::from_utf8_lossy(&output.stderr), "booting\n");
    assert!(output.stdout.is_empty());

    let mut server = Fixture::start(&[]);
    server.request(json!(1), "tools/call", json!({"name": "crash"}));
    let status = server.wait_exit(WAIT).expect("crashed");
    assert_eq!(status.code(), Some(3));
    assert!(
        server.lines.recv_timeout(WAIT).is_err(),
        "crash must not answer"
    );
}

fn path_str(path: &Path) -> &str {
    path.to_str().expect("utf-8 temp path")
}

/// A tools file's `entry_json` and `result_json` are JSON text served byte for byte: key
/// order, number spellings (`1.0E2`, `-0`, `1`, integers past 64 bits) and unknown fields as
/// written, in every generation (a modern `tools/list` result gets its own keys beside the
/// entries, never inside them).
#[test]
fn json_text_entries_and_results_are_served_byte_for_byte() {
    let entry = r#"{"inputSchema":{"required":["n"],"type":"object","properties":{"n":{"type":"number","maximum":1.0E2,"minimum":-0}}},"name":"odd","execution":{"taskSupport":"forbidden"},"x-future":{"big":12345678901234567890123}}"#;
    let result = r#"{"structuredContent":{"z":1.50,"a":[1,2.0]},"content":[{"annotations":{"priority":1},"type":"text","text":"t"}],"x-extra":true}"#;
    let dir = tempfile::tempdir().expect("tempdir");
    let tools = dir.path().join("tools.yaml");
    std::fs::write(
        &tools,
        format!(
            "tools:\n  - name: odd\n    kind: verbatim\n    entry_json: '{entry}'\n    result_json: '{result}'\n  - {{ name: echo, kind: echo }}\n"
        ),
    )
    .expect("write tools file");
    let mut server = Fixture::start(&["--tools", path_str(&tools), "--generation", "dual"]);
    server.initialize();
    server.request(json!(1), "tools/list", json!({}));
    let listed = server.lines.recv_timeout(WAIT).expect("tools/list answer");
    assert!(
        listed.starts_with(&format!(
            r#"{{"jsonrpc":"2.0","id":1,"result":{{"tools":[{entry},{{"name":"echo""#
        )),
        "{listed}"
    );
    server.request(
        json!(2),
        "tools/call",
        json!({"name": "odd", "arguments": {}}),
    );
    let called = server.lines.recv_timeout(WAIT).expect("tools/call answer");
    assert_eq!(
        called,
        format!(r#"{{"jsonrpc":"2.0","id":2,"result":{result}}}"#)
    );
    let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                      "io.modelcontextprotocol/clientCapabilities": {}});
    server.request(json!(3), "tools/list", json!({"_meta": meta}));
    let modern = server
        .lines
        .recv_timeout(WAIT)
        .expect("modern tools/list answer");
    assert!(
        modern.contains(&format!(r#""tools":[{entry},"#)),
        "{modern}"
    );
    let value: Value = serde_json::from_str(&modern).expect("JSON");
    assert_eq!(value["result"]["resultType"], "complete");
}

#[test]
fn json_text_fields_are_checked_when_the_file_is_read() {
    let dir = tempfile::tempdir().expect("tempdir");
    let tools = dir.path().join("tools.yaml");
    for (body, expected) in [
        ("entry_json: '{\"name\": \"x\"'", "entry_json"),
        ("entry_json: '{\"name\": \"other\"}'", "names `other`"),
        ("entry_json: '[1]'", "entry_json"),
        (
            "entry_json: '{\"name\": \"x\"}'\n    description: twice",
            "description",
        ),
    ] {
        std::fs::write(
            &tools,
            format!("tools:\n  - name: x\n    kind: echo\n    {body}\n"),
        )
        .expect("write");
        let output = Command::new(env!("CARGO_BIN_EXE_mcp-conformance"))
            .args(["fixture-server", "--tools", path_str(&tools)])
            .stdin(Stdio::null())
            .output()
            .expect("run");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{body}: {stderr}");
        assert!(stderr.contains(expected), "{body}: {stderr}");
        assert!(output.stdout.is_empty());
    }
}
