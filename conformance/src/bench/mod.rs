//! `mcp-conformance bench`: figures measured from outside the server process, so they mean
//! the same for any implementation: spawn-to-initialize time, tool-call round trips, and the
//! server's resident memory (from `/proc`). Several targets, and the first one behind the
//! relay (`--relay`, see `crate::relay`), are measured in one run and printed side by side
//! (`calls`). Benchmarks live here, not in tests: tests stay fast and deterministic, figures
//! are printed for people to compare.

use crate::interp::Vars;
use crate::model::{self, FileError};
use crate::process::Invocation;
use crate::runner::{TargetCtx, context::build_invocation, create_sandbox, run_scenario_observed};
use crate::sandbox::{Sandbox, SandboxSpec};
use crate::say::say;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

mod calls;

/// Options of `mcp-conformance bench`.
#[derive(Debug, Clone, clap::Args)]
pub struct BenchArgs {
    /// The target file or built-in target (default: fixtures/targets/reference-toolhub.yaml).
    /// Repeat it to measure several targets in one run, side by side.
    #[arg(long, short)]
    pub target: Vec<PathBuf>,
    /// Also measure the first target behind `mcp-conformance relay`, a process that copies
    /// bytes both ways without reading them: the floor of any proxy in front of it. The
    /// other targets' round trips are then given as multiples of the relay's.
    #[arg(long, conflicts_with = "scenario")]
    pub relay: bool,
    /// Measure every target (and the relay) this many times, one after the other in each
    /// round, so drift of the machine shows as a spread instead of favouring one of them.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    pub rounds: u32,
    /// The tool to call in the round-trip measurement.
    #[arg(long)]
    pub call: Option<String>,
    /// Its arguments, as JSON (default `{}`).
    #[arg(long, default_value = "{}")]
    pub args: String,
    /// Measured calls.
    #[arg(short = 'n', long, default_value_t = 1000)]
    pub calls: usize,
    /// Unmeasured calls first.
    #[arg(long, default_value_t = 50)]
    pub warmup: usize,
    /// Server starts measured from spawn to the initialize answer.
    #[arg(long, default_value_t = 20)]
    pub spawns: usize,
    /// Instead: run this scenario once and print how long each top-level step took.
    #[arg(long, conflicts_with = "call")]
    pub scenario: Option<PathBuf>,
    /// Also write the figures as JSON.
    #[arg(long)]
    pub json: Option<PathBuf>,
}

/// Median, p99 and extremes of a set of durations, in milliseconds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Stats {
    pub count: usize,
    pub min_ms: f64,
    pub median_ms: f64,
    pub p99_ms: f64,
    pub max_ms: f64,
    pub mean_ms: f64,
}

impl Stats {
    /// Summarises samples; `None` when there are none.
    pub fn of(samples: &[Duration]) -> Option<Stats> {
        if samples.is_empty() {
            return None;
        }
        let mut ms: Vec<f64> = samples.iter().map(|d| d.as_secs_f64() * 1000.0).collect();
        ms.sort_by(f64::total_cmp);
        let at = |q: f64| ms[((ms.len() as f64 - 1.0) * q).round() as usize];
        Some(Stats {
            count: ms.len(),
            min_ms: ms[0],
            median_ms: at(0.5),
            p99_ms: at(0.99),
            max_ms: ms[ms.len() - 1],
            mean_ms: ms.iter().sum::<f64>() / ms.len() as f64,
        })
    }

    pub(crate) fn json(&self) -> Value {
        json!({"count": self.count, "min_ms": self.min_ms, "median_ms": self.median_ms,
               "p99_ms": self.p99_ms, "max_ms": self.max_ms, "mean_ms": self.mean_ms})
    }

    pub(crate) fn line(&self) -> String {
        format!(
            "median {:.3} ms  p99 {:.3} ms  (min {:.3}, max {:.3}, mean {:.3}; n={})",
            self.median_ms, self.p99_ms, self.min_ms, self.max_ms, self.mean_ms, self.count
        )
    }
}

pub use crate::process::proc_status_kib;

