//! `mcp-conformance sweep`: every tool of a server checked from its own `tools/list`, with no
//! scenario to write. The command line, the run and the repro files; the cases themselves are
//! made by [`crate::sweep`].

use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use serde_json::{Value, json};

use super::{EXIT_USAGE, ReportFileArgs, runtime};
use crate::generation::{Generation, ProtocolChoice};
use crate::model::{self, LevelPolicy, Scenario};
use crate::report::{Reporter, RunReport, Status, console::Console, human::HumanReporter};
use crate::runner::{self, RunOptions, TargetCtx};
use crate::sources::load_target;
use crate::sweep::cases::{CaseOptions, cases};
use crate::sweep::discover::{Discovery, discover};
use crate::sweep::repro;

/// Options of `sweep`.
#[derive(Debug, clap::Args)]
pub struct SweepArgs {
    /// The target: a file or a built-in target's name. Or give the server's command after
    /// `--` (it is started with this environment, in this folder unless `--sandbox`).
    #[arg(long, short)]
    pub target: Option<PathBuf>,
    #[command(flatten)]
    pub made: CaseArgs,
    /// Start the command in a new empty folder rather than the current one.
    #[arg(long)]
    pub sandbox: bool,
    /// Write each failing case, cut down to the step that failed, with the target it ran on,
    /// into this folder: `mcp-conformance run --target DIR/target.yaml DIR/scenarios` replays
    /// them.
    #[arg(long)]
    pub emit_repro: Option<PathBuf>,
    /// Which generations to sweep (default: every one the server opens a session in).
    #[arg(long, value_enum)]
    pub protocol: Option<ProtocolChoice>,
    /// `should` findings fail the sweep too.
    #[arg(long)]
    pub strict: bool,
    /// Scenarios at once (default: the number of CPUs).
    #[arg(long, short)]
    pub jobs: Option<usize>,
    /// Deadline of each step (an answer, a session opened), e.g. `30s` for a slow server;
    /// default: the target's (10s for a command given after `--`).
    #[arg(long, value_parser = parse_span)]
    pub step_timeout: Option<crate::duration::Span>,
    /// Plain text, no colours.
    #[arg(long)]
    pub no_color: bool,
    #[command(flatten)]
    pub files: ReportFileArgs,
    /// The server's command and its arguments, after `--`.
    #[arg(last = true)]
    pub command: Vec<String>,
}

/// How the sweep's cases are made (shared by `sweep` and `check`).
#[derive(Debug, Clone, clap::Args)]
pub struct CaseArgs {
    /// Seed of the generated arguments: the same seed makes the same cases.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Seeded schema-valid calls per tool.
    #[arg(long, default_value_t = 5)]
    pub cases: usize,
    /// Most edge cases per tool (empty and longest strings, bounds, every enum member, each
    /// optional property alone...), called at every seed before the seeded cases.
    #[arg(long, default_value_t = crate::sweep::edges::MAX_EDGES)]
    pub edges: usize,
    /// Also call tools not annotated `readOnlyHint: true` (the specification says a tool
    /// without annotations may be destructive, so they are left out by default).
    #[arg(long)]
    pub include_mutating: bool,
}

impl CaseArgs {
    /// The options of [`cases`] these flags ask for.
    pub fn options(&self) -> CaseOptions {
        CaseOptions {
            cases: self.cases,
            edges: self.edges,
            include_mutating: self.include_mutating,
        }
    }
}

