//! The `mcp-conformance` command line.

mod check;
mod merge;
mod selection;
mod sweep;
mod targets;

use crate::model::{self, FileError};
use crate::report::{Reporter, console::Console, files::ReportFiles, human::HumanReporter};
use crate::runner::{self, RunOptions};
use crate::say::{say, say_part};
use clap::{Parser, Subcommand};
use std::collections::BTreeSet;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

pub use crate::sources::{Selection, glob_match};
use crate::sources::{collect_files, load_scenarios, load_targets};
/// The scenario folder `validate` checks when no PATH is given.
pub const DEFAULT_SCENARIOS: &str = "scenarios";
/// The target folder `validate` checks besides scenarios when no PATH is given.
pub const DEFAULT_TARGETS: &str = "fixtures/targets";

/// Black-box conformance suite for stdio MCP servers.
#[derive(Debug, Parser)]
#[command(name = "mcp-conformance", version, about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Judge a server completely, in one run and one report: the protocol suite (and the
    /// suites a target file claims), every tool swept from its schema, and the protocol fuzz.
    /// Give its command after `--`, or `--target FILE`.
    Check(check::CheckArgs),
    /// Run scenarios against a target and report.
    Run(RunArgs),
    /// List the scenarios that a run would consider.
    List(ListArgs),
    /// Parse and check scenario and target files; errors as FILE:LINE:COL: message.
    Validate {
        /// Files or folders (default: scenarios/ and fixtures/targets/).
        paths: Vec<PathBuf>,
    },
    /// Print the JSON Schema of the scenario or target format.
    Schema {
        /// Which format.
        #[arg(value_enum, default_value = "scenario")]
        kind: SchemaKind,
    },
    /// Measure a server from outside: spawn-to-initialize, call round trips, memory.
    Bench(crate::bench::BenchArgs),
    /// Relay bytes between stdio and a server command without reading them: the floor that
    /// `bench --relay` compares a proxy with.
    Relay(crate::relay::RelayArgs),
    /// Run the configurable fixture MCP server on stdio.
    FixtureServer(crate::fixture::FixtureArgs),
    /// Run the probe program that scenarios ask servers to execute.
    Probe(crate::probe::ProbeArgs),
    /// Write a commented target file to start from (or a copy of a built-in target).
    InitTarget(InitTargetArgs),
    /// Merge the JSON reports of the shards of one run (`run --shard K/N --json`) into the
    /// report of the whole run: the human report, and any of JSON, JUnit and Markdown.
    Merge(merge::MergeArgs),
    /// Check every tool of a server from its own tools/list: schema-valid and invalid calls, with no scenario to write
    Sweep(sweep::SweepArgs),
    /// List the built-in targets (`--reference`: the reference servers; `--json` for scripts)
    Targets(targets::TargetsArgs),
}

/// The report files `run` and `merge` write besides the human report.
#[derive(Debug, Clone, clap::Args)]
pub struct ReportFileArgs {
    /// Write a JSON report to this file.
    #[arg(long)]
    pub json: Option<PathBuf>,
    /// Write a JUnit XML report to this file.
    #[arg(long)]
    pub junit: Option<PathBuf>,
    /// Write a Markdown summary to this file (for `$GITHUB_STEP_SUMMARY` or a pull-request
    /// comment).
    #[arg(long)]
    pub markdown: Option<PathBuf>,
}

impl From<ReportFileArgs> for ReportFiles {
    fn from(args: ReportFileArgs) -> ReportFiles {
        ReportFiles::new(args.json, args.junit, args.markdown)
    }
}

/// Options of `init-target`.
#[derive(Debug, clap::Args)]
pub struct InitTargetArgs {
    /// Copy this built-in target instead of the commented template (e.g. reference-toolhub).
    #[arg(long, value_name = "NAME")]
    pub from: Option<String>,
    /// Write to this file (default: standard output).
    #[arg(long, short, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Replace FILE if it exists.
    #[arg(long)]
    pub force: bool,
}

/// Which schema to print.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum SchemaKind {
    Scenario,
    Target,
}

