"""The smallest useful server on the official MCP Python SDK (mcp 2.3.0): one tool, stdio."""

from mcp.server import MCPServer

server = MCPServer("calibration-minimal")


@server.tool()
def echo(text: str) -> str:
    """Return the text unchanged."""
    return text


if __name__ == "__main__":
    server.run()
