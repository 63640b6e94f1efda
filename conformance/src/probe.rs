//! The probe program (`mcp-conformance probe`).
use std::process::ExitCode;

/// Options of `mcp-conformance probe`.
#[derive(Debug, Clone, clap::Args)]
pub struct ProbeArgs {}

/// Does what the options say, then exits.
pub fn run(_args: ProbeArgs) -> ExitCode {
    ExitCode::SUCCESS
}
