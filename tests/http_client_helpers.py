"""Driving `mcp_core.HttpClientEndpoint` by hand, as an adapter would, for the sans-IO
tests of the client-side HTTP rules: messages and response heads and bodies in,
actions out, sorted by kind."""

from __future__ import annotations

import json
from typing import Any, Final

from mcp_core import HttpClientConfig, HttpClientEndpoint
from mcp_core.http import (
    AbortExchange,
    ClientAction,
    ClientNote,
    DeliverMessage,
    EndpointClosed,
    FailRequest,
    RequestFailure,
    SendHttp,
)
from mcp_core.wire import Message, Notification, Request, RequestId, encode_event

URL: Final = "http://127.0.0.1:8000/mcp"
MODERN: Final = "2026-07-28"
META: Final = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientCapabilities": {},
}
JSON: Final = (("content-type", "application/json"),)
SSE: Final = (("content-type", "text/event-stream"),)


def initialize(version: str = "2025-11-25", id: RequestId = 0) -> Request:
    params = {
        "protocolVersion": version,
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    }
    return Request(id=id, method="initialize", params=params)


INITIALIZED: Final = Notification(method="notifications/initialized")


def call(name: str = "echo", id: RequestId = 1, modern: bool = False, **arguments: Any) -> Request:
    params: dict[str, Any] = {"name": name, "arguments": arguments}
    if modern:
        params["_meta"] = META
    return Request(id=id, method="tools/call", params=params)


def result(id: RequestId, value: Any) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": id, "result": value}).encode()


def error(id: RequestId | None, code: int, message: str = "no") -> bytes:
    return json.dumps(
        {"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}}
    ).encode()


def event(data: bytes | str, **fields: Any) -> bytes:
    return encode_event(data, **fields)


class Wire:
    """An endpoint and everything it asked for, by kind."""

    def __init__(self, url: str = URL, **config: Any) -> None:
        self.ep = HttpClientEndpoint(url, HttpClientConfig(**config))
        self.sends: list[SendHttp] = []
        self.delivered: list[Message | bytes] = []
        self.failed: dict[RequestId, RequestFailure] = {}
        self.aborted: list[int] = []
        self.closed: list[str] = []
        self.notes: list[str] = []

    def apply(self, actions: list[ClientAction]) -> list[ClientAction]:
        for action in actions:
            if isinstance(action, SendHttp):
                self.sends.append(action)
            elif isinstance(action, DeliverMessage):
                self.delivered.append(action.message)
            elif isinstance(action, FailRequest):
                self.failed[action.request_id] = action.failure
            elif isinstance(action, AbortExchange):
                self.aborted.append(action.exchange)
            elif isinstance(action, EndpointClosed):
                self.closed.append(action.reason)
            else:
                assert isinstance(action, ClientNote)
                self.notes.append(action.text)
        return actions

    def send(self, message: Message) -> list[SendHttp]:
        """Send a message; the Sends it caused."""
        return [a for a in self.apply(self.ep.send(message)) if isinstance(a, SendHttp)]

    def answer(
        self,
        send: SendHttp,
        status: int = 200,
        headers: tuple[tuple[str, str], ...] = JSON,
        body: bytes = b"",
        *,
        split: bool = False,
        end: bool = True,
    ) -> list[ClientAction]:
        """Answer an exchange: its head, its body (byte by byte with ``split``), its end."""
        actions = self.ep.receive_head(send.exchange, status, headers)
        chunks = [body[i : i + 1] for i in range(len(body))] if split else [body]
        for chunk in chunks:
            actions += self.ep.receive_data(send.exchange, chunk)
        if end:
            actions += self.ep.receive_end(send.exchange)
        return self.apply(actions)

    def last(self) -> SendHttp:
        return self.sends[-1]

    def open_session(
        self, version: str = "2025-11-25", session_id: str | None = "s1", listen: int = 405
    ) -> None:
        """initialize, its answer, notifications/initialized, its 202, the GET stream's
        answer (``listen``: its status)."""
        (post,) = self.send(initialize(version))
        headers = JSON + ((("mcp-session-id", session_id),) if session_id else ())
        self.answer(post, 200, headers, result(0, {"protocolVersion": version}))
        (posted,) = self.send(INITIALIZED)
        self.answer(posted, 202, ())
        if listen:
            get = self.last()
            assert get.method == "GET"
            self.answer(get, listen, (), b"")


def header(send: SendHttp, name: str) -> str | None:
    found = [value for key, value in send.headers if key == name]
    assert len(found) <= 1, send.headers
    return found[0] if found else None


TOOLS = [
    {
        "name": "execute_sql",
        "inputSchema": {
            "type": "object",
            "properties": {
                "region": {"type": "string", "x-mcp-header": "Region"},
                "query": {"type": "string"},
                "opts": {
                    "type": "object",
                    "properties": {"dry": {"type": "boolean", "x-mcp-header": "Dry"}},
                },
                "limit": {"type": "integer", "x-mcp-header": "Limit"},
            },
        },
    },
    {
        "name": "bad",
        "inputSchema": {
            "type": "object",
            "properties": {"n": {"type": "number", "x-mcp-header": "N"}},
        },
    },
    {"name": "plain", "inputSchema": {"type": "object"}},
]
