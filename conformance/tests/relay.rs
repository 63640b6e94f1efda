//! Black-box tests of `mcp-conformance relay`: the real binary between real pipes. The relay
//! is the floor `bench --relay` measures, so it must pass every byte through unread (partial
//! lines, bytes that are not UTF-8, lines that are not JSON), answer nothing itself, close
//! the server's stdin at the client's EOF, and exit with the server's status.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Command, Stdio};

fn relay(args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_mcp-conformance"));
    command.arg("relay").arg("--").args(args);
    command
}

#[test]
fn bytes_pass_through_unread_both_ways_and_eof_reaches_the_server() {
    let input: Vec<u8> =
        b"not json\n{\"a\": 1.0E2}\n\xff\xfe raw\npartial line without newline".to_vec();
    let output = relay(&["cat"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            let mut stdin = child.stdin.take().expect("stdin");
            stdin.write_all(&input)?;
            // Closing our end must reach cat through the relay, or cat never exits.
            drop(stdin);
            child.wait_with_output()
        })
        .expect("run the relay");
    assert!(output.status.success(), "{output:?}");
    assert_eq!(output.stdout, input);
}

#[test]
fn a_partial_line_is_relayed_before_its_newline_arrives() {
    let mut child = relay(&["cat"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("start the relay");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut stdout = child.stdout.take().expect("stdout");
    stdin.write_all(b"half").expect("write");
    stdin.flush().expect("flush");
    // A blocking read returns once the relay passed the four bytes on: no line buffering.
    let mut got = [0u8; 4];
    stdout.read_exact(&mut got).expect("read the partial line");
    assert_eq!(&got, b"half");
    drop(stdin);
    assert!(child.wait().expect("wait").success());
}

#[test]
fn an_mcp_server_behind_it_answers_as_directly() {
    let exe = env!("CARGO_BIN_EXE_mcp-conformance");
    let mut child = relay(&[exe, "fixture-server"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("start the relay");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
    stdin
        .write_all(b"{\"jsonrpc\":\"2.0\",\"id\":\"p\",\"method\":\"ping\"}\n")
        .expect("write");
    let line = lines.next().expect("an answer").expect("read");
    let answer: serde_json::Value = serde_json::from_str(&line).expect("JSON");
    assert_eq!(answer["id"], "p");
    assert_eq!(answer["result"], serde_json::json!({}));
    drop(stdin);
    assert!(child.wait().expect("wait").success());
}

#[test]
fn the_exit_status_is_the_servers() {
    let status = relay(&["sh", "-c", "exit 3"])
        .stdin(Stdio::null())
        .status()
        .expect("run the relay");
    assert_eq!(status.code(), Some(3));
    let killed = relay(&["sh", "-c", "kill -9 $$"])
        .stdin(Stdio::null())
        .status()
        .expect("run the relay");
    assert_eq!(killed.code(), Some(128 + 9));
    let missing = relay(&["no-such-command-for-the-relay"])
        .stdin(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .expect("run the relay");
    assert_eq!(missing.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&missing.stderr).contains("no-such-command-for-the-relay"),
        "{missing:?}"
    );
}
