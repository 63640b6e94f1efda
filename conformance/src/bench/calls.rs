//! The round-trip benchmark: spawn-to-initialize and tool-call round trips of one or more
//! targets, optionally with the first one also behind the relay, in rounds, side by side.
//!
//! Every row of a round is measured the same way from outside the process, and the rows'
//! calls are interleaved (one call to each row in turn, the first row changing every call),
//! so a machine whose load drifts during the run weighs on every row alike: the only
//! difference between "a target", "the relay in front of it" and "a hub in front of it" is
//! what runs between this client and the tool.

use super::{Stats, kib, proc_status_kib, server_invocation};
use crate::process::Invocation;
use crate::runner::TargetCtx;
use crate::say::say;
use crate::session::Session;
use serde_json::{Value, json};
use std::time::{Duration, Instant};

/// One thing measured: a target, or a target behind the relay.
struct Row<'a> {
    label: String,
    tctx: &'a TargetCtx,
    relay: bool,
}

/// The figures of one row in one round.
struct Figures {
    spawn: Option<Stats>,
    calls: Option<Stats>,
    rss_idle: Option<u64>,
    rss_warm: Option<u64>,
    rss_after: Option<u64>,
    rss_peak: Option<u64>,
    /// CPU time the row's process spent per measured call, in microseconds (its user and
    /// system time from `/proc`, in 10 ms ticks: meaningful over thousands of calls). Unlike
    /// the round trip, it hardly moves with the machine's load.
    cpu_us_per_call: Option<f64>,
    errors: usize,
}

impl Figures {
    fn json(&self, row: &Row<'_>) -> Value {
        json!({
            "label": row.label,
            "target": row.tctx.target.name,
            "relay": row.relay,
            "spawn_to_initialize": self.spawn.map(|s| s.json()),
            "round_trip": self.calls.map(|s| s.json()),
            "rss_kib": {"idle": self.rss_idle, "after_warmup": self.rss_warm,
                        "after": self.rss_after, "peak": self.rss_peak},
            "cpu_us_per_call": self.cpu_us_per_call,
            "error_answers": self.errors,
        })
    }
}

/// What one call needs: the tool, its arguments and the counts.
struct Plan<'a> {
    tool: &'a str,
    params: Value,
    warmup: usize,
    calls: usize,
    spawns: usize,
}

/// Runs the round-trip benchmark over `targets`; returns the figures as JSON.
pub(super) async fn bench_calls(
    args: &super::BenchArgs,
    targets: &[TargetCtx],
) -> Result<Value, String> {
    let tool = args
        .call
        .as_deref()
        .ok_or("name a tool with --call (or use --scenario)")?;
    let tool_args: Value =
        serde_json::from_str(&args.args).map_err(|e| format!("--args is not JSON: {e}"))?;
    let plan = Plan {
        tool,
        params: json!({"name": tool, "arguments": tool_args}),
        warmup: args.warmup,
        calls: args.calls,
        spawns: args.spawns,
    };
    let rows = rows(targets, args.relay);
    let mut rounds: Vec<Vec<Figures>> = Vec::new();
    for round in 1..=args.rounds {
        let figures = measure_round(&rows, &plan, round, args.rounds).await?;
        if rows.len() > 1 {
            table(&rows, &figures, tool, round, args.rounds, args.relay);
        }
        rounds.push(figures);
    }
    if rows.len() == 1 && rounds.len() == 1 {
        // One target, one round: the figures as they always were.
        let mut one = rounds.remove(0).remove(0).json(&rows[0]);
        if let Value::Object(map) = &mut one {
            map.insert("tool".into(), json!(tool));
            map.remove("label");
            map.remove("relay");
        }
        return Ok(one);
    }
    Ok(json!({
        "tool": tool,
        "rounds": rounds.iter().map(|figures| figures.iter().zip(&rows)
            .map(|(f, row)| f.json(row)).collect::<Vec<_>>()).collect::<Vec<_>>(),
    }))
}

/// The rows of each round: every target, the first one followed by itself behind the relay.
fn rows(targets: &[TargetCtx], relay: bool) -> Vec<Row<'_>> {
    let mut rows = Vec::new();
    for (i, tctx) in targets.iter().enumerate() {
        rows.push(Row {
            label: tctx.target.name.clone(),
            tctx,
            relay: false,
        });
        if relay && i == 0 {
            rows.push(Row {
                label: format!("relay -> {}", tctx.target.name),
                tctx,
                relay: true,
            });
        }
    }
    rows
}

/// `inv` started behind `mcp-conformance relay` (this program), in the same folder and
/// environment.
fn behind_relay(tctx: &TargetCtx, inv: Invocation) -> Invocation {
    let mut args = vec!["relay".to_owned(), "--".to_owned()];
    args.push(inv.program.display().to_string());
    args.extend(inv.args);
    Invocation {
        program: tctx.exe.clone(),
        args,
        ..inv
    }
}

