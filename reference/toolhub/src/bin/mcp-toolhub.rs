//! `mcp-toolhub`: the stdio MCP server (see [`mcp_toolhub::serve`]).

fn main() -> std::process::ExitCode {
    mcp_toolhub::serve::main()
}
