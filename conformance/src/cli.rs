//! Command line (placeholder while the engine is assembled).
use std::process::ExitCode;

/// Parses the command line and runs the chosen subcommand.
pub fn main() -> ExitCode {
    ExitCode::SUCCESS
}
