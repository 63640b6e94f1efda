//! Measures approval create and consume with 10,000 records already stored (release build):
//! `cargo run --release -p mcp-safety-core --example approval_bench [RECORDS] [PAYLOAD_BYTES]`.

use std::time::{Duration, Instant};

use mcp_safety_core::approvals::{ApprovalStore, Operation};
use mcp_safety_core::clock::SystemClock;
use mcp_safety_core::jail::Workspace;
use mcp_safety_core::state::StateRoot;
use serde_json::json;

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let records: usize = args
        .get(1)
        .map(|s| s.parse())
        .transpose()?
        .unwrap_or(10_000);
    let payload_bytes: usize = args.get(2).map(|s| s.parse()).transpose()?.unwrap_or(400);
    let tmp = tempfile::tempdir()?;
    let ws_dir = tmp.path().join("ws");
    std::fs::create_dir_all(&ws_dir)?;
    let ws = Workspace::open(ws_dir.to_str().ok_or("utf8")?)?;
    let state_dir = tmp.path().join("state");
    let state = StateRoot::resolve(&ws, Some(state_dir.to_str().ok_or("utf8")?), &|_| None)?;
    let store = ApprovalStore::new(&state, SystemClock::shared(), Duration::from_secs(3600));
    let payload =
        json!({"path": "notes.txt", "content": "x".repeat(payload_bytes), "expected_sha256": null});

    // Fill quickly by writing the file directly through the public API would take O(n^2);
    // build it once and let the store read it.
    let mut recs = Vec::new();
    let first = store.create(Operation::WriteFile, payload.clone(), "trace_fill")?;
    let template = serde_json::to_value(&first)?;
    for i in 0..records.saturating_sub(16) {
        let mut r = template.clone();
        r["request_id"] = json!(format!("req_{i:032x}"));
        recs.push(r);
    }
    recs.push(template);
    let file = json!({"version": 1, "records": recs});
    std::fs::write(state.approvals_path(), serde_json::to_vec(&file)?)?;
    let bytes = std::fs::metadata(state.approvals_path())?.len();
    if std::env::var_os("PROBE").is_some() {
        probe(&state.approvals_path())?;
    }

    let mut creates = Vec::new();
    let mut consumes = Vec::new();
    let mut ids = Vec::new();
    for _ in 0..15 {
        // The store holds `records - 15` before and `records` after the timed creates.
        let t = Instant::now();
        let r = store.create(Operation::WriteFile, payload.clone(), "trace_b")?;
        creates.push(t.elapsed());
        store.approve(&r.request_id)?;
        ids.push(r.request_id);
    }
    for id in &ids {
        let t = Instant::now();
        store.consume(id, Operation::WriteFile)?;
        consumes.push(t.elapsed());
    }
    println!(
        "records={records} file_bytes={bytes} create_median={:?} consume_median={:?}",
        median(creates),
        median(consumes)
    );
    Ok(())
}

#[allow(dead_code)]
fn probe(path: &std::path::Path) -> Result<(), Box<dyn std::error::Error>> {
    let t = Instant::now();
    let b = std::fs::read(path)?;
    let read = t.elapsed();
    let t = Instant::now();
    let v: serde_json::Value = serde_json::from_slice(&b)?;
    let parse = t.elapsed();
    #[derive(serde::Deserialize)]
    struct Raw<'a> {
        #[allow(dead_code)]
        version: u64,
        #[serde(borrow)]
        records: Vec<&'a serde_json::value::RawValue>,
    }
    let t = Instant::now();
    let raw: Raw<'_> = serde_json::from_slice(&b)?;
    let scan = t.elapsed();
    #[derive(serde::Deserialize)]
    #[allow(dead_code)]
    struct Rec<'a> {
        request_id: &'a str,
        status: &'a str,
        #[serde(borrow)]
        payload: &'a serde_json::value::RawValue,
    }
    let t = Instant::now();
    for r in &raw.records {
        let _x: Rec<'_> = serde_json::from_str(r.get())?;
    }
    let per = t.elapsed();
    println!("raw_scan={scan:?} per_record_parse={per:?}");
    let t = Instant::now();
    let out = serde_json::to_vec(&v)?;
    let ser = t.elapsed();
    let t = Instant::now();
    let p2 = path.with_extension("probe");
    std::fs::write(&p2, &out)?;
    let write = t.elapsed();
    let t = Instant::now();
    std::fs::File::open(&p2)?.sync_all()?;
    let sync = t.elapsed();
    println!("read={read:?} parse={parse:?} ser={ser:?} write={write:?} fsync={sync:?}");
    Ok(())
}
