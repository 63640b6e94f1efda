//! Entry point: parse the command line and hand over to [`mcp_conformance::cli`].

use std::process::ExitCode;

fn main() -> ExitCode {
    mcp_conformance::cli::main()
}
