"""The server card's rules without I/O (tests/spec/extensions/sep-2127-server-cards.md):
which requests ask for it, the card of a config and when it is encoded again."""

from __future__ import annotations

import json

from mcp_core import Server
from mcp_core.http.decisions import HttpRequest
from mcp_core.http.server import HttpEndpoint, HttpServerConfig
from mcp_core.http.server_card import SERVER_CARD_PATH, ServerCardRules, server_card
from mcp_core.session.config import ServerConfig


def get(target: str, method: str = "GET", prefix: str = "") -> HttpRequest:
    return HttpRequest(method, target, {}, prefix=prefix)


def test_which_requests_and_the_answers() -> None:
    server = Server("s", "1")
    asked: list[int] = []

    def config() -> ServerConfig:
        asked.append(1)
        return server.config()

    off = ServerCardRules(enabled=False, endpoint="/mcp")
    assert off.answer(get(SERVER_CARD_PATH), config) is None
    rules = ServerCardRules(enabled=True, endpoint="/mcp")
    assert rules.answer(get("/mcp"), config) is None
    assert rules.answer(get(SERVER_CARD_PATH + "x"), config) is None
    assert asked == []  # the config is built for a card only
    answer = rules.answer(get(SERVER_CARD_PATH + "?fresh=1", prefix="/api"), config)
    assert answer is not None and answer.status == 200
    transport = json.loads(answer.body)["transport"]
    assert transport == {"type": "streamable-http", "endpoint": "/api/mcp"}
    head = rules.answer(get(SERVER_CARD_PATH, "HEAD"), config)
    assert head is not None and (head.status, head.body) == (200, b"")
    preflight = rules.answer(get(SERVER_CARD_PATH, "OPTIONS"), config)
    assert preflight is not None and preflight.status == 204
    assert ("access-control-allow-origin", "*") in preflight.headers
    refused = rules.answer(get(SERVER_CARD_PATH, "DELETE"), config)
    assert refused is not None and refused.status == 405


def test_encoded_once_per_config() -> None:
    server = Server("s", "1")
    rules = ServerCardRules(enabled=True, endpoint="/mcp")
    first = rules.body(server.config())
    assert rules.body(server.config()) is first  # the same config object: the same bytes

    @server.prompt
    def hello() -> str:
        return "hi"

    again = rules.body(server.config())
    assert again is not first and json.loads(again)["prompts"] == ["dynamic"]


def test_the_endpoint_holds_the_rules() -> None:
    assert HttpEndpoint(HttpServerConfig()).card.path is None
    endpoint = HttpEndpoint(HttpServerConfig(server_card=True, path="/rpc"))
    assert endpoint.card.path == SERVER_CARD_PATH and endpoint.card.endpoint == "/rpc"
    assert not endpoint.card.authenticated


def test_older_revisions_only() -> None:
    server = Server("s", "1")
    card = server_card(server.config(revisions=("2025-03-26", "2025-06-18")), endpoint="/mcp")
    assert card.protocol_version == "2025-06-18"
