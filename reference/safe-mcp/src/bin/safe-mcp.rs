//! `safe-mcp`: see [`safe_mcp::cli`].

fn main() -> std::process::ExitCode {
    // A supervisor of one execution (our own executable, spawned by us) never returns.
    mcp_safety_core::exec::supervisor::dispatch_if_requested();
    safe_mcp::cli::main()
}
