"""The real redis-server these tests share (one per test session), and the
backend parameter: every test of the backend module runs against memory and
Redis."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from redis_helpers import RedisProcess


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisProcess]:
    folder: Path = tmp_path_factory.mktemp("redis")
    server = RedisProcess(folder)
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(params=["memory", "redis"])
def backend_kind(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def redis_or_none(request: pytest.FixtureRequest, backend_kind: str) -> RedisProcess | None:
    """The Redis server when the backend is Redis (started only then)."""
    if backend_kind != "redis":
        return None
    server: RedisProcess = request.getfixturevalue("redis_server")
    return server
