"""Sub-capabilities, both ways (2025-11-25 client/sampling.mdx "Tools in Sampling",
client/elicitation.mdx "Capabilities" and "Error Handling"): a server session does
not send sampling with tools, or an elicitation mode, the client did not declare;
a client session answers such a request with -32602."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest
from helpers import SessionPair

from mcp_core import ClientConfig, ClientSession, LocalProtocolError
from mcp_core.session import RequestReceived
from mcp_core.session.config import missing_client_capability
from mcp_core.types import ClientCapabilities, Implementation
from mcp_core.wire import INVALID_PARAMS, METHOD_NOT_FOUND, decode_message, encode_message

TOOLS = [{"name": "t", "inputSchema": {"type": "object"}}]
SAMPLE: dict[str, Any] = {"messages": [], "maxTokens": 5}
SAMPLE_TOOLS: dict[str, Any] = {**SAMPLE, "tools": TOOLS}
SAMPLE_CHOICE: dict[str, Any] = {**SAMPLE, "toolChoice": {"mode": "auto"}}
FORM: dict[str, Any] = {"message": "m", "requestedSchema": {"type": "object", "properties": {}}}
URL: dict[str, Any] = {"mode": "url", "message": "m", "url": "https://x", "elicitationId": "e1"}

# (declared capabilities, method, params, what is missing)
CASES: list[tuple[dict[str, Any], str, dict[str, Any], tuple[str, str | None] | None]] = [
    ({}, "sampling/createMessage", SAMPLE, ("sampling", None)),
    ({"sampling": {}}, "sampling/createMessage", SAMPLE, None),
    ({"sampling": {}}, "sampling/createMessage", SAMPLE_TOOLS, ("sampling", "tools")),
    ({"sampling": {}}, "sampling/createMessage", SAMPLE_CHOICE, ("sampling", "tools")),
    ({"sampling": {"tools": {}}}, "sampling/createMessage", SAMPLE_TOOLS, None),
    # An empty elicitation object means form mode only.
    ({"elicitation": {}}, "elicitation/create", FORM, None),
    ({"elicitation": {}}, "elicitation/create", URL, ("elicitation", "url")),
    ({"elicitation": {"url": {}}}, "elicitation/create", FORM, ("elicitation", "form")),
    ({"elicitation": {"url": {}}}, "elicitation/create", URL, None),
    ({"elicitation": {"form": {}, "url": {}}}, "elicitation/create", FORM, None),
    ({"elicitation": {"form": {}}}, "elicitation/create", URL, ("elicitation", "url")),
    ({"roots": {}}, "roots/list", {}, None),
]


@pytest.mark.parametrize(("declared", "method", "params", "missing"), CASES)
def test_the_table(
    declared: dict[str, Any],
    method: str,
    params: dict[str, Any],
    missing: tuple[str, str | None] | None,
) -> None:
    capabilities = msgspec.convert(declared, ClientCapabilities)
    assert missing_client_capability(capabilities, method, params) == missing


def pair(declared: dict[str, Any]) -> SessionPair:
    client = ClientSession(
        ClientConfig(
            client_info=Implementation(name="c", version="1"),
            capabilities=msgspec.convert(declared, ClientCapabilities),
            revisions=("2025-11-25",),
        )
    )
    sessions = SessionPair(client=client)
    sessions.open()
    return sessions


@pytest.mark.parametrize(("declared", "method", "params", "missing"), CASES)
def test_a_server_session_sends_only_what_was_declared(
    declared: dict[str, Any],
    method: str,
    params: dict[str, Any],
    missing: tuple[str, str | None] | None,
) -> None:
    sessions = pair(declared)
    if missing is None:
        sessions.server.send_request(method, params)
        assert sessions.server.messages_to_send()
    else:
        with pytest.raises(LocalProtocolError, match=missing[0]):
            sessions.server.send_request(method, params)
        assert sessions.server.messages_to_send() == []


@pytest.mark.parametrize(
    ("declared", "params", "code"),
    [
        ({"sampling": {}}, SAMPLE_TOOLS, INVALID_PARAMS),
        ({"elicitation": {}}, URL, INVALID_PARAMS),
        ({"elicitation": {"url": {}}}, FORM, INVALID_PARAMS),
        ({}, SAMPLE, METHOD_NOT_FOUND),
    ],
)
def test_a_client_session_refuses_what_it_did_not_declare(
    declared: dict[str, Any], params: dict[str, Any], code: int
) -> None:
    # From the wire: a server that breaks the rule sends the bytes anyway.
    sessions = pair(declared)
    method = "elicitation/create" if "message" in params else "sampling/createMessage"
    request = msgspec.json.encode({"jsonrpc": "2.0", "id": 7, "method": method, "params": params})
    events = sessions.client.receive_bytes(request, 0.0)
    assert not any(isinstance(e, RequestReceived) for e in events)
    (answer,) = sessions.client.messages_to_send()
    reply = decode_message(encode_message(answer))
    assert reply.id == 7
    assert reply.error.code == code
