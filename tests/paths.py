"""Where things are, for tests at any depth below tests/."""

from __future__ import annotations

from pathlib import Path
from typing import Final

TESTS: Final = Path(__file__).resolve().parent
"""This folder."""

ROOT: Final = TESTS.parent
"""The repository."""

SPEC: Final = TESTS / "spec"
"""The vendored MCP specification files (see spec/README.md)."""

SERVERS: Final = TESTS / "servers"
"""Server programs the tests start in other processes."""

EXAMPLES: Final = ROOT / "examples"
"""The example servers and clients."""
