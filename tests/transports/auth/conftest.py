"""The servers the resource server tests run: the h11 server on asyncio and on
trio, and the ASGI app under uvicorn (asyncio). A module that needs no server
overrides `anyio_backend` with the plain asyncio/trio pair."""

from __future__ import annotations

import pytest

FLAVOURS = [("asyncio", "h11"), ("trio", "h11"), ("asyncio", "asgi")]


@pytest.fixture(params=FLAVOURS, ids=["h11-asyncio", "h11-trio", "asgi-uvicorn"])
def flavour(request: pytest.FixtureRequest) -> tuple[str, str]:
    value: tuple[str, str] = request.param
    return value


@pytest.fixture
def anyio_backend(flavour: tuple[str, str]) -> str:
    return flavour[0]