/// Runs the sweep; exit 0 clean, 1 findings, 2 a server that cannot be swept or bad usage.
pub fn sweep(args: SweepArgs) -> ExitCode {
    let (tctx, target_text) = match target_of(&args) {
        Ok(t) => t,
        Err(message) => return usage(&message),
    };
    let Some(rt) = runtime() else {
        return ExitCode::from(EXIT_USAGE);
    };
    let tctx = Arc::new(tctx);
    let tried = generations_to_try(args.protocol, !args.command.is_empty(), &tctx);
    let found = rt.block_on(discover(tctx.clone(), &tried));
    if found.spoken.is_empty() {
        let why: Vec<String> = found
            .refused
            .iter()
            .map(|(g, why)| format!("{g}: {why}"))
            .collect();
        return usage(&format!(
            "the server opened no session ({})",
            why.join("; ")
        ));
    }
    for (g, why) in &found.refused {
        eprintln!("sweep: no {g} session ({why}); that generation is not swept");
    }
    let spoken: Vec<Generation> = found.spoken.iter().map(|(g, _)| *g).collect();
    let options = args.made.options();
    let (scenarios, documents) = match sweep_scenarios("sweep", &found, &options, args.made.seed) {
        Ok(made) => made,
        Err(message) => return usage(&message),
    };
    let options = RunOptions {
        jobs: args
            .jobs
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(2, |n| n.get())),
        fail_fast: false,
        baseline: None,
        levels: LevelPolicy {
            strict: args.strict,
            beyond: true,
        },
        ..RunOptions::default()
    };
    let stdout = std::io::stdout();
    let color = !args.no_color && stdout.is_terminal() && std::env::var_os("NO_COLOR").is_none();
    let mut console = Console::new(
        HumanReporter::new(stdout.lock(), color, false),
        std::io::stderr().is_terminal(),
    );
    let mut files = crate::report::files::ReportFiles::from(args.files.clone());
    let work = vec![(tctx.clone(), runner::plan(scenarios, &spoken))];
    let report = rt.block_on(runner::run_all(work, &options, |event| {
        let _ = console.on_event(event);
        let _ = files.on_event(event);
    }));
    drop(console);
    let mut code = if report.is_success() { 0 } else { 1 };
    for failure in files.failures() {
        eprintln!("mcp-conformance: {failure}");
        code = EXIT_USAGE;
    }
    if let Some(dir) = &args.emit_repro {
        let pairs = reproductions(&report, &documents, &spoken);
        let cut: Vec<Value> = pairs.iter().map(|(c, _)| c.clone()).collect();
        let still = rt.block_on(replay(tctx.clone(), &cut, &spoken, options.levels));
        // A cut-down case that no longer fails on its own (its failure needed an earlier
        // step) is written whole, once.
        let mut verified: Vec<Value> = Vec::new();
        for (cut, whole) in pairs {
            let keep = if still.iter().any(|s| s["name"] == cut["name"]) {
                cut
            } else {
                whole
            };
            if !verified.iter().any(|v| v["name"] == keep["name"]) {
                verified.push(keep);
            }
        }
        let schemas: BTreeMap<String, Value> = found.spoken[0]
            .1
            .iter()
            .filter_map(|t| {
                Some((
                    t.get("name")?.as_str()?.to_string(),
                    t.get("inputSchema")?.clone(),
                ))
            })
            .collect();
        let verified = rt.block_on(minimize(
            tctx.clone(),
            verified,
            &schemas,
            &spoken,
            options.levels,
        ));
        match repro::write(dir, &target_text, &verified) {
            Ok(target) => eprintln!(
                "sweep: {} failing case(s) written; replay: mcp-conformance run --target {} {}",
                verified.len(),
                target.display(),
                dir.join("scenarios").display()
            ),
            Err(e) => {
                eprintln!("mcp-conformance: cannot write {}: {e}", dir.display());
                code = EXIT_USAGE;
            }
        }
    }
    rt.shutdown_timeout(std::time::Duration::from_secs(1));
    ExitCode::from(code)
}

