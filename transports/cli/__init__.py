"""The ``mcp-core`` command line: `commands` (the parser and `serve`, `config`, `bench`),
`client` (`call`, `list`) and `targets` (finding the Server a command line names)."""

from .commands import main

__all__ = ["main"]
