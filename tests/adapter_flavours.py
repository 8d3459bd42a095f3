"""The servers a test module can run against: the h11 server on asyncio and on
trio, and the ASGI app under uvicorn (asyncio). A module takes them with

    from adapter_flavours import by_flavour, flavour_fixture  # noqa: F401

and its tests then get ``flavour`` (backend, adapter), with ``anyio_backend``
following it (pytest finds fixtures by their ``name``, not the name imported)."""

from __future__ import annotations

from typing import Final

import pytest

FLAVOURS: Final = [("asyncio", "h11"), ("trio", "h11"), ("asyncio", "asgi")]


@pytest.fixture(name="flavour", params=FLAVOURS, ids=["h11-asyncio", "h11-trio", "asgi-uvicorn"])
def flavour_fixture(request: pytest.FixtureRequest) -> tuple[str, str]:
    value: tuple[str, str] = request.param
    return value


@pytest.fixture(name="anyio_backend")
def by_flavour(flavour: tuple[str, str]) -> str:
    return flavour[0]