/// The sweep's cases for the tools `found` listed, as scenarios (each beside the document
/// it was parsed from, by name), saying on stderr, after `who: `, what is swept and what is
/// left out. Err: an internal case that does not parse.
pub(super) fn sweep_scenarios(
    who: &str,
    found: &Discovery,
    options: &CaseOptions,
    seed: u64,
) -> Result<(Vec<Scenario>, BTreeMap<String, Value>), String> {
    let Some((_, tools)) = found.spoken.first() else {
        return Ok((Vec::new(), BTreeMap::new()));
    };
    let made = cases(tools, options, seed);
    for line in &made.left_out {
        eprintln!("{who}: not called: {line}");
    }
    let count = |kind: &str| -> usize {
        made.scenarios
            .iter()
            .filter_map(|s| s["steps"].as_array())
            .flatten()
            .filter(|step| step.get(kind).is_some())
            .count()
    };
    let edge_calls = made
        .scenarios
        .iter()
        .filter_map(|s| s["steps"].as_array())
        .flatten()
        .filter(|step| {
            step["label"]
                .as_str()
                .is_some_and(|l| l.contains(" (edge: "))
        })
        .count();
    eprintln!(
        "{who}: {} tools listed; {} sweep scenarios with {} tool calls ({edge_calls} at schema edges) and {} fuzz lines, in each of {} generation(s)",
        tools.len(),
        made.scenarios.len(),
        count("call"),
        count("send") + count("send_bytes"),
        found.spoken.len()
    );
    let mut documents: BTreeMap<String, Value> = BTreeMap::new();
    let mut scenarios = Vec::new();
    for doc in made.scenarios {
        let s = scenario_of(&doc)?;
        documents.insert(s.name.clone(), doc);
        scenarios.push(s);
    }
    Ok((scenarios, documents))
}

/// The generations to try on `tctx`: `protocol`'s, else those a target file declares, else
/// (a command after `--`) every one.
pub(super) fn generations_to_try(
    protocol: Option<ProtocolChoice>,
    from_command: bool,
    tctx: &TargetCtx,
) -> Vec<Generation> {
    match protocol {
        Some(choice) => choice.generations(),
        None if !from_command => match tctx.target.spoken() {
            spoken if spoken.is_empty() => vec![Generation::Legacy],
            spoken => spoken,
        },
        None => Generation::ALL.to_vec(),
    }
}

fn parse_span(text: &str) -> Result<crate::duration::Span, String> {
    crate::duration::Span::try_from(text).map_err(|e| e.to_string())
}

fn usage(message: &str) -> ExitCode {
    eprintln!("mcp-conformance: sweep: {message}");
    ExitCode::from(EXIT_USAGE)
}

/// How the server to judge is named on the command line: a target, or its command.
pub(super) struct ServerChoice<'a> {
    /// `--target FILE|NAME`.
    pub target: Option<&'a PathBuf>,
    /// The command after `--`.
    pub command: &'a [String],
    /// `--sandbox`: start the command in a new empty folder.
    pub sandbox: bool,
    /// `--step-timeout`.
    pub step_timeout: Option<crate::duration::Span>,
    /// The word the made-up target's description starts with (`swept`, `checked`).
    pub verb: &'a str,
}

/// The target to sweep and the text of a target file that starts it (for the repro folder).
fn target_of(args: &SweepArgs) -> Result<(TargetCtx, String), String> {
    server_target(&ServerChoice {
        target: args.target.as_ref(),
        command: &args.command,
        sandbox: args.sandbox,
        step_timeout: args.step_timeout,
        verb: "swept",
    })
}

/// The target `choice` names and the text of a target file that starts it. A command after
/// `--` becomes a target claiming the protocol suite in both generations, started in this
/// folder (or a new empty one), with this environment. `--step-timeout` applies to either.
pub(super) fn server_target(choice: &ServerChoice<'_>) -> Result<(TargetCtx, String), String> {
    let (mut tctx, text) = target_named(choice)?;
    if let Some(step) = choice.step_timeout {
        tctx.target.timeouts.step = step;
    }
    Ok((tctx, text))
}

