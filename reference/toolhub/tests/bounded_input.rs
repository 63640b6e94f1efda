//! Bounded work on agent input: a write whose target is larger than
//! `limits::MAX_REPLACED_FILE_BYTES` is refused from the file's size, before any of it is
//! hashed, so a huge (here sparse) target costs the server nothing.

mod common;

use std::time::{Duration, Instant};

use common::Sandbox;
use serde_json::json;

/// The refusal reads the size only; hashing 2 GiB of zeros in a debug build takes seconds.
const PROMPT: Duration = Duration::from_secs(2);

#[test]
fn write_over_a_huge_target_is_refused_from_its_size_at_once() {
    let sb = Sandbox::new();
    let huge = std::fs::File::create(sb.workspace.join("huge.bin")).expect("create");
    huge.set_len(2 * 1024 * 1024 * 1024).expect("sparse 2 GiB");
    drop(huge);
    let mut s = sb.server();
    s.initialize();
    let started = Instant::now();
    let r = s.structured(
        "filesystem.write_file",
        json!({"path": "huge.bin", "content": "small\n"}),
    );
    let took = started.elapsed();
    assert_eq!(r["outcome"], "REFUSED", "{r}");
    assert_eq!(r["error"]["code"], "TOO_LARGE", "{r}");
    assert!(
        r.get("approval").is_none(),
        "no approval for a refused write: {r}"
    );
    assert!(took < PROMPT, "refused after {took:?}");
    // At the limit, the write is submitted as usual.
    let at_limit = std::fs::File::create(sb.workspace.join("edge.bin")).expect("create");
    at_limit
        .set_len(mcp_toolhub::limits::MAX_REPLACED_FILE_BYTES)
        .expect("sparse at the limit");
    drop(at_limit);
    let r = s.structured(
        "filesystem.write_file",
        json!({"path": "edge.bin", "content": "small\n"}),
    );
    assert_eq!(r["outcome"], "APPROVAL_REQUIRED", "{r}");
}

/// The README's figure for reads, patches and written content: 1 MiB (written out here, not
/// taken from `limits`, so a changed limit fails this test rather than moving with it).
const ONE_MIB: usize = 1024 * 1024;

/// The error code of a refused call: a REFUSED lifecycle result, or a tool error whose text is
/// the contract's JSON (read-only tools).
fn refusal(s: &mut common::Server, name: &str, args: serde_json::Value) -> serde_json::Value {
    let r = s.call(name, args);
    let v = if r["isError"] == true {
        let text = r["content"][0]["text"].as_str().expect("text content");
        serde_json::from_str(text).expect("JSON text")
    } else {
        r["structuredContent"].clone()
    };
    assert_eq!(v["outcome"], "REFUSED", "{name}: {v}");
    v["error"]["code"].clone()
}

#[test]
fn reads_writes_and_patches_are_capped_at_one_mib() {
    let sb = Sandbox::new();
    std::fs::write(sb.workspace.join("at.txt"), "a".repeat(ONE_MIB)).expect("write");
    std::fs::write(sb.workspace.join("over.txt"), "a".repeat(ONE_MIB + 1)).expect("write");
    let mut s = sb.server();
    s.initialize();
    let r = s.structured("filesystem.read_file", json!({"path": "at.txt"}));
    assert_eq!(r["size"], ONE_MIB);
    let over = json!({"path": "over.txt"});
    assert_eq!(refusal(&mut s, "filesystem.read_file", over), "TOO_LARGE");
    let r = s.structured(
        "filesystem.write_file",
        json!({"path": "new.txt", "content": "b".repeat(ONE_MIB)}),
    );
    assert_eq!(r["outcome"], "APPROVAL_REQUIRED", "{}", r["error"]);
    let over = json!({"path": "new.txt", "content": "b".repeat(ONE_MIB + 1)});
    assert_eq!(
        refusal(&mut s, "filesystem.write_file", over),
        "CONTENT_TOO_LARGE"
    );
    // A patch of exactly the limit is submitted; one over it is refused by its size.
    std::fs::write(sb.workspace.join("small.txt"), "x\n").expect("write");
    let head = "--- a/small.txt\n+++ b/small.txt\n@@ -1 +1 @@\n-x\n+";
    let patch = format!("{head}{}\n", "c".repeat(ONE_MIB - head.len() - 1));
    assert_eq!(patch.len(), ONE_MIB);
    let r = s.structured(
        "filesystem.apply_patch",
        json!({"path": "small.txt", "patch": patch}),
    );
    assert_eq!(r["outcome"], "APPROVAL_REQUIRED", "{}", r["error"]);
    let patch = format!(
        "--- a/at.txt\n+++ b/at.txt\n@@ -1 +1 @@\n-x\n+{}\n",
        "c".repeat(ONE_MIB)
    );
    let over = json!({"path": "at.txt", "patch": patch});
    assert_eq!(
        refusal(&mut s, "filesystem.apply_patch", over),
        "PATCH_TOO_LARGE"
    );
}
