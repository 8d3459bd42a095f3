"""A client reads responses to its requests in one pass (session/answers.py). Fed the
same bytes, a client that does and one that reads every message with decode_message
must see the same events, send the same messages and end in the same state."""

from __future__ import annotations

import json
from typing import Any

import msgspec
from helpers import SessionPair
from hypothesis import given, settings
from hypothesis import strategies as st

from mcp_core import Limits
from mcp_core.session.answers import ONE_PASS_FROM
from mcp_core.session.client import ClientSession
from mcp_core.types.base import ServerCapabilities
from mcp_core.types.server import CallToolResult, ListToolsResult
from mcp_core.wire import DEFAULT_LIMITS, Response, decode_message, encode_message
from mcp_core.wire.peek import response_id_hint

# What the client has out: ids 2, 3, 4 (the handshake took 1).
OUT = ("tools/list", "tools/call", "tools/call")
PAD = "x" * ONE_PASS_FROM


def ready_client(revisions: tuple[str, ...] | None, limits: Limits) -> ClientSession:
    pair = SessionPair(revisions=revisions, capabilities=ServerCapabilities(tools={}))
    pair.client = ClientSession(pair.client.config, limits)
    pair.open()
    for method in OUT:
        params = {"name": "t"} if method == "tools/call" else None
        if params is None:
            pair.client.send_request(method)
        else:
            pair.client.send_request(method, params)
    pair.client.messages_to_send()
    return pair.client


def outcome(client: ClientSession, data: bytes) -> Any:
    try:
        events = client.receive_bytes(data, 1.0)
    except Exception as exc:  # the same exception, or the test fails
        return (type(exc), str(exc))
    sent = [encode_message(m) for m in client.messages_to_send()]
    return events, sent, client.state, sorted(client._requests.pending)


def assert_same(data: bytes, revisions: tuple[str, ...] | None, limits: Limits) -> Any:
    one_pass = ready_client(revisions, limits)
    two_stage = ready_client(revisions, limits)
    two_stage._decode = decode_message  # type: ignore[method-assign]
    assert sorted(one_pass._requests.pending) == sorted(two_stage._requests.pending)
    expected = outcome(two_stage, data)
    assert outcome(one_pass, data) == expected
    return expected


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=4),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=3), children, max_size=3)
    ),
    max_leaves=20,
)
long_text = st.text(max_size=8).map(lambda t: t + PAD)
result_types = st.sampled_from(["complete", "input_required", "task", "other", 3])
tools = st.fixed_dictionaries(
    {"name": st.text(max_size=4), "inputSchema": st.just({"type": "object"}) | json_values},
    optional={"description": long_text | json_values},
)
list_result = st.fixed_dictionaries(
    {"tools": st.lists(tools, max_size=3) | json_values},
    optional={
        "resultType": result_types,
        "nextCursor": st.text(max_size=3),
        "requestState": st.text(max_size=3),
    },
)
call_result = st.fixed_dictionaries(
    {"content": st.lists(st.fixed_dictionaries({"type": st.just("text"), "text": long_text}))},
    optional={
        "isError": st.booleans() | json_values,
        "structuredContent": json_values,
        "resultType": result_types,
        "inputRequests": json_values,
        "requestState": st.text(max_size=3),
        "task": st.fixed_dictionaries({"taskId": st.text(max_size=3)}) | json_values,
    },
)
ids = st.sampled_from([2, 3, 4, 1, 5, 0, "2", "3", -1, 10**20])
members = st.sampled_from(["jsonrpc", "id", "result", "error", "method", "x"])
values = st.one_of(
    st.just("2.0"),
    ids,
    st.fixed_dictionaries({"code": st.integers(), "message": st.text(max_size=3)}),
    list_result,
    call_result,
    json_values,
)
limits = st.sampled_from([DEFAULT_LIMITS, Limits(max_depth=4), Limits(max_message_bytes=600)])
revisions = st.sampled_from([None, ("2025-11-25",)])