/// One row's running session and what was measured of it so far.
struct Measured {
    session: Session,
    pid: u32,
    spawn: Option<Stats>,
    rss_idle: Option<u64>,
    rss_warm: Option<u64>,
    cpu_warm: Option<u64>,
    calls: Vec<Duration>,
    errors: usize,
}

/// Measures one round: each row's `spawns` starts, then one session per row, warmed up, and
/// the measured calls interleaved across the rows.
async fn measure_round(
    rows: &[Row<'_>],
    plan: &Plan<'_>,
    round: u32,
    of: u32,
) -> Result<Vec<Figures>, String> {
    // The sandboxes live until the round's sessions are shut down.
    let mut sandboxes = Vec::with_capacity(rows.len());
    let mut running = Vec::with_capacity(rows.len());
    for row in rows {
        let (sandbox, inv) = server_invocation(row.tctx)?;
        sandboxes.push(sandbox);
        let inv = if row.relay {
            behind_relay(row.tctx, inv)
        } else {
            inv
        };
        let round_note = if of > 1 {
            format!(" [round {round} of {of}]")
        } else {
            String::new()
        };
        say!("{}{round_note} ({})", row.label, inv.display());
        let mut spawns = Vec::with_capacity(plan.spawns);
        for _ in 0..plan.spawns {
            let (session, elapsed) = initialized_session(row.tctx, &inv).await?;
            spawns.push(elapsed);
            session.shutdown(Duration::from_secs(1)).await;
        }
        let (session, _) = initialized_session(row.tctx, &inv).await?;
        let pid = session.pid();
        let rss_idle = proc_status_kib(pid, "VmRSS");
        let mut measured = Measured {
            session,
            pid,
            spawn: Stats::of(&spawns),
            rss_idle,
            rss_warm: None,
            cpu_warm: None,
            calls: Vec::with_capacity(plan.calls),
            errors: 0,
        };
        for _ in 0..plan.warmup {
            call(row, plan, &mut measured).await?;
        }
        measured.rss_warm = proc_status_kib(pid, "VmRSS");
        measured.cpu_warm = proc_cpu_ticks(pid);
        measured.calls.clear();
        running.push(measured);
    }
    for i in 0..plan.calls {
        for k in 0..rows.len() {
            let at = (i + k) % rows.len();
            call(&rows[at], plan, &mut running[at]).await?;
        }
    }
    let mut figures = Vec::with_capacity(rows.len());
    for (row, measured) in rows.iter().zip(running) {
        let cpu = proc_cpu_ticks(measured.pid)
            .zip(measured.cpu_warm)
            .filter(|_| !measured.calls.is_empty())
            .map(|(after, before)| {
                after.saturating_sub(before) as f64 * TICK_US / measured.calls.len() as f64
            });
        let f = Figures {
            cpu_us_per_call: cpu,
            spawn: measured.spawn,
            calls: Stats::of(&measured.calls),
            rss_idle: measured.rss_idle,
            rss_warm: measured.rss_warm,
            rss_after: proc_status_kib(measured.pid, "VmRSS"),
            rss_peak: proc_status_kib(measured.pid, "VmHWM"),
            errors: measured.errors,
        };
        measured.session.shutdown(Duration::from_secs(1)).await;
        report(row, plan, &f);
        figures.push(f);
    }
    Ok(figures)
}

/// One timed call of the row's tool; the time is kept, an error answer counted.
async fn call(row: &Row<'_>, plan: &Plan<'_>, measured: &mut Measured) -> Result<(), String> {
    let began = Instant::now();
    let resp = measured
        .session
        .request(
            "tools/call",
            Some(plan.params.clone()),
            Duration::from_secs(30),
        )
        .await
        .map_err(|e| format!("{}: call {}: {e}", row.label, plan.tool))?;
    measured.calls.push(began.elapsed());
    if resp.get("result").is_none() || resp.pointer("/result/isError") == Some(&json!(true)) {
        measured.errors += 1;
        if measured.errors == 1 {
            eprintln!("{}: first error answer: {resp}", row.label);
        }
    }
    Ok(())
}

/// Prints one row's figures.
fn report(row: &Row<'_>, plan: &Plan<'_>, figures: &Figures) {
    say!("{}:", row.label);
    if let Some(s) = figures.spawn {
        say!("  spawn to initialize   {}", s.line());
    }
    if let Some(s) = figures.calls {
        say!("  {} round trip  {}", plan.tool, s.line());
    }
    let whose = if row.relay { "relay" } else { "server" };
    say!(
        "  {whose} RSS: idle {}, after warmup {}, after calls {}, peak {}",
        kib(figures.rss_idle),
        kib(figures.rss_warm),
        kib(figures.rss_after),
        kib(figures.rss_peak)
    );
    if let Some(cpu) = figures.cpu_us_per_call {
        say!("  {whose} CPU per call: {cpu:.1} us (user + system)");
    }
    if figures.errors > 0 {
        say!(
            "  {} calls answered with an error or isError",
            figures.errors
        );
    }
}

/// Microseconds per clock tick of `/proc/PID/stat` (Linux reports it in USER_HZ, 100 a
/// second, whatever the kernel's own tick).
const TICK_US: f64 = 10_000.0;

/// The user plus system time of `pid` so far, in clock ticks, from `/proc/PID/stat`.
fn proc_cpu_ticks(pid: u32) -> Option<u64> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name is in parentheses and may hold spaces: count fields after the last ')'.
    let rest = text.get(text.rfind(')')? + 2..)?;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // Fields 14 and 15 of the file (utime, stime) are the 12th and 13th after the name.
    let utime: u64 = fields.get(11)?.parse().ok()?;
    let stime: u64 = fields.get(12)?.parse().ok()?;
    Some(utime + stime)
}

