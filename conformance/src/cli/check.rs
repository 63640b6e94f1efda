//! `mcp-conformance check`: the one command a stranger runs on a server. It finds the
//! generations the server speaks, then judges, in one run with one report, the built-in
//! suites it is held to (the protocol suite; with a target file, every suite the file
//! claims), every tool swept from its own schema (boundary values, seeded values, invalid
//! calls) and the protocol fuzz. What `run` and `sweep` do apart, `check` does at once.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use super::sweep::{
    CaseArgs, ServerChoice, generations_to_try, prompt_scenarios, server_target, sweep_scenarios,
};
use super::{BeyondArgs, EXIT_USAGE, ReportFileArgs, Shown, run_reported, runtime, selection};
use crate::generation::{Generation, ProtocolChoice};
use crate::model::{GenerationClaim, LevelPolicy};
use crate::runner::share::ServerPool;
use crate::runner::{self, RunOptions};
use crate::sources::{Selection, load_scenarios};
use crate::sweep::discover::discover;

/// Options of `check`.
#[derive(Debug, clap::Args)]
pub struct CheckArgs {
    /// The target: a file or a built-in target's name (judged on every suite it claims).
    /// Or give the server's command after `--` (judged on the protocol suite; started with
    /// this environment, in this folder unless `--sandbox`).
    #[arg(long, short)]
    pub target: Option<PathBuf>,
    /// Warnings (level `should`) fail the check too.
    #[arg(long)]
    pub strict: bool,
    #[command(flatten)]
    pub beyond: BeyondArgs,
    #[command(flatten)]
    pub made: CaseArgs,
    /// Start the command in a new empty folder rather than the current one.
    #[arg(long)]
    pub sandbox: bool,
    /// Which generations to judge (default: a target file's; for a command, every one it
    /// opens a session in).
    #[arg(long, value_enum)]
    pub protocol: Option<ProtocolChoice>,
    /// Leave out scenarios with this tag (repeat for several), e.g. `slow`.
    #[arg(long = "skip-tag")]
    pub skip_tags: Vec<String>,
    /// Start the server afresh for every scenario. By default scenarios that only send
    /// requests and read answers share a running server of the same command and generation
    /// (one that fails on a shared server is judged again on a server of its own).
    #[arg(long)]
    pub isolated: bool,
    /// Scenarios at once (default: twice the number of CPUs).
    #[arg(long, short)]
    pub jobs: Option<usize>,
    /// Deadline of each step, e.g. `30s` for a slow server; default: the target's (10s for
    /// a command given after `--`).
    #[arg(long, value_parser = parse_span)]
    pub step_timeout: Option<crate::duration::Span>,
    /// Never use colors.
    #[arg(long)]
    pub no_color: bool,
    /// Show more detail for passing scenarios.
    #[arg(long, short)]
    pub verbose: bool,
    #[command(flatten)]
    pub files: ReportFileArgs,
    /// The server's command and its arguments, after `--`.
    #[arg(last = true)]
    pub command: Vec<String>,
}

fn parse_span(text: &str) -> Result<crate::duration::Span, String> {
    crate::duration::Span::try_from(text).map_err(|e| e.to_string())
}

fn usage(message: &str) -> ExitCode {
    eprintln!("mcp-conformance: check: {message}");
    ExitCode::from(EXIT_USAGE)
}

