"""The servers the resource server tests run: the h11 server on asyncio and on
trio, and the ASGI app under uvicorn (asyncio). A module that needs no server
overrides `anyio_backend` with the plain asyncio/trio pair."""

from __future__ import annotations

from adapter_flavours import by_flavour, flavour_fixture  # noqa: F401
