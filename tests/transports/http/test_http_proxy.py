"""Our HTTP client through an outbound proxy named by the environment (HTTP_PROXY,
HTTPS_PROXY, NO_PROXY), against a small forward proxy written here on 127.0.0.1:
an https server through a CONNECT tunnel with TLS inside, a plain http server with
absolute-form targets, Proxy-Authorization from the proxy URL's credentials, a
refusal, a host NO_PROXY sends directly, and the OAuth flow's exchanges and the
manager's connections going the same way. asyncio and trio; every wait bounded."""

from __future__ import annotations

import base64
import ssl
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from pathlib import Path
from urllib.parse import urlsplit

import anyio
import pytest
from anyio.abc import ByteReceiveStream, ByteSendStream, ByteStream, TaskGroup
from http_helpers import Gates, make_server
from net_helpers import (
    LIMIT,
    Proxy,
    RawConnection,
    RawRequest,
    certificate_authority,
    port_of,
    response,
    scripted,
    serving,
)
from oauth_e2e_helpers import User, protected
from runtime_helpers import only_text

from mcp_core.manager import ServerConfig
from transports import HttpError, connect_http
from transports.http.oauth import OAuth
from transports.http.oauth_user import headless_agent
from transports.manager import Manager

pytestmark = pytest.mark.anyio

_QUIET = (anyio.BrokenResourceError, anyio.ClosedResourceError, anyio.EndOfStream, OSError)
_VARIABLES = ("http_proxy", "https_proxy", "no_proxy", "all_proxy", "request_method")


@pytest.fixture(autouse=True)
def _no_proxy_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in _VARIABLES:
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.upper(), raising=False)


def basic(credentials: str) -> str:
    return "Basic " + base64.b64encode(credentials.encode()).decode()


class ForwardProxy:
    """An HTTP forward proxy: CONNECT opens a tunnel, an absolute-form request is
    forwarded in origin form (without Proxy-Authorization); with ``credentials``,
    a request without them gets 407.

    Attributes:
        requests: each request line it got, as "METHOD target".
        authorizations: the Proxy-Authorization of each (None: absent).
        carried: every byte it carried from a client to a server.
    """

    def __init__(self, credentials: str | None = None) -> None:
        self.expected = None if credentials is None else basic(credentials)
        self.port = 0
        self.requests: list[str] = []
        self.authorizations: list[str | None] = []
        self.carried = b""

    @asynccontextmanager
    async def running(self) -> AsyncIterator[ForwardProxy]:
        async with scripted(self._handle) as self.port:
            yield self

    def url(self, credentials: str | None = None) -> str:
        user = "" if credentials is None else f"{credentials}@"
        return f"http://{user}127.0.0.1:{self.port}"

    async def _handle(self, client: RawConnection) -> None:
        request = await client.request()
        if request is None:
            return
        self._note(request)
        if self.expected is not None and request.headers.get("proxy-authorization") != (
            self.expected
        ):
            await client.write(response(407, {"proxy-authenticate": 'Basic realm="test"'}))
            return
        if request.method == "CONNECT":
            host, port = request.target.rsplit(":", 1)
            async with await anyio.connect_tcp(host, int(port)) as upstream:
                await client.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
                async with anyio.create_task_group() as tg:
                    tg.start_soon(self._pipe, client.stream, upstream, True, tg)
                    tg.start_soon(self._pipe, upstream, client.stream, False, tg)
            return
        parts = urlsplit(request.target)
        assert parts.hostname is not None and parts.port is not None
        upstream = await anyio.connect_tcp(parts.hostname, parts.port)
        async with upstream, anyio.create_task_group() as tg:
            tg.start_soon(self._pipe, upstream, client.stream, False, tg)
            while request is not None:
                await self._forward(request, upstream)
                request = await client.request()
                if request is not None:
                    self._note(request)
            tg.cancel_scope.cancel()

    def _note(self, request: RawRequest) -> None:
        self.requests.append(f"{request.method} {request.target}")
        self.authorizations.append(request.headers.get("proxy-authorization"))

    async def _forward(self, request: RawRequest, upstream: ByteStream) -> None:
        # One absolute-form request, sent on in origin form, its proxy credentials
        # consumed here.
        parts = urlsplit(request.target)
        path = parts.path + (f"?{parts.query}" if parts.query else "")
        fields = "".join(
            f"{name}: {value}\r\n"
            for name, value in request.headers.items()
            if name != "proxy-authorization"
        )
        head = f"{request.method} {path} HTTP/1.1\r\n{fields}\r\n".encode("latin-1")
        self.carried += head + request.body
        await upstream.send(head + request.body)

    async def _pipe(
        self, source: ByteReceiveStream, sink: ByteSendStream, up: bool, tg: TaskGroup
    ) -> None:
        with suppress(*_QUIET):
            while True:
                chunk = await source.receive()
                if up:
                    self.carried += chunk
                await sink.send(chunk)
        tg.cancel_scope.cancel()


@asynccontextmanager
async def tls_server_behind(
    proxy: ForwardProxy, path: Path
) -> AsyncIterator[tuple[str, ssl.SSLContext, ssl.SSLContext]]:
    """Our server over TLS (a throwaway CA), and ``proxy`` running: (its https URL,
    a client context that trusts the CA, the server's context)."""
    server_context, client_context = certificate_authority(path)
    async with (
        serving(make_server(Gates())) as (_, url),
        Proxy(port_of(url), server_context).running() as tls,
        proxy.running(),
    ):
        yield f"https://127.0.0.1:{tls.port}/mcp", client_context, server_context


