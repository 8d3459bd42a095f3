"""The real redis-server these tests share (one per test session), and the
backend parameter: every test of the backend module runs against memory and
Redis. The fault tests take `redis` (one per test, persistent unless the
module sets ``REDIS_PERSIST = False``) and `deployment` (on it, of the h11
server and of the ASGI app under uvicorn)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from balancer_helpers import Deployment, deployed
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


@pytest.fixture
def redis(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[RedisProcess]:
    # Persistent (append-only, fsync always): a restart keeps what was accepted.
    server = RedisProcess(tmp_path, persist=getattr(request.module, "REDIS_PERSIST", True))
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(params=["h11", "uvicorn"])
def deployment(request: pytest.FixtureRequest, redis: RedisProcess) -> Iterator[Deployment]:
    with deployed(request.param, redis.url) as running:
        yield running
