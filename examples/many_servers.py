"""Many servers: connect to every server of an ``mcpServers`` file and print their tools.

The file is the one desktop clients read (``mcp-core config`` prints its entries);
``many_servers.json`` beside this file starts three of the examples on stdio. A
relative command or path in it counts from the file's folder. The tools of all the
servers come under one namespace, ``server.tool``; one tool of each is then called
by that name. A server that cannot be reached is reported, and the others go on.

Run it:

    python examples/many_servers.py                      # many_servers.json
    python examples/many_servers.py my_servers.json      # any mcpServers file
    mcp-core list --config examples/many_servers.json    # the same from the shell
"""

from __future__ import annotations

import sys
from pathlib import Path

import anyio
import msgspec

from transports.manager import Manager, parse_servers

HERE = Path(__file__).resolve().parent

CALLS = {
    "hello.HelloTool": {"value": "many servers"},
    "weather.getCurrentWeather": {"city": "Colombo"},
    "files.readFile": {"path": "many_servers.json"},
}
"""A call to make on each example server, if it is there."""


async def main(path: Path) -> int:
    servers = [
        # Relative paths count from the file's folder, not from where we run.
        msgspec.structs.replace(server, cwd=server.cwd or str(path.parent))
        for server in parse_servers(path.read_bytes())
    ]
    async with Manager(servers) as manager:
        await manager.wait_ready(timeout=30)
        for status in manager.status():
            where = f"{status.transport}, {status.revision}" if status.transport else status.state
            problem = f": {status.last_error}" if status.last_error else ""
            print(f"{status.name}: {status.state} ({where}){problem}")
        print()
        tools = await manager.tools()
        for tool in tools:
            print(f"{tool.name:32} {tool.description}")
        for collision in manager.collisions():
            print(f"note: {collision}")
        print()
        listed = {tool.name for tool in tools}
        for name, arguments in CALLS.items():
            if name in listed:
                result = await manager.call_tool(name, arguments)
                text = " ".join(getattr(block, "text", "?") for block in result.content)
                print(f"{name} -> {text.splitlines()[0] if text else ''}")
    return 0


if __name__ == "__main__":
    config = Path(sys.argv[1]) if len(sys.argv) > 1 else HERE / "many_servers.json"
    sys.exit(anyio.run(main, config))
