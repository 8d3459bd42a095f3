"""The documentation site builds strictly (`mkdocs build --strict`: any warning, a
broken link, a page left out of the navigation, a docstring the API reference
cannot read, fails it). Skipped where the `docs` extra is not installed."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import paths
import pytest

pytest.importorskip("mkdocs")
pytest.importorskip("material")
pytest.importorskip("mkdocstrings_handlers.python")

BUILD_TIMEOUT = 300.0
"""Seconds the build may take (about 6 s of CPU; a loaded machine stretches it)."""


def test_the_site_builds_strictly(tmp_path: Path) -> None:
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(paths.ROOT), env.get("PYTHONPATH")]))
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path)],
        cwd=paths.ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=BUILD_TIMEOUT,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    assert (tmp_path / "index.html").is_file()
    assert "ServerSession" in (tmp_path / "reference" / "mcp_core" / "index.html").read_text()