/// A KiB figure as MiB for people (`n/a` when unknown).
pub(crate) fn kib(v: Option<u64>) -> String {
    v.map(|k| format!("{:.1} MiB", k as f64 / 1024.0))
        .unwrap_or_else(|| "n/a".into())
}

/// Runs the benchmark on `runtime`; returns the process exit code (0 ok, 1 failed, 2 usage).
pub fn run(args: BenchArgs, targets: Vec<TargetCtx>, runtime: tokio::runtime::Runtime) -> u8 {
    let result = runtime.block_on(async {
        match (&args.scenario, targets.as_slice()) {
            (Some(file), [tctx]) => bench_scenario(tctx, file).await,
            (Some(_), _) => Err("--scenario runs on one target".to_owned()),
            (None, _) => calls::bench_calls(&args, &targets).await,
        }
    });
    runtime.shutdown_timeout(Duration::from_secs(1));
    match result {
        Ok(figures) => {
            if let Some(path) = &args.json {
                let text = serde_json::to_string_pretty(&figures).unwrap_or_default();
                if let Err(e) = std::fs::write(path, text + "\n") {
                    eprintln!("mcp-conformance: cannot write {}: {e}", path.display());
                    return 2;
                }
            }
            0
        }
        Err(message) => {
            eprintln!("mcp-conformance bench: {message}");
            1
        }
    }
}

/// Prepares a sandbox and the server's invocation as a scenario without steps would.
pub(crate) fn server_invocation(tctx: &TargetCtx) -> Result<(Sandbox, Invocation), String> {
    let mut vars: Vars = tctx.base_vars();
    let sandbox = create_sandbox(tctx, &SandboxSpec::default(), &mut vars)?;
    let inv = build_invocation(
        tctx,
        &tctx.target.server,
        &vars,
        &BTreeMap::new(),
        &BTreeMap::new(),
        sandbox.tmp(),
    )
    .map_err(|e| e.to_string())?;
    Ok((sandbox, inv))
}

async fn bench_scenario(tctx: &TargetCtx, file: &std::path::Path) -> Result<Value, String> {
    let display = file.display().to_string();
    let scenario = model::load_scenario(file, &display).map_err(|errors: Vec<FileError>| {
        errors
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join("\n")
    })?;
    let mut timings = Vec::new();
    let result = run_scenario_observed(
        tctx,
        &scenario,
        model::LevelPolicy::default(),
        &mut |step| timings.push(step),
    )
    .await;
    say!("      time   server RSS / peak RSS after the step   step");
    for t in &timings {
        say!(
            "{:>10.3} ms  {:>9} / {:<9}  {}:{}  {}",
            t.duration.as_secs_f64() * 1000.0,
            kib(t.server_rss_kib),
            kib(t.server_peak_rss_kib),
            t.position.line,
            t.position.column,
            t.label
        );
    }
    if let Some(f) = &result.failure {
        return Err(format!("the scenario failed: {}", f.message));
    }
    if let Some(reason) = &result.skip_reason {
        return Err(format!("the scenario was skipped: {reason}"));
    }
    Ok(json!({
        "scenario": scenario.name,
        "steps": timings.iter().map(|t| json!({
            "label": t.label, "line": t.position.line,
            "ms": t.duration.as_secs_f64() * 1000.0,
            "server_rss_kib": t.server_rss_kib,
            "server_peak_rss_kib": t.server_peak_rss_kib})).collect::<Vec<_>>(),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stats_percentiles() {
        let samples: Vec<Duration> = (1..=100).map(Duration::from_millis).collect();
        let s = Stats::of(&samples).expect("stats");
        assert_eq!(s.count, 100);
        assert!((s.median_ms - 51.0).abs() < 1.0, "{s:?}");
        assert!((s.p99_ms - 99.0).abs() < 1.0, "{s:?}");
        assert_eq!(Stats::of(&[]), None);
    }

    #[test]
    fn reads_own_rss() {
        let pid = std::process::id();
        assert!(proc_status_kib(pid, "VmRSS").is_some_and(|k| k > 0));
        assert!(proc_status_kib(pid, "NoSuchField").is_none());
    }
}
