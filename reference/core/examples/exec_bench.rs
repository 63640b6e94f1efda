//! Runs one command through `exec::run` and prints how long it took and this process's peak
//! resident memory, to check that capture stays fast and O(1) in output volume.
//!
//! Usage: `cargo run --release -p mcp-safety-core --example exec_bench -- /abs/program [args...]`
//! (the child gets `PATH=/usr/bin:/bin` and nothing else; timeout 600 s, or
//! `EXEC_BENCH_TIMEOUT_MS`).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use mcp_safety_core::exec::{DEFAULT_GRACE, ExecSpec, MAX_CAPTURE_BYTES_PER_STREAM, run};

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let Some(program) = args.next() else {
        eprintln!("usage: exec_bench /abs/program [args...]");
        return ExitCode::from(2);
    };
    let spec = ExecSpec {
        program: PathBuf::from(program),
        args: args.collect(),
        cwd: std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/")),
        env: BTreeMap::from([("PATH".to_owned(), "/usr/bin:/bin".to_owned())]),
        identity: None,
        timeout: std::env::var("EXEC_BENCH_TIMEOUT_MS")
            .ok()
            .and_then(|v| v.parse().ok())
            .map_or(Duration::from_secs(600), Duration::from_millis),
        grace: DEFAULT_GRACE,
        capture_limit: MAX_CAPTURE_BYTES_PER_STREAM,
    };
    let started = Instant::now();
    let result = run(&spec);
    let wall = started.elapsed();
    match result {
        Ok(r) => {
            println!("termination: {:?}", r.termination);
            println!(
                "wall: {:.3} s (run duration {:.3} s)",
                wall.as_secs_f64(),
                r.duration.as_secs_f64()
            );
            for (name, c) in [("stdout", &r.stdout), ("stderr", &r.stderr)] {
                println!(
                    "{name}: total {} retained {} dropped {}",
                    c.total_bytes, c.retained_bytes, c.dropped_bytes
                );
            }
            println!(
                "descendants_killed: {}, pipes_forced_closed: {}",
                r.descendants_killed, r.pipes_forced_closed
            );
            println!(
                "peak RSS (VmHWM): {}",
                vm_hwm().unwrap_or_else(|| "unknown".into())
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("exec failed ({}): {e}", e.code());
            ExitCode::FAILURE
        }
    }
}

/// `VmHWM` from `/proc/self/status` (Linux).
fn vm_hwm() -> Option<String> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    Some(line.trim_start_matches("VmHWM:").trim().to_owned())
}
