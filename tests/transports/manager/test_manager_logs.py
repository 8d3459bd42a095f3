"""The manager's log: one line per change of a link's state, on the logger
``mcp_core.manager``, with the server's name and why (the gateway's
``--log-level``: tests/transports/cli/test_cli_logs.py)."""

from __future__ import annotations

import anyio
import pytest
from manager_helpers import FAST, LIMIT, MANAGER_SERVER, http_server

from mcp_core.manager import ServerConfig
from transports.manager import CallInterrupted, Manager, ServerUnavailable

pytestmark = pytest.mark.anyio


async def test_a_link_lost_and_back_is_logged(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level("INFO", "mcp_core.manager")
    with anyio.fail_after(LIMIT):
        async with http_server(MANAGER_SERVER) as upstream:
            config = ServerConfig(name="web", url=upstream.url, max_reconnect_attempts=100)
            async with Manager([config], backoff=FAST) as manager:
                await manager.wait_for("web", "connected", LIMIT)
                await upstream.kill()
                with pytest.raises((CallInterrupted, ServerUnavailable)):
                    await manager.call_tool("web.pid")
                await upstream.start()
                await manager.wait_for("web", "connected", LIMIT)
    lines = [(r.levelname, r.getMessage()) for r in caplog.records if r.name == "mcp_core.manager"]
    assert lines[0] == ("INFO", f"server web: connecting to {upstream.url}")
    assert lines[1][1].startswith("server web: connected (streamable-http, ")
    lost = next(i for i, (level, _) in enumerate(lines) if level == "WARNING")
    assert lines[lost][1].startswith("server web: disconnected: ")
    assert lines[lost + 1] == ("INFO", f"server web: reconnecting to {upstream.url} (retry 1)")
    # Connected again; then the manager closes.
    assert lines[-2][1].startswith("server web: connected")
    assert lines[-1] == ("INFO", "server web: disconnected")
    assert {r.server for r in caplog.records if r.name == "mcp_core.manager"} == {"web"}  # type: ignore[attr-defined]