/// The target `choice` names, as its file (or the made-up one) says.
fn target_named(choice: &ServerChoice<'_>) -> Result<(TargetCtx, String), String> {
    let args = choice;
    match (args.target, args.command) {
        (Some(_), [_, ..]) => Err("give either --target or a command after --, not both".into()),
        (None, []) => Err("give the server's command after -- (or --target FILE)".into()),
        (Some(path), []) => {
            let (tctx, _) = load_target(&Some(path.to_path_buf())).map_err(|e| {
                e.iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join("; ")
            })?;
            let text = std::fs::read_to_string(path)
                .ok()
                .or_else(|| {
                    crate::builtin::target(&path.to_string_lossy()).map(|(_, t)| t.to_string())
                })
                .unwrap_or_default();
            Ok((tctx, text))
        }
        (None, [program, rest @ ..]) => {
            // A command with a folder in it is made absolute, so the target file written
            // beside the repro cases starts the same program from any folder.
            let command = if program.contains('/') {
                std::path::absolute(program)
                    .map_err(|e| format!("cannot resolve {program}: {e}"))?
                    .display()
                    .to_string()
            } else {
                program.clone()
            };
            let mut server = json!({"command": command, "args": rest});
            let step = args
                .step_timeout
                .map_or_else(|| "10s".to_string(), |s| s.to_string());
            if !args.sandbox {
                let here = std::env::current_dir()
                    .map_err(|e| format!("cannot read the current folder: {e}"))?;
                server["cwd"] = json!(here.display().to_string());
            }
            let name = std::path::Path::new(program)
                .file_name()
                .map_or_else(|| program.clone(), |n| n.to_string_lossy().into_owned());
            let doc = json!({
                "name": name,
                "description": format!("{} with: {}", args.verb, args.command.join(" ")),
                "suites": ["protocol"],
                // The revisions the suite knows, newest first: what `initialize` asks for
                // until the server has said which it speaks.
                "protocol_versions": ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"],
                "generations": ["legacy", "modern"],
                "server": server,
                "timeouts": {"step": step},
            });
            let text = serde_saphyr::to_string(&doc).map_err(|e| e.to_string())?;
            let target = model::parse_target(&text, "<sweep>/target.yaml").map_err(|e| {
                e.iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join("; ")
            })?;
            let exe = std::env::current_exe()
                .map_err(|e| format!("cannot locate mcp-conformance itself: {e}"))?;
            let dir = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
            let tctx = TargetCtx {
                target,
                display: args.command.join(" "),
                dir,
                exe,
                pool: None,
            };
            Ok((tctx, text))
        }
    }
}

/// `check`'s scenarios for the prompts and resource templates discovery listed
/// (`sweep/prompts.rs`, `sweep/templates.rs`), for a server declaring those capabilities.
pub(super) fn prompt_scenarios(found: &Discovery) -> Result<Vec<Scenario>, String> {
    crate::sweep::prompts::prompt_cases(&found.prompts)
        .iter()
        .chain(&crate::sweep::templates::template_cases(&found.templates))
        .map(scenario_of)
        .collect()
}

/// A sweep document as a scenario, through the same parser as a file (so a written-out case
/// is exactly what ran).
fn scenario_of(doc: &Value) -> Result<Scenario, String> {
    let name = doc.get("name").and_then(Value::as_str).unwrap_or("sweep");
    let text = serde_saphyr::to_string(doc).map_err(|e| e.to_string())?;
    model::parse_scenario(&text, &format!("<sweep>/{}", repro::file_name(name))).map_err(|e| {
        let lines: Vec<String> = e.iter().map(ToString::to_string).collect();
        format!("an internal case is invalid: {}", lines.join("; "))
    })
}

/// The failing and warned steps of `report`, each as a cut-down document for the pass it
/// failed in, beside the whole scenario it was cut from (for the same pass).
fn reproductions(
    report: &RunReport,
    documents: &BTreeMap<String, Value>,
    spoken: &[Generation],
) -> Vec<(Value, Value)> {
    let mut out = Vec::new();
    for result in &report.scenarios {
        let (base, pass) = split_pass(&result.name, spoken);
        let Some(doc) = documents.get(base) else {
            continue;
        };
        let failed = result
            .failure
            .iter()
            .filter(|_| result.status == Status::Failed)
            .chain(&result.warnings)
            .filter_map(|f| f.step);
        for step in failed {
            let for_pass = |mut doc: Value| {
                if let Some(g) = pass {
                    doc["tags"] = json!(["sweep", g.as_str()]);
                    let name = doc["name"].as_str().unwrap_or(base).to_string();
                    doc["name"] = json!(format!("{name}/{g}"));
                }
                doc
            };
            out.push((for_pass(repro::shrink(doc, step)), for_pass(doc.clone())));
        }
    }
    out
}

