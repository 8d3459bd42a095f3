"""Every test here runs benchmark code for real (the command line, child processes):
marked ``slow``, so ``pytest -m "not slow"`` leaves them out while iterating. The
README's test command runs them."""

from __future__ import annotations

from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if HERE in Path(str(item.path)).parents:
            item.add_marker(pytest.mark.slow)
