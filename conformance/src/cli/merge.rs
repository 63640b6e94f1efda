//! `mcp-conformance merge`: the JSON reports of a run's shards as the report of the whole run.

use super::{EXIT_USAGE, ReportFileArgs};
use crate::report::{self, Reporter, console::Console, files::ReportFiles, human::HumanReporter};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

/// Options of `merge`.
#[derive(Debug, clap::Args)]
pub struct MergeArgs {
    /// The shards' JSON reports.
    #[arg(required = true, value_name = "SHARD_JSON")]
    pub shards: Vec<PathBuf>,
    #[command(flatten)]
    pub files: ReportFileArgs,
    /// Disable colours in the human report.
    #[arg(long)]
    pub no_color: bool,
}

/// `merge`: the shards' reports as one run, reported as `run` would have.
pub(super) fn merge(args: MergeArgs) -> ExitCode {
    let mut shards = Vec::new();
    for path in &args.shards {
        let file = path.display().to_string();
        let read = std::fs::read_to_string(path)
            .map_err(|e| format!("{file}: cannot read: {e}"))
            .and_then(|text| report::merge::from_json(&text, &file).map_err(|e| e.to_string()));
        match read {
            Ok(shard) => shards.push((file, shard)),
            Err(e) => {
                eprintln!("mcp-conformance: {e}");
                return ExitCode::from(EXIT_USAGE);
            }
        }
    }
    let merged = match report::merge::merge(shards) {
        Ok(merged) => merged,
        Err(e) => {
            eprintln!("mcp-conformance: {e}");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    let stdout = std::io::stdout();
    let color = !args.no_color && stdout.is_terminal() && std::env::var_os("NO_COLOR").is_none();
    let mut console = Console::new(HumanReporter::new(stdout.lock(), color, false), false);
    let mut files = ReportFiles::from(args.files);
    report::replay(&merged, |event| {
        let _ = console.on_event(event);
        let _ = files.on_event(event);
    });
    for failure in files.failures() {
        eprintln!("mcp-conformance: {failure}");
    }
    if !files.failures().is_empty() {
        ExitCode::from(EXIT_USAGE)
    } else if merged.is_success() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}
