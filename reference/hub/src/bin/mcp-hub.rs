//! `mcp-hub CONFIG.toml`: see the crate documentation.

fn main() -> std::process::ExitCode {
    mcp_hub::cli::main()
}
