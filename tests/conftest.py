"""Settings and fixtures every test module shares.

Hypothesis: the properties are about what comes out, never about how fast. On a
shared or loaded machine (CI runners, a second job on the same two cores), input
generation and single examples can take longer than Hypothesis's defaults allow,
which would fail a test for the machine's sake: no per-example deadline, and no
health check on slow generation. Every other health check stays on.

`anyio_backend`: every async test runs under asyncio and trio (trio's runs are
skipped where trio is not installed: it is an extra).

`native`: for a test that runs twice, with the ways around anyio of
`transports.backend` and with their plain-anyio fallbacks.

The helper modules beside this file (`helpers`, `runtime_helpers`, `paths`, ...) are
imported by plain name from tests at any depth: pytest puts this folder on sys.path
when it loads this conftest.

Bytecode: the suite starts several hundred Python processes (servers, the command
line, workers). Where PYTHONDONTWRITEBYTECODE is set, as on some CI machines, each
of them compiled the repository's modules again (`import transports`: 0.48 s of CPU
without bytecode, 0.22 s with), and each xdist worker rewrote every test module. So
the run compiles the repository once, before its workers start, and lets them and
their children write and read `__pycache__` (ignored by git): 14% less CPU on
tests/transports/cli (`/usr/bin/time python -m pytest -o addopts='' -n 2
tests/transports/cli`, 100 s -> 86 s of user time).
"""

from __future__ import annotations

import compileall
import importlib.util
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "mcp-core",
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("mcp-core")


_NO_TRIO = importlib.util.find_spec("trio") is None

_ROOT = Path(__file__).resolve().parent.parent
_PACKAGES = ("mcp_core", "transports", "benchmarks", "examples", "tests")


def pytest_configure(config: pytest.Config) -> None:
    if hasattr(config, "workerinput") or not os.environ.pop("PYTHONDONTWRITEBYTECODE", None):
        return  # an xdist worker (its controller did it), or bytecode is written anyway
    sys.dont_write_bytecode = False
    for package in _PACKAGES:
        compileall.compile_dir(_ROOT / package, quiet=1, workers=1)


@pytest.fixture(
    params=[
        "asyncio",
        pytest.param("trio", marks=pytest.mark.skipif(_NO_TRIO, reason="trio is not installed")),
    ]
)
def anyio_backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture(params=[True, False], ids=["native", "plain"])
def native(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[bool]:
    from transports import backend

    monkeypatch.setattr(backend, "native", request.param)
    yield bool(request.param)
