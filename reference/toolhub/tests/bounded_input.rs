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
