"""A small shop, the server a newcomer writes first: ``mcp-core call
tests/servers/shop.py add a=1 b=2``. The CLI error-message tests use it."""

from __future__ import annotations

from typing import Any

from mcp_core import McpError, Server

server = Server("shop", "1.0")


@server.tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


@server.tool
def greet(name: str, punctuation: str = "!") -> str:
    """Greet someone by name."""
    return f"Hello, {name}{punctuation}"


@server.tool
def order(item: str, **extra: Any) -> str:
    """Order an item; any other argument is a note for the shop."""
    notes = ", ".join(f"{key}={value}" for key, value in sorted(extra.items()))
    return f"ordered {item}" + (f" ({notes})" if notes else "")


@server.tool
def checkout(cart: list[str]) -> str:
    """Fails, as a broken tool does."""
    raise RuntimeError(f"the till is closed ({len(cart)} items left)")


@server.tool(task=True)
async def restock(count: int) -> str:
    """Restock the shelves, in the background (as a task when the client asks); the
    task fails when asked for more than the store room holds."""
    if count > 10:
        raise McpError(-32000, f"the store room holds 10, not {count}")
    return f"restocked {count}"