/// Options of `run`.
#[derive(Debug, clap::Args)]
pub struct RunArgs {
    #[command(flatten)]
    pub selection: Selection,
    /// Scenarios at once (default: twice the number of CPUs).
    #[arg(long, short = 'j')]
    pub jobs: Option<usize>,
    #[command(flatten)]
    pub files: ReportFileArgs,
    /// A file of scenario names expected to fail (one per line, # comments).
    #[arg(long)]
    pub baseline: Option<PathBuf>,
    /// Stop starting scenarios after the first unexpected failure.
    #[arg(long)]
    pub fail_fast: bool,
    /// Fail the run on warnings: checks of level `should` weigh as `must`.
    #[arg(long)]
    pub strict: bool,
    #[command(flatten)]
    pub beyond: BeyondArgs,
    /// Which lifecycle generation(s) to drive: `legacy` (initialize handshake), `modern`
    /// (2026-07-28: server/discover and per-request _meta) or `both` (each scenario once
    /// per generation, the generation in its name). Default: the ones the target declares.
    #[arg(long, value_enum, value_name = "GENERATION")]
    pub protocol: Option<crate::generation::ProtocolChoice>,
    /// Never use colors.
    #[arg(long)]
    pub no_color: bool,
    /// Show more detail for passing scenarios.
    #[arg(long, short)]
    pub verbose: bool,
}

/// Whether checks of level `beyond` are judged (shared by `run` and `check`).
#[derive(Debug, Clone, Copy, clap::Args)]
pub struct BeyondArgs {
    /// Judge checks of level `beyond` too: guarantees stronger than the documents, which
    /// the reference implementation makes. Default: only for a target whose file declares
    /// `beyond: true` (the reference targets do); otherwise reported as not judged.
    #[arg(long, conflicts_with = "no_beyond")]
    pub beyond: bool,
    /// Leave checks of level `beyond` out even for a target that declares them.
    #[arg(long)]
    pub no_beyond: bool,
}

impl BeyondArgs {
    /// The run's choice.
    pub fn choice(self) -> runner::BeyondChoice {
        match (self.beyond, self.no_beyond) {
            (true, _) => runner::BeyondChoice::Always,
            (_, true) => runner::BeyondChoice::Never,
            _ => runner::BeyondChoice::AsTargetDeclares,
        }
    }
}

/// Options of `list`.
#[derive(Debug, clap::Args)]
pub struct ListArgs {
    #[command(flatten)]
    pub selection: Selection,
    /// Print the coverage table instead: each required server scenario of the official
    /// conformance suite (per revision) with the selected scenarios mirroring it, or why
    /// there is none.
    #[arg(long)]
    pub mirrors: bool,
}

/// Parses the command line and runs the chosen subcommand.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    init_logging(&cli.command);
    match cli.command {
        Command::Check(args) => check::check(args),
        Command::Run(args) => run(args),
        Command::List(args) => list(args),
        Command::Validate { paths } => validate(paths),
        Command::Schema { kind } => schema(kind),
        Command::Bench(args) => bench(args),
        Command::Relay(args) => crate::relay::run(args),
        Command::FixtureServer(args) => crate::fixture::run(args),
        Command::Probe(args) => crate::probe::run(args),
        Command::InitTarget(args) => init_target(args),
        Command::Merge(args) => merge::merge(args),
        Command::Sweep(args) => sweep::sweep(args),
        Command::Targets(args) => targets::targets(args),
    }
}

fn init_logging(command: &Command) {
    // The fixture server and the probe log on their own terms; the suite logs on stderr
    // only when asked.
    if matches!(command, Command::Probe(_) | Command::Relay(_)) {
        return;
    }
    let filter = tracing_subscriber::EnvFilter::try_from_env("MCP_CONFORMANCE_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .try_init();
}

/// Exit status for usage, scenario and target errors.
const EXIT_USAGE: u8 = 2;

fn print_errors(errors: &[FileError]) {
    for e in errors {
        eprintln!("{e}");
    }
}

/// A multi-threaded runtime for a run or a benchmark; the error is printed.
pub(crate) fn runtime() -> Option<tokio::runtime::Runtime> {
    match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(r) => Some(r),
        Err(e) => {
            eprintln!("mcp-conformance: cannot start the async runtime: {e}");
            None
        }
    }
}

fn read_baseline(path: &Path) -> Result<BTreeSet<String>, FileError> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        model::plain_error(
            &path.display().to_string(),
            &format!("cannot read baseline: {e}"),
        )
    })?;
    Ok(text
        .lines()
        .map(|l| l.split('#').next().unwrap_or("").trim())
        .filter(|l| !l.is_empty())
        .map(String::from)
        .collect())
}

