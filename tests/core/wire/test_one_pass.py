"""The one-pass decoders against the two stages (decode_message, then decode_params or
decode_result), fed the same bytes: they must accept exactly the same messages, with the
same typed params or result, and refuse the rest with the same JSON-RPC error."""

from __future__ import annotations

import json
from typing import Any

import msgspec
from hypothesis import given, settings
from hypothesis import strategies as st

from mcp_core import Limits, RemoteProtocolError
from mcp_core.types.methods import message_decoder, method_spec, params_decoder
from mcp_core.types.server import CallToolResult
from mcp_core.wire import (
    DEFAULT_LIMITS,
    Notification,
    OnePassResponseDecoder,
    Request,
    Response,
    decode_message,
    decode_params,
    decode_result,
)

RESULT_DECODER = msgspec.json.Decoder(CallToolResult)
RESPONSE_DECODER = OnePassResponseDecoder(CallToolResult)


def _params_decoder(method: str) -> msgspec.json.Decoder[Any] | None:
    spec = method_spec(method, "2026-07-28") or method_spec(method, "2025-11-25")
    return None if spec is None else params_decoder(spec)


def _finish(message: Any) -> tuple[Any, ...]:
    # The second stage, as the sessions run it.
    kind = type(message)
    if kind is Request or kind is Notification:
        decoder = _params_decoder(message.method)
        if decoder is not None:
            request_id = message.id if kind is Request else None
            return ("ok", kind, request_id, message.method, decode_params(message, decoder))
    if kind is Response:
        return ("ok", kind, message.id, decode_result(message, RESULT_DECODER))
    return ("ok", message)


def outcome(decode: Any, data: bytes, limits: Limits) -> tuple[Any, ...]:
    try:
        return _finish(decode(data, limits))
    except RemoteProtocolError as exc:
        return ("error", exc.code, exc.request_id, exc.message, exc.http_status)


def assert_same(data: bytes, limits: Limits = DEFAULT_LIMITS) -> tuple[Any, ...]:
    expected = outcome(decode_message, data, limits)
    assert outcome(message_decoder.decode, data, limits) == expected
    assert outcome(RESPONSE_DECODER.decode, data, limits) == expected
    return expected


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=4),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=3), children, max_size=3)
    ),
    max_leaves=30,
)
metas = st.dictionaries(st.sampled_from(["progressToken", "a", "io.x/y"]), json_values, max_size=2)
call_params = st.fixed_dictionaries(
    {"name": st.text(max_size=5)},
    optional={
        "arguments": st.dictionaries(st.text(max_size=3), json_values, max_size=3),
        "_meta": metas | json_values,
        "task": json_values,
    },
)
progress_params = st.fixed_dictionaries(
    {"progressToken": st.integers() | st.text(max_size=3), "progress": st.integers()},
    optional={"total": st.integers(), "message": json_values},
)
call_result = st.fixed_dictionaries(
    {"content": st.lists(st.fixed_dictionaries({"type": st.just("text"), "text": st.text()}))},
    optional={
        "isError": st.booleans(),
        "structuredContent": st.dictionaries(st.text(max_size=3), json_values, max_size=2),
    },
)
methods = st.sampled_from(
    [
        "tools/call",
        "tools/list",
        "ping",
        "initialize",
        "notifications/progress",
        "notifications/initialized",
        "notifications/cancelled",
        "no/such",
    ]
)
members = st.sampled_from(["jsonrpc", "id", "method", "params", "result", "error", "x"])
values = st.one_of(
    st.just("2.0"),
    st.just("1.0"),
    methods,
    st.integers(min_value=-(2**70), max_value=2**70),
    st.booleans(),
    st.none(),
    st.fixed_dictionaries({"code": st.integers(), "message": st.text(max_size=3)}),
    call_params,
    progress_params,
    call_result,
    json_values,
)


def _text(pairs: list[tuple[str, Any]]) -> bytes:
    # Members in any order, and the same member more than once where ``pairs`` says so.
    body = ",".join(json.dumps(key) + ":" + json.dumps(value) for key, value in pairs)
    return ("{" + body + "}").encode()


def _limits(draw: st.DrawFn, data: bytes) -> Limits:
    return draw(
        st.sampled_from(
            [
                DEFAULT_LIMITS,
                Limits(max_depth=3),
                Limits(max_depth=5, max_message_bytes=len(data)),
                Limits(max_message_bytes=max(1, len(data) - 1)),
            ]
        )
    )