/// Prints one round's rows side by side, each as a multiple of the relay's round trip (or of
/// the first row's without `--relay`).
fn table(rows: &[Row<'_>], figures: &[Figures], tool: &str, round: u32, of: u32, relay: bool) {
    let base_index = usize::from(relay);
    let base = figures.get(base_index).and_then(|f| f.calls);
    let base_label = rows.get(base_index).map_or("", |r| r.label.as_str());
    let width = rows.iter().map(|r| r.label.len()).max().unwrap_or(0).max(6);
    say!("");
    say!("round {round} of {of}: {tool} round trip, side by side (x: multiple of {base_label})");
    say!(
        "  {:<width$}  {:>9}  {:>9}  {:>7}  {:>7}  {:>10}  RSS after warmup -> after calls",
        "",
        "median ms",
        "p99 ms",
        "x med",
        "x p99",
        "CPU us/call"
    );
    for (row, f) in rows.iter().zip(figures) {
        let (median, p99) = f
            .calls
            .map_or((f64::NAN, f64::NAN), |s| (s.median_ms, s.p99_ms));
        let ratio = |v: f64, b: Option<f64>| match b {
            Some(b) if b > 0.0 => format!("{:.2}x", v / b),
            _ => "n/a".to_owned(),
        };
        let cpu = f
            .cpu_us_per_call
            .map_or_else(|| "n/a".to_owned(), |c| format!("{c:.1}"));
        say!(
            "  {:<width$}  {median:>9.3}  {p99:>9.3}  {:>7}  {:>7}  {cpu:>10}  {} -> {}",
            row.label,
            ratio(median, base.map(|b| b.median_ms)),
            ratio(p99, base.map(|b| b.p99_ms)),
            kib(f.rss_warm),
            kib(f.rss_after),
        );
    }
    say!("");
}

fn initialize_params(tctx: &TargetCtx) -> Value {
    let version = tctx
        .target
        .protocol_versions
        .first()
        .cloned()
        .unwrap_or_else(|| "2025-11-25".into());
    json!({"protocolVersion": version, "capabilities": {},
           "clientInfo": {"name": "mcp-conformance-bench", "version": env!("CARGO_PKG_VERSION")}})
}

async fn initialized_session(
    tctx: &TargetCtx,
    inv: &Invocation,
) -> Result<(Session, Duration), String> {
    let started = Instant::now();
    let session = Session::spawn(inv).map_err(|e| e.to_string())?;
    let resp = session
        .request(
            "initialize",
            Some(initialize_params(tctx)),
            Duration::from_secs(10),
        )
        .await
        .map_err(|e| format!("initialize: {e}"))?;
    let elapsed = started.elapsed();
    if resp.get("result").is_none() {
        return Err(format!("initialize was answered with {resp}"));
    }
    session
        .notify("notifications/initialized", None)
        .await
        .map_err(|e| e.to_string())?;
    Ok((session, elapsed))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_own_cpu_time() {
        let before = proc_cpu_ticks(std::process::id()).expect("own /proc/PID/stat");
        // Spend a few ticks: the count never goes down and grows with work.
        let started = Instant::now();
        let mut x = 0u64;
        while started.elapsed() < Duration::from_millis(50) {
            x = x.wrapping_mul(31).wrapping_add(7);
        }
        std::hint::black_box(x);
        let after = proc_cpu_ticks(std::process::id()).expect("own /proc/PID/stat");
        assert!(after >= before);
        assert!(proc_cpu_ticks(u32::MAX).is_none());
    }
}