def _text(pairs: list[tuple[str, Any]]) -> bytes:
    body = ",".join(json.dumps(key) + ":" + json.dumps(value) for key, value in pairs)
    return ("{" + body + "}").encode()


@st.composite
def answers(draw: st.DrawFn) -> bytes:
    # Laid out as our encoder writes a response, as the TypeScript SDK does, or
    # in any order; sometimes with members repeated or added.
    request_id = draw(ids)
    result = draw(list_result | call_result | values)
    layout = draw(st.sampled_from(["ours", "typescript", "any"]))
    extra = draw(st.lists(st.tuples(members, values), max_size=2))
    if layout == "ours":
        pairs = [("jsonrpc", "2.0"), ("id", request_id), ("result", result), *extra]
    elif layout == "typescript":
        pairs = [*extra, ("result", result), ("jsonrpc", "2.0"), ("id", request_id)]
    else:
        pairs = draw(st.permutations([("jsonrpc", "2.0"), ("id", request_id), ("result", result)]))
        pairs = [*pairs, *extra]
    return _text(pairs)


@given(answers(), revisions, limits)
@settings(max_examples=200)
def test_answers_read_alike(data: bytes, revisions: Any, limits: Limits) -> None:
    assert_same(data, revisions, limits)


@given(answers(), st.data())
@settings(max_examples=100)
def test_damaged_answers_read_alike(data: bytes, draw: st.DataObject) -> None:
    text = bytearray(data)
    at = draw.draw(st.integers(0, len(text)))
    damage = draw.draw(st.sampled_from([b"", b"\xff", b"[", b"}", b'"', b"\\", b","]))
    text[at : at + draw.draw(st.integers(0, 2))] = damage
    assert_same(bytes(text), None, DEFAULT_LIMITS)


def test_a_response_is_read_in_one_pass() -> None:
    # Not a fallback in disguise: the results come out of the decoder typed.
    for request_id, result, kind in (
        (2, {"tools": [{"name": "a", "description": PAD, "inputSchema": {}}]}, ListToolsResult),
        (3, {"content": [{"type": "text", "text": PAD}]}, CallToolResult),
    ):
        ours = _text([("jsonrpc", "2.0"), ("id", request_id), ("result", result)])
        typescript = _text([("result", result), ("jsonrpc", "2.0"), ("id", request_id)])
        for data in (ours, typescript):
            assert response_id_hint(data) == request_id
            client = ready_client(None, DEFAULT_LIMITS)
            message = client._decode(data)
            assert type(message) is Response and type(message.result) is kind
            assert assert_same(data, None, DEFAULT_LIMITS)[2] == client.state


def test_a_wrong_guess_is_read_in_two_stages() -> None:
    # The hint says 2 (tools/list), the message's last id says 3 (tools/call), and
    # the result reads as either's.
    result = {"tools": [], "content": [{"type": "text", "text": PAD}]}
    data = _text([("jsonrpc", "2.0"), ("id", 2), ("result", result), ("id", 3)])
    assert response_id_hint(data) == 2
    message = ready_client(None, DEFAULT_LIMITS)._decode(data)
    assert type(message) is Response and type(message.result) is msgspec.Raw
    assert_same(data, None, DEFAULT_LIMITS)


def test_an_answer_past_the_nesting_limit_is_refused_alike() -> None:
    deep = {"content": [], "structuredContent": {"a": [[[[[PAD]]]]]}}
    data = _text([("jsonrpc", "2.0"), ("id", 3), ("result", deep)])
    events = assert_same(data, None, Limits(max_depth=4))[0]
    assert "nested deeper than 4" in repr(events)


def test_an_input_required_result_is_read_in_two_stages() -> None:
    # It reads as a CallToolResult too, which would lose its requestState.
    result = {"content": [], "resultType": "input_required", "requestState": PAD}
    data = _text([("jsonrpc", "2.0"), ("id", 3), ("result", result)])
    events = assert_same(data, None, DEFAULT_LIMITS)[0]
    assert type(events[0]).__name__ == "InputRequired", events