/// Runs the check: exit 0 clean (warnings allowed), 1 a failure (a server that dies, hangs
/// or answers wrongly included), 2 a problem of the invocation (bad flags, a command that
/// cannot be started, nothing to judge, a report file that cannot be written).
pub fn check(args: CheckArgs) -> ExitCode {
    let from_command = !args.command.is_empty();
    let (tctx, _) = match server_target(&ServerChoice {
        target: args.target.as_ref(),
        command: &args.command,
        sandbox: args.sandbox,
        step_timeout: args.step_timeout,
        verb: "checked",
    }) {
        Ok(t) => t,
        Err(message) => return usage(&message),
    };
    let Some(rt) = runtime() else {
        return ExitCode::from(EXIT_USAGE);
    };
    // Discovery's servers are the first the pool hands on.
    let pool = (!args.isolated).then(|| Arc::new(ServerPool::default()));
    let tctx = Arc::new(runner::TargetCtx {
        pool: pool.clone(),
        ..tctx
    });
    let tried = generations_to_try(args.protocol, from_command, &tctx);
    let found = rt.block_on(discover(tctx.clone(), &tried));
    if found.spoken.is_empty()
        && found
            .refused
            .iter()
            .all(|(_, why)| why.contains("cannot start the server"))
    {
        let why = found.refused.first().map_or("", |(_, why)| why.as_str());
        return usage(why);
    }
    let spoken: Vec<Generation> = found.spoken.iter().map(|(g, _)| *g).collect();
    for (g, why) in &found.refused {
        eprintln!("check: no {g} session ({why})");
    }
    let tctx = if from_command && !spoken.is_empty() {
        Arc::new(as_found(&tctx, &spoken, &found.versions))
    } else {
        tctx
    };
    // A target file's generations are judged as declared (a declared one that does not
    // open fails there); a bare command is judged in the ones it speaks, or, speaking none,
    // in the first tried, where the protocol suite says what went wrong.
    let judged: Vec<Generation> = if !from_command || args.protocol.is_some() {
        tried.clone()
    } else if spoken.is_empty() {
        tried.iter().take(1).copied().collect()
    } else {
        spoken.clone()
    };
    let selection = Selection {
        target: Vec::new(),
        paths: Vec::new(),
        tags: Vec::new(),
        skip_tags: args.skip_tags.clone(),
        name: None,
        shard: None,
    };
    let scenarios = match load_scenarios(&selection) {
        Ok(s) => s,
        Err(errors) => {
            super::print_errors(&errors);
            return ExitCode::from(EXIT_USAGE);
        }
    };
    let levels = LevelPolicy {
        strict: args.strict,
        beyond: false,
    };
    let beyond = args.beyond.choice();
    // The suites the target does not claim are not this check's business: no line for them.
    let mut scenarios: Vec<_> = scenarios
        .into_iter()
        .filter(|s| tctx.target.claims_suite(&s.suite))
        .collect();
    // Scenarios written for a generation that is not judged are one line, not a skip each.
    let mut unspoken = Vec::new();
    for g in Generation::ALL {
        if judged.contains(&g) {
            continue;
        }
        let before = scenarios.len();
        scenarios.retain(|s| !s.tags.iter().any(|t| t == g.as_str()));
        if scenarios.len() < before {
            unspoken.push(format!(
                "{} written for the {g} generation: the server opened no {g} session",
                selection::scenarios_count(before - scenarios.len())
            ));
        }
    }
    let (mut work, mut not_judged) = match selection::assign(
        vec![(*tctx).clone()],
        &scenarios,
        Some(&judged),
        beyond,
        levels,
    ) {
        Ok(a) => (a.work, a.not_judged),
        Err(message) => (Vec::new(), vec![message]),
    };
    not_judged.extend(unspoken);
    let options = args.made.options();
    let (mut swept, _) = match sweep_scenarios("check", &found, &options, args.made.seed) {
        Ok(made) => made,
        Err(message) => return usage(&message),
    };
    match prompt_scenarios(&found) {
        Ok(prompts) => swept.extend(prompts),
        Err(message) => return usage(&message),
    }
    if spoken.is_empty() {
        not_judged.push("the sweep: the server opened no session to list its tools in".into());
    }
    let swept = runner::plan(swept, &spoken);
    match work.first_mut() {
        Some((_, mine)) => mine.extend(swept),
        None if !swept.is_empty() => work.push((tctx.clone(), swept)),
        None => {
            return usage(
                not_judged
                    .first()
                    .map_or("nothing to judge", String::as_str),
            );
        }
    }
    let options = RunOptions {
        // Most of a check is waiting on the server, and the shared servers bound how many
        // start at once.
        jobs: args.jobs.unwrap_or_else(|| {
            2 * std::thread::available_parallelism().map_or(2, std::num::NonZero::get)
        }),
        fail_fast: false,
        baseline: None,
        levels,
        beyond,
        not_judged,
    };
    let shown = Shown {
        no_color: args.no_color,
        verbose: args.verbose,
        files: args.files,
    };
    let code = run_reported(&rt, work, &options, shown);
    if let Some(pool) = pool {
        rt.block_on(pool.close(runner::scenario::TEARDOWN_GRACE));
    }
    rt.shutdown_timeout(std::time::Duration::from_secs(1));
    ExitCode::from(code)
}

/// The target made up for a command, told what discovery found: the generations the server
/// opened a session in (so scenarios for servers speaking only one run, and none demands the
/// other), and the protocol version it answered `initialize` with (a server need not support
/// the newest revision; `initialize-supported-version` then asks for the one it named).
fn as_found(
    tctx: &runner::TargetCtx,
    spoken: &[Generation],
    versions: &[(Generation, String)],
) -> runner::TargetCtx {
    let mut found = tctx.clone();
    found.target.generations = spoken
        .iter()
        .map(|g| match g {
            Generation::Legacy => GenerationClaim::Legacy,
            Generation::Modern => GenerationClaim::Modern,
        })
        .collect();
    if let Some((_, version)) = versions.iter().find(|(g, _)| *g == Generation::Legacy) {
        found.target.protocol_versions = vec![version.clone()];
    }
    found
}
