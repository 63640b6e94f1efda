//! `mcp-toolhub`: the stdio MCP server (see [`mcp_toolhub::serve`]).

fn main() -> std::process::ExitCode {
    // A supervisor of one execution (our own executable, spawned by us) never returns.
    mcp_safety_core::exec::supervisor::dispatch_if_requested();
    mcp_toolhub::serve::main()
}
