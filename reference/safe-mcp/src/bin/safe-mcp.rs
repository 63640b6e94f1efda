//! `safe-mcp`: see [`safe_mcp::cli`].

fn main() -> std::process::ExitCode {
    safe_mcp::cli::main()
}