async def test_https_goes_through_a_connect_tunnel_with_tls_inside(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    proxy = ForwardProxy("user:p@ss")
    with anyio.fail_after(LIMIT):
        async with tls_server_behind(proxy, tmp_path) as (secure, trusting, _):
            monkeypatch.setenv("HTTPS_PROXY", proxy.url("user:p%40ss"))
            async with connect_http(secure, verify=trusting) as client:
                assert only_text(await client.call_tool("echo", {"text": "tunnelled"})) == (
                    "tunnelled"
                )
    tunnel = f"CONNECT {urlsplit(secure).netloc}"
    assert proxy.requests and set(proxy.requests) == {tunnel}
    assert set(proxy.authorizations) == {basic("user:p@ss")}
    # TLS with the server inside the tunnel: the proxy carried no plain text.
    assert proxy.carried and b"tools/call" not in proxy.carried
    assert b"tunnelled" not in proxy.carried


async def test_an_https_proxy_is_reached_over_tls_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # https_proxy=https://...: TLS to the proxy, and the server's TLS inside the
    # tunnel (the same trust store checks both).
    proxy = ForwardProxy()
    with anyio.fail_after(LIMIT):
        async with (
            tls_server_behind(proxy, tmp_path) as (secure, trusting, certified),
            Proxy(proxy.port, certified).running() as tls_proxy,
        ):
            monkeypatch.setenv("https_proxy", f"https://127.0.0.1:{tls_proxy.port}")
            async with connect_http(secure, verify=trusting) as client:
                assert only_text(await client.call_tool("echo", {"text": "twice"})) == "twice"
    assert proxy.requests and set(proxy.requests) == {f"CONNECT {urlsplit(secure).netloc}"}
    assert b"twice" not in proxy.carried and b"twice" not in tls_proxy.downstream


async def test_plain_http_goes_to_the_proxy_in_absolute_form(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with anyio.fail_after(LIMIT):
        async with (
            serving(make_server(Gates())) as (_, url),
            ForwardProxy("me:secret").running() as proxy,
        ):
            monkeypatch.setenv("http_proxy", proxy.url("me:secret"))
            async with connect_http(url) as client:
                assert only_text(await client.call_tool("echo", {"text": "forwarded"})) == (
                    "forwarded"
                )
    assert f"POST {url}" in proxy.requests
    assert all(request.split(" ")[1].startswith(url) for request in proxy.requests)
    assert set(proxy.authorizations) == {basic("me:secret")}
    # The proxy's credentials stop at the proxy; the server gets origin form.
    assert b"proxy-authorization" not in proxy.carried.lower()
    assert b"POST /mcp HTTP/1.1\r\n" in proxy.carried


async def test_a_proxy_that_refuses_the_tunnel_fails_the_client(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    proxy = ForwardProxy("user:right")
    with anyio.fail_after(LIMIT):
        async with tls_server_behind(proxy, tmp_path) as (secure, trusting, _):
            monkeypatch.setenv("HTTPS_PROXY", proxy.url("user:wrong"))
            with pytest.raises(HttpError, match=r"refused a tunnel .*: 407"):
                async with connect_http(secure, verify=trusting):
                    pass
    assert proxy.requests and set(proxy.authorizations) == {basic("user:wrong")}


async def test_no_proxy_sends_a_host_directly(monkeypatch: pytest.MonkeyPatch) -> None:
    with anyio.fail_after(LIMIT):
        async with (
            serving(make_server(Gates())) as (_, url),
            ForwardProxy().running() as proxy,
        ):
            monkeypatch.setenv("HTTP_PROXY", proxy.url())
            monkeypatch.setenv("NO_PROXY", "example.com, .127.0.0.1")
            async with connect_http(url) as client:
                assert only_text(await client.call_tool("echo", {"text": "direct"})) == "direct"
            monkeypatch.setenv("no_proxy", "")  # the lower-case form wins: no bypass
            async with connect_http(url) as client:
                assert only_text(await client.call_tool("echo", {"text": "proxied"})) == "proxied"
            async with connect_http(url, trust_env=False) as client:
                assert only_text(await client.call_tool("echo", {"text": "direct"})) == "direct"
    assert proxy.requests and all(" http://127.0.0.1:" in r for r in proxy.requests)
    assert b"proxied" in proxy.carried and b"direct" not in proxy.carried


async def test_the_manager_reaches_its_servers_through_the_proxy(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with anyio.fail_after(LIMIT):
        async with (
            serving(make_server(Gates())) as (_, url),
            ForwardProxy().running() as proxy,
        ):
            monkeypatch.setenv("HTTP_PROXY", proxy.url())
            async with Manager([ServerConfig(name="s", url=url)]) as manager:
                await manager.wait_ready()
                result = await manager.call_tool("s.echo", {"text": "managed"})
                assert only_text(result) == "managed"
    assert f"POST {url}" in proxy.requests


async def test_the_oauth_flow_goes_through_the_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    user = User()
    oauth = OAuth(client_name="proxied", user_agent=headless_agent(user.screen, user.paste))
    with anyio.fail_after(LIMIT * 3):
        async with ForwardProxy().running() as proxy, protected() as (_, url):
            monkeypatch.setenv("HTTP_PROXY", proxy.url())
            async with connect_http(url, auth=oauth) as client:
                result = await client.call_tool("add", {"a": 2, "b": 3})
                assert result.structured_content == {"result": 5}
    # Every exchange of the flow went through the proxy: the protected resource's
    # metadata (this server names it in its challenge), the authorization server's,
    # registration, the token; then the call again.
    paths = [urlsplit(request.split(" ", 1)[1]).path for request in proxy.requests]
    for path in ("/prm", "/.well-known/oauth-authorization-server", "/register", "/token"):
        assert path in paths
    assert proxy.requests.count(f"POST {url}") >= 2
