//! `mcp-toolhub-admin`: placeholder until its issue lands. It answers `--version` and refuses to serve,
//! so nothing mistakes it for a working server.

use std::process::ExitCode;

fn main() -> ExitCode {
    match std::env::args().nth(1).as_deref() {
        Some("--version") | Some("-V") => {
            println!("mcp-toolhub-admin {}", mcp_safety_core::VERSION);
            ExitCode::SUCCESS
        }
        _ => {
            eprintln!("mcp-toolhub-admin: not implemented yet");
            ExitCode::from(2)
        }
    }
}
