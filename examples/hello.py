"""Hello: the smallest useful MCP server, one tool.

It is the HelloTool of the MCP C++ SDK design: given a ``value``, it answers
"Hello-bonjour <value>!". The tool's input schema comes from the function's type
hints and docstring.

Run it:

    python examples/hello.py            # serve on stdio, as an MCP client launches it
    mcp-core serve examples/hello.py    # the same, through the command line
    mcp-core call "python examples/hello.py" HelloTool --arg value=Yann
    mcp-core config examples/hello.py   # the entry for a desktop client's mcpServers
"""

from __future__ import annotations

from mcp_core import Server
from transports import run_stdio

server = Server("hello", "1.0.0", instructions="Greets whoever you name, in two languages.")


@server.tool(name="HelloTool")
def hello(value: str) -> str:
    """Say hello, in English and in French.

    Args:
        value: Who or what to greet.
    """
    return f"Hello-bonjour {value}!"


if __name__ == "__main__":
    run_stdio(server)