/// `NAME [legacy]` -> (`NAME`, legacy) when more than one generation ran.
fn split_pass<'a>(name: &'a str, spoken: &[Generation]) -> (&'a str, Option<Generation>) {
    for g in spoken {
        if let Some(base) = name.strip_suffix(&format!(" [{g}]")) {
            return (base, Some(*g));
        }
    }
    (name, spoken.first().copied().filter(|_| spoken.len() == 1))
}

/// The arguments of each failing valid call, shrunk while the case still fails: rounds of
/// one-edit-simpler sets the tool's `inputSchema` still accepts ([`repro::simpler`]), all
/// candidates of a round run at once, the first that still fails kept.
async fn minimize(
    tctx: Arc<TargetCtx>,
    mut docs: Vec<Value>,
    schemas: &BTreeMap<String, Value>,
    spoken: &[Generation],
    levels: LevelPolicy,
) -> Vec<Value> {
    for _round in 0..6 {
        let mut candidates: Vec<(usize, Value)> = Vec::new();
        for (i, doc) in docs.iter().enumerate() {
            let name = doc["name"].as_str().unwrap_or_default();
            let step = &doc["steps"][1];
            let (Some(tool), true) = (step["call"].as_str(), name.contains("/valid/")) else {
                continue;
            };
            let Some(schema) = schemas.get(tool) else {
                continue;
            };
            for (k, args) in repro::simpler(&step["args"], schema)
                .into_iter()
                .enumerate()
            {
                let mut candidate = doc.clone();
                candidate["steps"][1]["args"] = args;
                candidate["name"] = json!(format!("{name}/shrink-{k}"));
                candidates.push((i, candidate));
            }
        }
        if candidates.is_empty() {
            break;
        }
        let tried: Vec<Value> = candidates.iter().map(|(_, c)| c.clone()).collect();
        let still = replay(tctx.clone(), &tried, spoken, levels).await;
        let mut changed = vec![false; docs.len()];
        for (i, candidate) in candidates {
            if !changed[i] && still.iter().any(|s| s["name"] == candidate["name"]) {
                let name = docs[i]["name"].clone();
                // The label named the case it was cut from (an edge, say), which the shrunk
                // arguments may no longer be.
                let label = docs[i]["steps"][1]["label"].as_str().map(|l| {
                    let l = l.strip_suffix(", shrunk").unwrap_or(l);
                    format!("{l}, shrunk")
                });
                docs[i] = candidate;
                docs[i]["name"] = name;
                if let Some(label) = label {
                    docs[i]["steps"][1]["label"] = json!(label);
                }
                changed[i] = true;
            }
        }
        if !changed.contains(&true) {
            break;
        }
    }
    docs
}

/// The cases in `cut` that still fail (or warn) when run again.
async fn replay(
    tctx: Arc<TargetCtx>,
    cut: &[Value],
    spoken: &[Generation],
    levels: LevelPolicy,
) -> Vec<Value> {
    let mut scenarios = Vec::new();
    for doc in cut {
        if let Ok(s) = scenario_of(doc) {
            scenarios.push(s);
        }
    }
    if scenarios.is_empty() {
        return Vec::new();
    }
    let planned = runner::plan(scenarios, spoken);
    let options = RunOptions {
        jobs: 2,
        fail_fast: false,
        baseline: None,
        levels,
        ..RunOptions::default()
    };
    let report = runner::run_all(vec![(tctx, planned)], &options, |_| {}).await;
    let still: Vec<&str> = report
        .scenarios
        .iter()
        .filter(|r| r.status == Status::Failed || !r.warnings.is_empty())
        .map(|r| r.name.as_str())
        .collect();
    cut.iter()
        .filter(|doc| {
            let name = doc.get("name").and_then(Value::as_str).unwrap_or_default();
            still
                .iter()
                .any(|s| *s == name || s.starts_with(&format!("{name} [")))
        })
        .cloned()
        .collect()
}
