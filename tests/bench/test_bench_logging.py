"""The peers' logging stays out of the benchmark's output: constructing the SDK's
MCPServer set the root logger to INFO with a rich handler, and `mcp-core bench
--quick` printed about 2,000 'HTTP Request: POST' lines between its tables."""

from __future__ import annotations

import logging

import pytest

from benchmarks.echo_servers import fastmcp_server, quiet_peers, sdk_decorated, sdk_lowlevel


@pytest.mark.parametrize("make", [sdk_decorated, sdk_lowlevel, fastmcp_server])
def test_making_a_peer_server_leaves_the_root_logger_alone(make: object) -> None:
    root = logging.getLogger()
    before = (root.level, list(root.handlers))
    quiet_peers()
    make()  # type: ignore[operator]
    assert (root.level, list(root.handlers)) == before
    for name in ("httpx", "mcp", "fastmcp"):
        assert not logging.getLogger(name).isEnabledFor(logging.INFO)
