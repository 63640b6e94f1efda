//! `mcp-toolhub-admin`: the trusted operator CLI (see [`mcp_toolhub::admin`]).

fn main() -> std::process::ExitCode {
    mcp_toolhub::admin::main()
}