fn run(args: RunArgs) -> ExitCode {
    let targets = match load_targets(&args.selection.target) {
        Ok(t) => t,
        Err(e) => {
            print_errors(&e);
            return ExitCode::from(EXIT_USAGE);
        }
    };
    let scenarios = match load_scenarios(&args.selection) {
        Ok(s) => s,
        Err(e) => {
            print_errors(&e);
            return ExitCode::from(EXIT_USAGE);
        }
    };
    if scenarios.is_empty() {
        eprintln!(
            "mcp-conformance: {}",
            selection::nothing_selected(&args.selection)
        );
        return ExitCode::from(EXIT_USAGE);
    }
    let levels = crate::model::LevelPolicy {
        strict: args.strict,
        beyond: false,
    };
    let assigned = match selection::assign(
        targets,
        &scenarios,
        args.protocol.map(|c| c.generations()).as_deref(),
        args.beyond.choice(),
        levels,
    ) {
        Ok(a) => a,
        Err(message) => {
            eprintln!("mcp-conformance: {message}");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    let baseline = match args.baseline.as_deref().map(read_baseline).transpose() {
        Ok(b) => b,
        Err(e) => {
            print_errors(&[e]);
            return ExitCode::from(EXIT_USAGE);
        }
    };
    // Most of a run is waiting on servers (windows that must stay silent, expiry, exits),
    // as in `check`: two scenarios per CPU keep the CPUs busy meanwhile.
    let jobs = args
        .jobs
        .unwrap_or_else(|| 2 * std::thread::available_parallelism().map_or(2, |n| n.get()));
    let options = RunOptions {
        jobs,
        fail_fast: args.fail_fast,
        baseline,
        levels,
        beyond: args.beyond.choice(),
        not_judged: assigned.not_judged,
    };
    let work = assigned.work;
    let Some(runtime) = runtime() else {
        return ExitCode::from(EXIT_USAGE);
    };
    let shown = Shown {
        no_color: args.no_color,
        verbose: args.verbose,
        files: args.files.clone(),
    };
    let code = run_reported(&runtime, work, &options, shown);
    // Servers still winding down must not keep the process alive.
    runtime.shutdown_timeout(std::time::Duration::from_secs(1));
    ExitCode::from(code)
}

/// How a run is shown: the human report on stdout and the report files asked for.
pub(crate) struct Shown {
    /// `--no-color`.
    pub no_color: bool,
    /// `--verbose`.
    pub verbose: bool,
    /// `--json`, `--junit`, `--markdown`.
    pub files: ReportFileArgs,
}

/// Runs `work` on `runtime`, streaming the human report to stdout and writing the report
/// files; the exit status: 0 a successful run, 1 a failed one, 2 a report file that could
/// not be written.
pub(crate) fn run_reported(
    runtime: &tokio::runtime::Runtime,
    work: Vec<(std::sync::Arc<runner::TargetCtx>, Vec<model::Scenario>)>,
    options: &RunOptions,
    shown: Shown,
) -> u8 {
    let stdout = std::io::stdout();
    let color = !shown.no_color && stdout.is_terminal() && std::env::var_os("NO_COLOR").is_none();
    let human = HumanReporter::new(stdout.lock(), color, shown.verbose);
    let mut console = Console::new(human, std::io::stderr().is_terminal());
    let mut files = ReportFiles::from(shown.files);
    let report = runtime.block_on(runner::run_all(work, options, |event| {
        // The console's errors (a closed stdout) must not stop the run; the files'
        // are reported below.
        let _ = console.on_event(event);
        let _ = files.on_event(event);
    }));
    drop(console);
    for failure in files.failures() {
        eprintln!("mcp-conformance: {failure}");
    }
    if !files.failures().is_empty() {
        EXIT_USAGE
    } else if report.is_success() {
        0
    } else {
        1
    }
}

fn bench(args: crate::bench::BenchArgs) -> ExitCode {
    match load_targets(&args.target) {
        Ok(targets) => match runtime() {
            Some(runtime) => ExitCode::from(crate::bench::run(args, targets, runtime)),
            None => ExitCode::from(EXIT_USAGE),
        },
        Err(e) => {
            print_errors(&e);
            ExitCode::from(EXIT_USAGE)
        }
    }
}

/// The commented target file `init-target` writes.
const TARGET_TEMPLATE: &str = include_str!("../target_template.yaml");

fn init_target(args: InitTargetArgs) -> ExitCode {
    let text = match &args.from {
        None => TARGET_TEMPLATE,
        Some(name) => match crate::builtin::target(name) {
            Some((_, text)) => text,
            None => {
                eprintln!(
                    "mcp-conformance: no built-in target {name} (built-in: {})",
                    crate::builtin::target_names().join(", ")
                );
                return ExitCode::from(EXIT_USAGE);
            }
        },
    };
    let Some(path) = &args.output else {
        say_part!("{text}");
        return ExitCode::SUCCESS;
    };
    if path.exists() && !args.force {
        eprintln!(
            "mcp-conformance: {} exists (use --force to replace it)",
            path.display()
        );
        return ExitCode::from(EXIT_USAGE);
    }
    match std::fs::write(path, text) {
        Ok(()) => {
            eprintln!("wrote {}", path.display());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("mcp-conformance: cannot write {}: {e}", path.display());
            ExitCode::from(EXIT_USAGE)
        }
    }
}

fn list(args: ListArgs) -> ExitCode {
    if args.mirrors {
        return list_mirrors(&args.selection);
    }
    if args.selection.paths.is_empty() {
        let suites: Vec<String> = crate::builtin::suite_folders()
            .into_iter()
            .map(|(suite, n)| format!("{suite} ({n})"))
            .collect();
        say!("built-in suites: {}", suites.join(", "));
        say!(
            "built-in targets: {}",
            crate::builtin::target_names().join(", ")
        );
    }
    let scenarios = match load_scenarios(&args.selection) {
        Ok(s) => s,
        Err(e) => {
            print_errors(&e);
            return ExitCode::from(EXIT_USAGE);
        }
    };
    let targets = if args.selection.target.is_empty() {
        Vec::new()
    } else {
        match load_targets(&args.selection.target) {
            Ok(t) => t,
            Err(e) => {
                print_errors(&e);
                return ExitCode::from(EXIT_USAGE);
            }
        }
    };
    let print = |s: &model::Scenario, target: Option<&runner::TargetCtx>| {
        let skip = target
            .and_then(|t| runner::skip_reason(t, s))
            .map(|r| format!("  (skipped: {r})"))
            .unwrap_or_default();
        let mirrors = if s.mirrors.is_empty() {
            String::new()
        } else {
            format!("  mirrors: {}", s.mirrors.join(","))
        };
        say!(
            "{}  [{}]  {}  {}{}{}",
            s.name,
            s.suite,
            s.tags.join(","),
            s.file,
            mirrors,
            skip
        );
    };
    if scenarios.is_empty() {
        eprintln!(
            "mcp-conformance: {}",
            selection::nothing_selected(&args.selection)
        );
        return ExitCode::from(EXIT_USAGE);
    }
    if targets.len() > 1 {
        for tctx in &targets {
            let mine: Vec<&model::Scenario> = scenarios
                .iter()
                .filter(|s| tctx.target.claims_suite(&s.suite))
                .collect();
            say!("target {} ({} scenarios):", tctx.target.name, mine.len());
            for s in mine {
                print(s, Some(tctx));
            }
        }
        let unclaimed: Vec<&model::Scenario> = scenarios
            .iter()
            .filter(|s| !targets.iter().any(|t| t.target.claims_suite(&s.suite)))
            .collect();
        if !unclaimed.is_empty() {
            say!("claimed by no target ({} scenarios):", unclaimed.len());
            for s in unclaimed {
                print(s, targets.first());
            }
        }
    } else {
        for s in &scenarios {
            print(s, targets.first());
        }
    }
    say!("{} scenarios", scenarios.len());
    ExitCode::SUCCESS
}

/// `list --mirrors`: the official required server scenarios, revision by revision, each with
/// ours, or why there is none, or `MISSING`.
fn list_mirrors(selection: &Selection) -> ExitCode {
    let scenarios = match load_scenarios(selection) {
        Ok(s) => s,
        Err(e) => {
            print_errors(&e);
            return ExitCode::from(EXIT_USAGE);
        }
    };
    let rows = crate::official::coverage(&scenarios);
    let width = rows.iter().map(|r| r.id.len()).max().unwrap_or(0);
    let mut version = "";
    let mut missing = 0usize;
    for row in &rows {
        if row.version != version {
            version = row.version;
            say!("{version} (requirements/{version}.yaml, server):");
        }
        let what = match (row.ours.is_empty(), row.because) {
            (false, _) => row.ours.join(", "),
            (true, Some(why)) => format!("-- {why}"),
            (true, None) => {
                missing += 1;
                "MISSING: no scenario mirrors it yet".to_string()
            }
        };
        say!("  {:<width$}  {what}", row.id);
    }
    say!(
        "{} required ids; {} mirrored, {} by design or planned elsewhere, {missing} missing",
        rows.len(),
        rows.iter().filter(|r| !r.ours.is_empty()).count(),
        rows.iter()
            .filter(|r| r.ours.is_empty() && r.because.is_some())
            .count()
    );
    let optional = crate::official::optional_coverage(&scenarios);
    say!("io.modelcontextprotocol/tasks (optional extension, server):");
    for row in &optional {
        let what = match (row.ours.is_empty(), row.because) {
            (false, _) => row.ours.join(", "),
            (true, Some(why)) => format!("-- {why}"),
            (true, None) => "not mirrored".to_string(),
        };
        say!("  {:<width$}  {what}", row.id);
    }
    say!(
        "{} optional ids; {} mirrored",
        optional.len(),
        optional.iter().filter(|r| !r.ours.is_empty()).count()
    );
    ExitCode::SUCCESS
}

fn validate(paths: Vec<PathBuf>) -> ExitCode {
    let paths = if paths.is_empty() {
        vec![
            PathBuf::from(DEFAULT_SCENARIOS),
            PathBuf::from(DEFAULT_TARGETS),
        ]
    } else {
        paths
    };
    let mut errors = Vec::new();
    let mut checked = 0usize;
    let mut names = BTreeSet::new();
    for file in collect_files(&paths, &mut errors) {
        checked += 1;
        let display = file.display().to_string();
        if is_target_file(&file) {
            if let Err(mut e) = model::load_target(&file, &display) {
                errors.append(&mut e);
            }
        } else {
            match model::load_scenario(&file, &display) {
                Ok(s) => {
                    if !names.insert(s.name.clone()) {
                        errors.push(model::plain_error(
                            &display,
                            &format!("duplicate scenario name {}", s.name),
                        ));
                    }
                }
                Err(mut e) => errors.append(&mut e),
            }
        }
    }
    if errors.is_empty() {
        say!("{checked} files valid");
        ExitCode::SUCCESS
    } else {
        print_errors(&errors);
        eprintln!("{} error(s) in {checked} files", errors.len());
        ExitCode::from(EXIT_USAGE)
    }
}

/// Keys only a target file has at its top level.
const TARGET_ONLY_KEYS: &[&str] = &[
    "suites",
    "server",
    "protocol_versions",
    "admin",
    "timeouts",
    "beyond",
];

/// A target file has no `steps:` and any key only targets have (`server:`, `suites:`, ...),
/// so a target with a misspelt or missing key is still checked as a target, with the
/// target's field names in its errors. Read as YAML, so a JSON target is recognised too;
/// a file that does not parse is left to the scenario parser, which reports where.
fn is_target_file(path: &Path) -> bool {
    let Ok(text) = std::fs::read_to_string(path) else {
        return false;
    };
    let keys: Vec<String> = match serde_saphyr::from_str::<serde_json::Value>(&text) {
        Ok(serde_json::Value::Object(map)) => map.keys().cloned().collect(),
        _ => return false,
    };
    !keys.iter().any(|k| k == "steps")
        && keys.iter().any(|k| TARGET_ONLY_KEYS.contains(&k.as_str()))
}

fn schema(kind: SchemaKind) -> ExitCode {
    let schema = match kind {
        SchemaKind::Scenario => schemars::schema_for!(model::RawScenario),
        SchemaKind::Target => schemars::schema_for!(model::Target),
    };
    match serde_json::to_string_pretty(&schema) {
        Ok(text) => {
            say!("{text}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("mcp-conformance: cannot render the schema: {e}");
            ExitCode::from(EXIT_USAGE)
        }
    }
}
