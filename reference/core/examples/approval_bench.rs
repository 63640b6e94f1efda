//! Measures the approval store's per-operation cost at several sizes, side by side (release
//! build): `cargo run --release -p mcp-safety-core --example approval_bench [SIZES...]`
//! (default `100 1000 10000`). For each size a fresh store is restored from an
//! `approvals.json` of `SIZE - K` records (K = timed requests, at most 200), then K requests are
//! created (the store ends at SIZE), approved (the operator's path), consumed, and their
//! status read, and K events are appended to an audit log of `SIZE - K` events; each
//! operation's median and p99 are printed, with the migration's time.
//! A benchmark, not a test: it asserts nothing.

use std::time::{Duration, Instant};

use mcp_safety_core::approvals::{ApprovalStore, Operation};
use mcp_safety_core::audit::{AuditEvent, AuditLog};
use mcp_safety_core::clock::SystemClock;
use mcp_safety_core::jail::Workspace;
use mcp_safety_core::state::StateRoot;
use serde_json::json;

/// Payload size of every request, close to a small `write_file`.
const PAYLOAD_BYTES: usize = 400;

/// One timed operation on one request.
type Step<'a> = dyn Fn(&str) -> Result<(), Box<dyn std::error::Error>> + 'a;

struct Figures {
    size: usize,
    timed: usize,
    migrate: Duration,
    bytes: u64,
    ops: Vec<(&'static str, Vec<Duration>)>,
}

fn percentile(v: &[Duration], p: f64) -> Duration {
    let mut v = v.to_vec();
    v.sort();
    let at = ((v.len() as f64 - 1.0) * p).round() as usize;
    v[at.min(v.len() - 1)]
}

fn ms(d: Duration) -> String {
    format!("{:.3}", d.as_secs_f64() * 1000.0)
}

fn measure(size: usize) -> Result<Figures, Box<dyn std::error::Error>> {
    let timed = (size / 2).clamp(1, 200);
    let tmp = tempfile::tempdir()?;
    let ws_dir = tmp.path().join("ws");
    std::fs::create_dir_all(&ws_dir)?;
    let ws = Workspace::open(ws_dir.to_str().ok_or("utf8")?)?;
    let state_dir = tmp.path().join("state");
    let state = StateRoot::resolve(&ws, Some(state_dir.to_str().ok_or("utf8")?), &|_| None)?;
    let payload = json!({"path": "notes.txt", "content": "x".repeat(PAYLOAD_BYTES)});

    // One real record as the template of the restored ones.
    let template = {
        let scratch = tempfile::tempdir()?;
        let scratch_state = StateRoot::resolve(
            &ws,
            Some(scratch.path().join("s").to_str().ok_or("utf8")?),
            &|_| None,
        )?;
        let store = ApprovalStore::new(
            &scratch_state,
            SystemClock::shared(),
            Duration::from_secs(3600),
        );
        serde_json::to_value(store.create(Operation::WriteFile, payload.clone(), "trace_fill")?)?
    };
    let records: Vec<_> = (0..size - timed)
        .map(|i| {
            let mut r = template.clone();
            r["request_id"] = json!(format!("req_{i:032x}"));
            r
        })
        .collect();
    std::fs::write(
        state.approvals_path(),
        serde_json::to_vec(&json!({"version": 1, "records": records}))?,
    )?;
    let store = ApprovalStore::new(&state, SystemClock::shared(), Duration::from_secs(3600));
    let t = Instant::now();
    store.stats()?;
    let migrate = t.elapsed();

    let mut ids = Vec::new();
    let mut creates = Vec::new();
    for _ in 0..timed {
        let t = Instant::now();
        let r = store.create(Operation::WriteFile, payload.clone(), "trace_b")?;
        creates.push(t.elapsed());
        ids.push(r.request_id);
    }
    let time_each = |f: &Step<'_>| {
        ids.iter()
            .map(|id| {
                let t = Instant::now();
                f(id).map(|()| t.elapsed())
            })
            .collect::<Result<Vec<_>, _>>()
    };
    let approves = time_each(&|id| Ok(store.approve(id).map(drop)?))?;
    let consumes = time_each(&|id| Ok(store.consume(id, Operation::WriteFile).map(drop)?))?;
    let statuses = time_each(&|id| Ok(store.status(id).map(drop)?))?;
    // The audit log beside it, holding SIZE - K events, then K appends.
    let audit = AuditLog::new(&state, SystemClock::shared());
    let line = format!(
        "{}\n",
        AuditEvent::new("bench", "shell.run", "trace_fill").to_line(store.now())
    );
    std::fs::write(state.audit_path(), line.repeat(size - timed))?;
    let appends = time_each(&|id| {
        Ok(audit
            .append(&AuditEvent::new("bench", "shell.run", "trace_b").request_id(id))
            .map(drop)?)
    })?;
    Ok(Figures {
        size,
        timed,
        migrate,
        bytes: store.stats()?.bytes,
        ops: vec![
            ("create", creates),
            ("approve", approves),
            ("consume", consumes),
            ("status", statuses),
            ("audit", appends),
        ],
    })
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let sizes: Vec<usize> = match std::env::args()
        .skip(1)
        .map(|s| s.parse())
        .collect::<Result<Vec<_>, _>>()?
    {
        v if v.is_empty() => vec![100, 1_000, 10_000],
        v => v,
    };
    let figures = sizes
        .into_iter()
        .map(measure)
        .collect::<Result<Vec<_>, _>>()?;
    println!("approval store, {PAYLOAD_BYTES}-byte payloads; times in ms (median / p99)");
    print!("{:<10}", "records");
    for f in &figures {
        print!("{:>22}", f.size);
    }
    println!();
    let names: Vec<&str> = figures
        .first()
        .map(|f| f.ops.iter().map(|(name, _)| *name).collect())
        .unwrap_or_default();
    for (row, op) in names.iter().enumerate() {
        print!("{op:<10}");
        for f in &figures {
            let v = &f.ops[row].1;
            print!(
                "{:>22}",
                format!("{} / {}", ms(percentile(v, 0.5)), ms(percentile(v, 0.99)))
            );
        }
        println!();
    }
    print!("{:<10}", "timed");
    for f in &figures {
        print!("{:>22}", f.timed);
    }
    println!();
    print!("{:<10}", "migrate");
    for f in &figures {
        print!("{:>22}", ms(f.migrate));
    }
    println!();
    print!("{:<10}", "bytes");
    for f in &figures {
        print!("{:>22}", f.bytes);
    }
    println!();
    Ok(())
}
