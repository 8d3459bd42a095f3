"""How long the fuzz targets run (tests/faults/test_fuzz_*.py).

In CI each target tries a few dozen examples (seconds). By hand, run them longer:

    MCP_CORE_FUZZ_EXAMPLES=5000 python -m pytest tests/faults -k fuzz -q
"""

from __future__ import annotations

import os

from hypothesis import settings


def fuzz_settings(default: int) -> settings:
    """Hypothesis settings for a fuzz target: ``default`` examples, or
    MCP_CORE_FUZZ_EXAMPLES when set."""
    return settings(max_examples=int(os.environ.get("MCP_CORE_FUZZ_EXAMPLES", default)))
