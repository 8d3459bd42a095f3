"""On HTTP, the server span of a request says where it came from: the
conventions' ``client.address`` and ``client.port`` (Recommended on the server
span, in place of server.address and server.port). Behind a trusted proxy, the
address is the one it forwarded, as the rest of the server takes it (the quota
per address), and the port is not said: the proxy's is not the client's. The h11
server over TCP and the ASGI app driven by hand, asyncio and trio, both eras."""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from anyio.abc import SocketAttribute
from asgi_by_hand import asgi_request
from http_helpers import META, RawClient, call, initialize, modern_headers, reply_of, running
from otel_helpers import recorded
from runtime_helpers import BOTH_ERAS

from mcp_core import Server
from mcp_core.http.server import HttpServerConfig
from transports.http.asgi import asgi_app

pytestmark = pytest.mark.anyio

PROXY = HttpServerConfig(trusted_proxies=("127.0.0.1",))


def _server() -> Server:
    server = Server("where", "1.0")

    @server.tool
    async def echo(text: str) -> str:
        return text

    return server


def _served(record: Any) -> dict[str, Any]:
    (span,) = [s for s in record.named("tools/call echo") if s.kind.name == "SERVER"]
    return dict(span.attributes or {})


async def _call_raw(raw: RawClient, era: str, **headers: str) -> None:
    if era == "modern":
        body = call("echo", {"text": "a"}, _meta=META)
        await raw.send("POST", body, **modern_headers("tools/call", "echo"), **headers)
    else:
        await raw.send("POST", initialize(), **headers)
        session_id = (await raw.answer()).headers["mcp-session-id"]
        done = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        await raw.send("POST", done, mcp_session_id=session_id, **headers)
        await raw.answer()
        await raw.send("POST", call("echo", {"text": "a"}), mcp_session_id=session_id, **headers)
    assert (await reply_of(raw))["result"]["content"][0]["text"] == "a"


@BOTH_ERAS
async def test_the_h11_servers_span_has_the_clients_address_and_port(era: str) -> None:
    with recorded() as record, anyio.fail_after(30):
        async with running(_server()) as port, RawClient(port) as raw:
            await _call_raw(raw, era)
            ours = raw.sock.extra(SocketAttribute.local_address)
    attributes = _served(record)
    assert (attributes["client.address"], attributes["client.port"]) == ("127.0.0.1", ours[1])
    assert not {"server.address", "server.port"} & set(attributes)


@BOTH_ERAS
async def test_behind_a_trusted_proxy_the_forwarded_address_and_no_port(era: str) -> None:
    with recorded() as record, anyio.fail_after(30):
        async with running(_server(), config=PROXY) as port, RawClient(port) as raw:
            await _call_raw(raw, era, x_forwarded_for="198.51.100.9, 127.0.0.1")
    attributes = _served(record)
    assert attributes["client.address"] == "198.51.100.9"
    assert "client.port" not in attributes


@BOTH_ERAS
async def test_the_asgi_apps_span_has_the_scopes_client(era: str) -> None:
    for config, headers, expected in (
        (None, {}, ("203.0.113.7", 50123)),
        (HttpServerConfig(trusted_proxies=("203.0.113.7",)), {"forwarded": "for=192.0.2.60"}, None),
    ):
        app = asgi_app(_server(), config=config)
        where = {"client": ("203.0.113.7", 50123)}
        with recorded() as record:
            async with app.running():
                if era == "modern":
                    body = call("echo", {"text": "a"}, _meta=META)
                    answer = await asgi_request(
                        app,
                        "POST",
                        "/mcp",
                        body,
                        **where,
                        **modern_headers("tools/call", "echo"),
                        **headers,
                    )
                else:
                    opened = await asgi_request(
                        app, "POST", "/mcp", initialize(), **where, **headers
                    )
                    session_id = opened.headers["mcp-session-id"]
                    done = {"jsonrpc": "2.0", "method": "notifications/initialized"}
                    await asgi_request(
                        app, "POST", "/mcp", done, mcp_session_id=session_id, **where, **headers
                    )
                    answer = await asgi_request(
                        app,
                        "POST",
                        "/mcp",
                        call("echo", {"text": "a"}),
                        mcp_session_id=session_id,
                        **where,
                        **headers,
                    )
                assert answer.json()["result"]["content"][0]["text"] == "a"
        attributes = _served(record)
        if expected is None:  # the proxy's forwarded address, no port
            assert attributes["client.address"] == "192.0.2.60"
            assert "client.port" not in attributes
        else:
            assert (attributes["client.address"], attributes["client.port"]) == expected
        if era == "legacy":  # the notification's span too
            (initialized,) = record.named("notifications/initialized")
            assert initialized.kind.name == "SERVER"
            assert initialized.attributes["client.address"] == attributes["client.address"]  # type: ignore[index]


async def test_off_the_service_sets_no_peer() -> None:
    from transports.telemetry import CLIENT_PEER

    app = asgi_app(_server())
    async with app.running():
        body = call("echo", {"text": "a"}, _meta=META)
        await asgi_request(app, "POST", "/mcp", body, **modern_headers("tools/call", "echo"))
    assert CLIENT_PEER.get() is None  # in this task, where the app ran: never set
