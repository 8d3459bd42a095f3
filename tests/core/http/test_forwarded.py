"""The client address behind trusted proxies (RFC 7239 Forwarded, and
X-Forwarded-For), for fair eviction at the sessions cap."""

from __future__ import annotations

import pytest

from mcp_core.http.config import HttpServerConfig
from mcp_core.http.decisions import Dispatch, HttpRequest
from mcp_core.http.forwarded import client_address
from mcp_core.http.server import HttpEndpoint
from mcp_core.session import SessionState

PROXY = ("10.0.0.0/8",)


@pytest.mark.parametrize(
    ("peer", "headers", "expected"),
    [
        ("192.0.2.1", {"x-forwarded-for": "198.51.100.7"}, "192.0.2.1"),  # not a proxy
        ("10.0.0.2", {}, "10.0.0.2"),  # a proxy that said nothing
        ("10.0.0.2", {"x-forwarded-for": "198.51.100.7"}, "198.51.100.7"),
        # A client that forges the header gets its own address appended after.
        ("10.0.0.2", {"x-forwarded-for": "1.2.3.4, 198.51.100.7, 10.0.0.3"}, "198.51.100.7"),
        ("10.0.0.2", {"x-forwarded-for": "10.0.0.5, 10.0.0.3"}, "10.0.0.5"),  # all proxies
        ("10.0.0.2", {"forwarded": 'for=198.51.100.7;proto=http, for="10.0.0.3"'}, "198.51.100.7"),
        ("10.0.0.2", {"forwarded": 'for="[2001:db8::17]:4711"'}, "2001:db8::17"),
        (
            "10.0.0.2",
            {"forwarded": "for=198.51.100.7:80", "x-forwarded-for": "1.1.1.1"},
            "198.51.100.7",
        ),
        ("10.0.0.2", {"forwarded": "for=unknown"}, "unknown"),
        (None, {"x-forwarded-for": "198.51.100.7"}, None),
    ],
)
def test_the_client_is_the_last_address_not_a_trusted_proxy(
    peer: str | None, headers: dict[str, str], expected: str | None
) -> None:
    assert client_address(peer, headers, PROXY) == expected


def test_without_trusted_proxies_the_headers_are_ignored() -> None:
    assert client_address("10.0.0.2", {"x-forwarded-for": "198.51.100.7"}, ()) == "10.0.0.2"


@pytest.mark.parametrize("trusted", [("not an address",), "10.0.0.1"])
def test_a_bad_trusted_proxy_is_refused_at_start(trusted: object) -> None:
    with pytest.raises(ValueError):
        HttpServerConfig(trusted_proxies=trusted)  # type: ignore[arg-type]


INITIALIZE = (
    b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25",'
    b'"capabilities":{},"clientInfo":{"name":"c","version":"1"}}}'
)


class _Protocol:
    revision = "2025-11-25"
    state = SessionState.READY
    requests_in_flight = 0


def test_behind_a_trusted_balancer_a_flood_from_one_client_ends_its_own_sessions() -> None:
    endpoint = HttpEndpoint(HttpServerConfig(max_sessions=4, trusted_proxies=("127.0.0.1",)))

    def open_from(client: str, now: float) -> str:
        pairs = {
            "host": "127.0.0.1:8000",
            "accept": "application/json, text/event-stream",
            "content-type": "application/json",
            "x-forwarded-for": client,
        }
        head = HttpRequest.from_pairs("POST", "/mcp", pairs.items(), client="127.0.0.1")
        decision = endpoint.receive(head, INITIALIZE, now)
        assert isinstance(decision, Dispatch) and decision.session_id is not None
        endpoint.bind(decision.session_id, _Protocol())
        return decision.session_id

    victim = open_from("198.51.100.9", 0.0)
    for n in range(12):
        open_from("198.51.100.1", 1.0 + n)
    assert victim in endpoint.sessions
    assert endpoint.sessions[victim].address == "198.51.100.9"
