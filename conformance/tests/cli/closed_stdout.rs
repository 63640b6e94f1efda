//! A reader that stops reading (`mcp-conformance list | head -1`) is not an error of ours: the
//! listing commands stop writing and exit as they would have, with no panic on stderr.

use std::process::{Command, Stdio};

use super::repo;

/// Runs the binary with a stdout pipe whose reading end is already closed, so every write
/// fails with a broken pipe (deterministically: nothing is left to race).
fn with_closed_stdout(args: &[&str]) -> (Option<i32>, String) {
    let (reader, writer) = std::io::pipe().expect("pipe");
    drop(reader);
    let out = Command::new(env!("CARGO_BIN_EXE_mcp-conformance"))
        .args(args)
        .current_dir(repo())
        .stdin(Stdio::null())
        .stdout(writer)
        .stderr(Stdio::piped())
        .output()
        .expect("run mcp-conformance");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn listing_into_a_closed_pipe_exits_quietly() {
    for args in [
        &["list"][..],
        &["targets"],
        &["targets", "--json"],
        &["schema", "scenario"],
        &["validate", "conformance/scenarios/protocol/ping.yaml"],
    ] {
        let (code, stderr) = with_closed_stdout(args);
        assert_eq!(code, Some(0), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        assert!(!stderr.contains("Broken pipe"), "{args:?}: {stderr}");
    }
}