@st.composite
def messages(draw: st.DrawFn) -> tuple[bytes, Limits]:
    method = draw(methods)
    pairs: list[tuple[str, Any]] = [("jsonrpc", "2.0"), ("method", method)]
    if draw(st.booleans()):
        pairs.append(("id", draw(st.integers() | st.text(max_size=3) | st.none())))
    params = {
        "tools/call": call_params,
        "notifications/progress": progress_params,
        "notifications/cancelled": st.fixed_dictionaries({"requestId": st.integers()}),
    }.get(method, st.fixed_dictionaries({}, optional={"_meta": metas}))
    if draw(st.integers(0, 4)):
        pairs.append(("params", draw(params | values)))
    pairs.extend(draw(st.lists(st.tuples(members, values), max_size=2)))
    pairs = draw(st.permutations(pairs))
    data = _text(pairs)
    return data, _limits(draw, data)


@st.composite
def responses(draw: st.DrawFn) -> tuple[bytes, Limits]:
    pairs: list[tuple[str, Any]] = [("jsonrpc", "2.0"), ("id", draw(st.integers() | st.text()))]
    pairs.append(("result", draw(call_result | values)))
    pairs.extend(draw(st.lists(st.tuples(members, values), max_size=2)))
    if draw(st.integers(0, 3)) == 0:
        pairs.append((draw(st.sampled_from(["error", "method"])), draw(values)))
    pairs = draw(st.permutations(pairs))
    data = _text(pairs)
    return data, _limits(draw, data)


@given(messages())
@settings(max_examples=400)
def test_requests_and_notifications_read_alike(case: tuple[bytes, Limits]) -> None:
    assert_same(*case)


@given(responses())
@settings(max_examples=250)
def test_responses_read_alike(case: tuple[bytes, Limits]) -> None:
    assert_same(*case)


@given(st.lists(st.tuples(members, values), max_size=6))
@settings(max_examples=250)
def test_any_envelope_reads_alike(pairs: list[tuple[str, Any]]) -> None:
    data = _text(pairs)
    assert_same(data)
    assert_same(data, Limits(max_depth=3))


@given(messages(), st.data())
@settings(max_examples=150)
def test_damaged_bytes_read_alike(case: tuple[bytes, Limits], data: st.DataObject) -> None:
    text = bytearray(case[0])
    at = data.draw(st.integers(0, len(text)))
    damage = data.draw(st.sampled_from([b"", b"\xff", b"\xc3", b"[", b"}", b'"', b"\\", b","]))
    cut = data.draw(st.integers(0, 2))
    text[at : at + cut] = damage
    assert_same(bytes(text), case[1])


@given(st.binary(max_size=200))
@settings(max_examples=300)
def test_any_bytes_read_alike(data: bytes) -> None:
    assert_same(data)


def test_known_methods_are_read_in_one_pass() -> None:
    # Not a fallback in disguise: the params and result come out typed, and the
    # decoders' answer matches the two stages'.
    call = b'{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"a","arguments":{}}}'
    note = (
        b'{"method":"notifications/progress","jsonrpc":"2.0",'
        b'"params":{"progressToken":1,"progress":2}}'
    )
    answer = b'{"id":"x","result":{"content":[{"type":"text","text":"hi"}]},"jsonrpc":"2.0"}'
    for data, kind in ((call, Request), (note, Notification)):
        message = message_decoder.decode(data)
        assert type(message) is kind
        assert type(message.params) is not msgspec.Raw
        assert assert_same(data)[0] == "ok"
    message = RESPONSE_DECODER.decode(answer)
    assert type(message) is Response and type(message.result) is CallToolResult
    assert assert_same(answer)[0] == "ok"


def test_the_nesting_limit_is_kept_in_one_pass() -> None:
    # The shortest messages around a member max_depth deep (the message one more):
    # the size bound that spares most messages the scan must not spare these.
    deep = "[" * 128 + "]" * 128
    shallow = "[" * 127 + "]" * 127
    for inner, code in ((deep, -32700), (shallow, None)):
        for data in (
            '{"jsonrpc":"2.0","method":"notifications/initialized","":' + inner + "}",
            '{"jsonrpc":"2.0","id":0,"method":"ping","":' + inner + "}",
            '{"jsonrpc":"2.0","id":0,"result":' + inner + "}",
            '{"jsonrpc":"2.0","id":0,"result":{"content":[],"":' + inner[1:-1] + "}}",
        ):
            result = assert_same(data.encode())
            if code is None:
                assert result[0] == "ok" or result[1] != -32700, data
            else:
                assert result[:2] == ("error", code), data
