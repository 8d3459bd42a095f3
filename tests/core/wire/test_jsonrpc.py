"""The JSON-RPC envelope, from the wire: bytes in, messages or exact error codes out."""

from __future__ import annotations

import json
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mcp_core import Limits, RemoteProtocolError
from mcp_core.wire import (
    DEFAULT_LIMITS,
    ErrorObject,
    ErrorResponse,
    Notification,
    Request,
    Response,
    check_utf8,
    decode_batch,
    decode_message,
    decode_params,
    decode_result,
    encode_batch,
    encode_message,
    error_reply,
    is_batch,
)
from mcp_core.wire.jsonrpc import _decode_loose
from mcp_core.wire.nesting import nesting_exceeds as _nesting_exceeds
from mcp_core.wire.nesting import valid_nesting_exceeds


class EchoParams(msgspec.Struct, kw_only=True):
    name: str
    arguments: dict[str, Any] = {}


ECHO_DECODER = msgspec.json.Decoder(EchoParams)


def error_of(data: bytes, limits: Limits = DEFAULT_LIMITS) -> RemoteProtocolError:
    with pytest.raises(RemoteProtocolError) as info:
        decode_message(data, limits)
    return info.value


# --- good messages -----------------------------------------------------------------


def test_request_round_trip_keeps_params_raw() -> None:
    data = b'{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"e","arguments":{}}}'
    msg = decode_message(data)
    assert type(msg) is Request
    assert msg.id == 7
    assert msg.method == "tools/call"
    assert isinstance(msg.params, msgspec.Raw)
    assert bytes(msg.params) == b'{"name":"e","arguments":{}}'
    assert encode_message(msg) == data


def test_string_id_and_absent_params() -> None:
    msg = decode_message(b'{"jsonrpc":"2.0","id":"abc","method":"ping"}')
    assert msg == Request(id="abc", method="ping")
    assert encode_message(msg) == b'{"jsonrpc":"2.0","id":"abc","method":"ping"}'


def test_notification() -> None:
    msg = decode_message(b'{"method":"notifications/initialized","jsonrpc":"2.0"}')
    assert msg == Notification(method="notifications/initialized")


def test_response_and_error_response() -> None:
    ok = decode_message(b'{"jsonrpc":"2.0","id":1,"result":{}}')
    assert type(ok) is Response and bytes(ok.result) == b"{}"
    err = decode_message(
        b'{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}'
    )
    assert err == ErrorResponse(id=None, error=ErrorObject(code=-32700, message="Parse error"))
    with_data = decode_message(
        b'{"jsonrpc":"2.0","id":"x","error":{"code":-1,"message":"m","data":{"k":[1]}}}'
    )
    assert type(with_data) is ErrorResponse and with_data.error.data == {"k": [1]}


def test_unknown_members_are_tolerated() -> None:
    msg = decode_message(b'{"jsonrpc":"2.0","id":1,"method":"ping","extra":{"a":[1,2]}}')
    assert msg == Request(id=1, method="ping")


def test_encode_typed_params_and_error_reply() -> None:
    msg = Request(id=3, method="tools/call", params=EchoParams(name="e"))
    assert json.loads(encode_message(msg)) == {
        "jsonrpc": "2.0",
        "id": 3,
        "method": "tools/call",
        "params": {"name": "e", "arguments": {}},
    }
    exc = error_of(b'{"jsonrpc":"2.0","id":9}')
    assert json.loads(encode_message(error_reply(exc))) == {
        "jsonrpc": "2.0",
        "id": 9,
        "error": {"code": -32600, "message": exc.message},
    }


# --- bad messages: each gets its exact code --------------------------------------------

BAD_CASES: list[tuple[str, bytes, int, Any]] = [
    ("invalid utf-8", b'{"jsonrpc":"2.0","id":1,"method":"\xff\xfe"}', -32700, None),
    ("not json", b'{"jsonrpc":"2.0",', -32700, None),
    ("trailing garbage", b'{"jsonrpc":"2.0","id":1,"method":"ping"} x', -32700, None),
    ("empty", b"", -32700, None),
    ("not an object", b'"hello"', -32600, None),
    ("number", b"42", -32600, None),
    ("wrong jsonrpc", b'{"jsonrpc":"1.0","id":5,"method":"ping"}', -32600, 5),
    ("missing jsonrpc", b'{"id":"a","method":"ping"}', -32600, "a"),
    ("jsonrpc as number", b'{"jsonrpc":2.0,"id":5,"method":"ping"}', -32600, 5),
    ("missing method", b'{"jsonrpc":"2.0","id":4}', -32600, 4),
    ("method not a string", b'{"jsonrpc":"2.0","id":4,"method":7}', -32600, 4),
    ("null id", b'{"jsonrpc":"2.0","id":null,"method":"ping"}', -32600, None),
    ("bool id", b'{"jsonrpc":"2.0","id":true,"method":"ping"}', -32600, None),
    ("float id", b'{"jsonrpc":"2.0","id":1.5,"method":"ping"}', -32600, None),
    ("object id", b'{"jsonrpc":"2.0","id":{},"method":"ping"}', -32600, None),
    ("result and error", b'{"jsonrpc":"2.0","id":1,"result":{},"error":{}}', -32600, None),
    ("response null id", b'{"jsonrpc":"2.0","id":null,"result":{}}', -32600, None),
    ("bad error object", b'{"jsonrpc":"2.0","id":2,"error":{"code":"x"}}', -32600, 2),
    (
        "bool error id",
        b'{"jsonrpc":"2.0","id":false,"error":{"code":1,"message":""}}',
        -32600,
        None,
    ),
    ("batch", b'[{"jsonrpc":"2.0","id":1,"method":"ping"}]', -32600, None),
]


@pytest.mark.parametrize(
    ("data", "code", "request_id"),
    [case[1:] for case in BAD_CASES],
    ids=[case[0] for case in BAD_CASES],
)
def test_bad_message_gets_its_code(data: bytes, code: int, request_id: Any) -> None:
    exc = error_of(data)
    assert exc.code == code
    assert exc.request_id == request_id
    reply = error_reply(exc)
    assert reply.id == request_id and reply.error.code == code


def test_size_cap() -> None:
    limits = Limits(max_message_bytes=1024 * 1024)
    text = "x" * (1024 * 1024)
    data = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "m", "params": {"t": text}}).encode()
    exc = error_of(data, limits)
    assert exc.code == -32600 and exc.http_status == 413
    # The default cap admits a 1 MiB argument; a message exactly at the cap passes.
    assert type(decode_message(data)) is Request
    exact = b'{"jsonrpc":"2.0","id":1,"method":"ping"}'
    assert type(decode_message(exact, Limits(max_message_bytes=len(exact)))) is Request
    assert error_of(exact, Limits(max_message_bytes=len(exact) - 1)).code == -32600


@pytest.mark.parametrize("depth", [100_000, 1_000, 129])
def test_deep_nesting_is_a_parse_error(depth: int) -> None:
    data = b'{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":' + b"[" * depth
    data += b"]" * depth + b"}}"
    assert error_of(data).code == -32700
    unclosed = b'{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":' + b"[" * depth
    assert error_of(unclosed).code == -32700


def test_nesting_at_the_limit_is_accepted() -> None:
    # The params object is level 2 (the envelope is level 1).
    inner = 128 - 2
    data = b'{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":' + b"[" * inner
    data += b"]" * inner + b"}}"
    assert type(decode_message(data)) is Request
    deeper = data.replace(b'"a":[', b'"a":[[', 1).replace(b"]}}", b"]]}}", 1)
    assert error_of(deeper).code == -32700


def test_deep_nesting_same_answer_from_a_deep_stack() -> None:
    data = b'{"jsonrpc":"2.0","id":1,"method":"m","params":' + b"[" * 5000 + b"]" * 5000 + b"}"

    def nest(levels: int) -> RemoteProtocolError:
        if levels:
            return nest(levels - 1)
        return error_of(data)

    shallow = error_of(data)
    deep = nest(800)
    assert (
        (shallow.code, shallow.message)
        == (deep.code, deep.message)
        == (
            -32700,
            "JSON nested deeper than 128 levels",
        )
    )


def test_brackets_inside_strings_do_not_count() -> None:
    text = json.dumps('[{\\"' * 500)
    data = ('{"jsonrpc":"2.0","id":1,"method":"m","params":{"t":' + text + "}}").encode()
    assert type(decode_message(data)) is Request


def depth_of(value: Any) -> int:
    if isinstance(value, list):
        return 1 + max((depth_of(v) for v in value), default=0)
    if isinstance(value, dict):
        return 1 + max((depth_of(v) for v in value.values()), default=0)
    return 0


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(alphabet='[]{}"\\ab'),
    lambda children: (
        st.lists(children, max_size=3)
        | st.dictionaries(st.text(alphabet='[]{}"\\k', max_size=3), children, max_size=3)
    ),
    max_leaves=40,
)


@given(json_values, st.integers(min_value=0, max_value=12))
@settings(max_examples=400)
def test_nesting_check_is_exact(value: Any, limit: int) -> None:
    data = json.dumps(value).encode()
    assert _nesting_exceeds(data, limit) == (depth_of(value) > limit)


# --- typed second stage ------------------------------------------------------------------


def test_decode_params_typed_and_errors_keep_the_id() -> None:
    msg = decode_message(
        b'{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"e","arguments":{"x":1}}}'
    )
    assert type(msg) is Request
    assert decode_params(msg, ECHO_DECODER) == EchoParams(name="e", arguments={"x": 1})

    cases = [
        (b'{"name":5}', -32602),
        (b"{}", -32602),
        (b"[1,2]", -32602),
        (b'"text"', -32600),
        (b"null", -32600),
        (b"3", -32600),
    ]
    for params, code in cases:
        data = b'{"jsonrpc":"2.0","id":"r","method":"tools/call","params":' + params + b"}"
        bad = decode_message(data)
        assert type(bad) is Request
        with pytest.raises(RemoteProtocolError) as info:
            decode_params(bad, ECHO_DECODER)
        assert (info.value.code, info.value.request_id) == (code, "r"), params


def test_decode_params_absent_and_in_process_values() -> None:
    class Empty(msgspec.Struct):
        pass

    assert decode_params(Notification(method="x"), msgspec.json.Decoder(Empty)) == Empty()
    typed = EchoParams(name="n")
    assert decode_params(Request(id=1, method="m", params=typed), ECHO_DECODER) is typed
    as_dict = Request(id=1, method="m", params={"name": "n"})
    assert decode_params(as_dict, ECHO_DECODER) == typed


def test_decode_result() -> None:
    resp = decode_message(b'{"jsonrpc":"2.0","id":1,"result":{"name":"a"}}')
    assert type(resp) is Response
    assert decode_result(resp, ECHO_DECODER) == EchoParams(name="a")
    bad = decode_message(b'{"jsonrpc":"2.0","id":1,"result":{"name":1}}')
    assert type(bad) is Response
    with pytest.raises(RemoteProtocolError) as info:
        decode_result(bad, ECHO_DECODER)
    assert info.value.code == -32602 and info.value.request_id == 1
    assert decode_result(Response(id=1, result={"name": "b"}), ECHO_DECODER).name == "b"


# --- batches -------------------------------------------------------------------------------


def test_batch_split_and_encode() -> None:
    data = b' [{"jsonrpc":"2.0","id":1,"method":"ping"}, {"jsonrpc":"2.0","method":"n"}, 3]'
    assert is_batch(data)
    assert not is_batch(b'{"jsonrpc":"2.0"}')
    members = decode_batch(data)
    assert decode_message(members[0]) == Request(id=1, method="ping")
    assert decode_message(members[1]) == Notification(method="n")
    assert error_of(bytes(members[2])).code == -32600
    reply = encode_batch([Response(id=1, result={}), Response(id=2, result={})])
    assert json.loads(reply) == [
        {"jsonrpc": "2.0", "id": 1, "result": {}},
        {"jsonrpc": "2.0", "id": 2, "result": {}},
    ]


@pytest.mark.parametrize(
    ("data", "code"), [(b"[]", -32600), (b"[1,", -32700), (b"{}", -32600), (b"[" * 9999, -32700)]
)
def test_bad_batches(data: bytes, code: int) -> None:
    with pytest.raises(RemoteProtocolError) as info:
        decode_batch(data)
    assert info.value.code == code


# --- fuzz invariant ------------------------------------------------------------------------


@given(st.binary(max_size=300))
@settings(max_examples=500)
def test_arbitrary_bytes_give_a_message_or_a_protocol_error(data: bytes) -> None:
    try:
        decode_message(data)
    except RemoteProtocolError as exc:
        assert exc.code in (-32700, -32600)


@given(json_values)
@settings(max_examples=300)
def test_arbitrary_json_gives_a_message_or_invalid_request(value: Any) -> None:
    try:
        msg = decode_message(json.dumps(value).encode())
    except RemoteProtocolError as exc:
        assert exc.code == -32600
    else:
        assert isinstance(msg, Request | Notification | Response | ErrorResponse)


def test_invalid_utf8_inside_params_is_a_parse_error_with_the_id() -> None:
    msg = decode_message(b'{"jsonrpc":"2.0","id":3,"method":"m","params":{"name":"\xff"}}')
    assert type(msg) is Request
    with pytest.raises(RemoteProtocolError) as info:
        decode_params(msg, ECHO_DECODER)
    assert (info.value.code, info.value.request_id) == (-32700, 3)
    assert info.value.message.startswith("invalid JSON: invalid UTF-8 (byte 0xff at offset ")


def test_check_utf8_refuses_bad_bytes_wherever_they_are() -> None:
    # RFC 8259 section 8.1: JSON text is UTF-8, in the members msgspec skips or
    # keeps Raw too (issue 30 item 8: over HTTP such a request got 200 and an error
    # on its stream, where every other parse error gets 400).
    for params in (b'{"name":"\xff"}', b'{"unknown":"\xc3("}', b'{"_meta":{"a":["\xed\xa0\x80"]}}'):
        data = b'{"jsonrpc":"2.0","id":3,"method":"m","params":' + params + b"}"
        with pytest.raises(RemoteProtocolError) as info:
            check_utf8(data, decode_message(data))
        assert (info.value.code, info.value.request_id) == (-32700, 3)
        assert info.value.http_status == 400
        assert info.value.message.startswith("invalid JSON: invalid UTF-8 (byte 0x")
    # Not all ASCII, and valid: nothing to say.
    data = '{"jsonrpc":"2.0","id":3,"method":"m","params":{"name":"é😀"}}'.encode()
    check_utf8(data, decode_message(data))


@pytest.mark.parametrize(
    ("data", "code", "says"),
    [
        # msgspec: "Input data was truncated" or "unexpected end of hex escape".
        (rb'{"jsonrpc":"2.0","id":1,"method":"\ud800"}', -32700, "lone UTF-16 surrogate \\ud800"),
        (rb'{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":"x\udc00"}}', -32700, "\\udc00"),
        (rb'{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":"\ud83d"}}', -32700, "\\ud83d"),
        # msgspec: "a JSON-RPC message must be a JSON object".
        (
            b'{"jsonrpc":"2.0","id":1e999,"method":"ping"}',
            -32600,
            "Number out of range - at `$.id`",
        ),
        (
            b'{"jsonrpc":"2.0","id":1,"error":{"code":1e999,"message":"m"}}',
            -32600,
            "out of range - at `$.error",
        ),
        # The byte of the message, not of msgspec's string.
        (b'{"jsonrpc":"2.0","id":1,"method":"p\xffq"}', -32700, "byte 0xff at offset 35"),
    ],
    ids=["lone-high", "lone-low", "lone-in-params", "id-1e999", "code-1e999", "bad-utf8-method"],
)
def test_parse_errors_say_what_is_wrong(data: bytes, code: int, says: str) -> None:
    with pytest.raises(RemoteProtocolError) as info:
        decode_message(data)
    assert info.value.code == code and info.value.http_status == 400
    assert says in info.value.message, info.value.message
    assert "truncated" not in info.value.message and "JSON object" not in info.value.message


# The openers are counted with bytes.translate up to _TRANSLATE_MAX bytes and with
# bytes.find beyond it; both ways must give the same answers as the exact scan.
@pytest.mark.parametrize("padding", [0, 5000])
def test_many_shallow_openers_are_accepted(padding: int) -> None:
    siblings = ",".join(["{}"] * 300)  # 300 openers, three levels deep
    data = (
        '{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":['
        + siblings
        + '],"p":"'
        + "x" * padding
        + '"}}'
    ).encode()
    assert type(decode_message(data)) is Request


@pytest.mark.parametrize("padding", [0, 5000])
def test_one_level_past_the_limit_is_refused_at_any_size(padding: int) -> None:
    inner = 128 - 2  # the envelope and params are levels 1 and 2
    head = b'{"jsonrpc":"2.0","id":1,"method":"m","params":{"p":"' + b"x" * padding + b'","a":'
    at_limit = head + b"[" * inner + b"]" * inner + b"}}"
    assert type(decode_message(at_limit)) is Request
    past = head + b"[" * (inner + 1) + b"]" * (inner + 1) + b"}}"
    assert error_of(past).code == -32700


@given(json_values, st.integers(min_value=0, max_value=12))
@settings(max_examples=200)
def test_nesting_check_is_exact_past_the_translate_size(value: Any, limit: int) -> None:
    padded = [value, "x" * 5000]
    data = json.dumps(padded).encode()
    assert _nesting_exceeds(data, limit) == (depth_of(padded) > limit)


# --- the fast paths agree with the general ones ----------------------------------------
#
# decode_message reads a well-formed message with a strict envelope and checks its
# nesting after msgspec has parsed it (valid_nesting_exceeds); anything else takes
# _decode_loose, which checks the limits first. Bytes in, the same answer out.


def outcome(decode: Any, data: bytes, limits: Limits = DEFAULT_LIMITS) -> Any:
    try:
        return decode(data, limits)
    except RemoteProtocolError as exc:
        return (exc.code, exc.message, exc.request_id, exc.data, exc.http_status)


@given(json_values, st.integers(min_value=0, max_value=12), st.sampled_from([0, 5000, 70_000]))
@settings(max_examples=300)
def test_valid_nesting_check_agrees_with_the_general_one(
    value: Any, limit: int, padding: int
) -> None:
    padded = [value, "x" * padding] if padding else value
    data = json.dumps(padded).encode()
    expected = depth_of(padded) > limit
    assert valid_nesting_exceeds(data, limit) == _nesting_exceeds(data, limit) == expected


@pytest.mark.parametrize("inner", [60, 64, 100, 126, 127])
@pytest.mark.parametrize("text", ["", "[[[{{", '\\"]]}', "\\\\", '[\\\\"{'])
def test_valid_nesting_check_near_the_limit(inner: int, text: str) -> None:
    # Deep runs where the chunk bound gives up, and strings that hold brackets,
    # escaped quotes and escaped backslashes next to them.
    body = json.dumps([text] * 40 + [{"a": [text]}] * 40)
    data = ('{"p":' + body + ',"a":' + "[" * inner + json.dumps(text) + "]" * inner + "}").encode()
    depth = inner + 1
    for limit in (depth - 1, depth, 128):
        expected = depth > limit
        assert valid_nesting_exceeds(data, limit) == _nesting_exceeds(data, limit) == expected


envelope_keys = st.sampled_from(["jsonrpc", "id", "method", "params", "result", "error", "x"])
envelope_values = st.one_of(
    st.just("2.0"),
    st.just("1.0"),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.booleans(),
    st.none(),
    st.text(max_size=4),
    st.fixed_dictionaries({"code": st.integers(), "message": st.text(max_size=3)}),
    st.fixed_dictionaries({"code": st.text(max_size=2)}),
    json_values,
)


@given(st.dictionaries(envelope_keys, envelope_values, max_size=6))
@settings(max_examples=800)
def test_decode_message_agrees_with_the_loose_path(members: dict[str, Any]) -> None:
    data = json.dumps(members).encode()
    assert outcome(decode_message, data) == outcome(_decode_loose, data)
    tight = Limits(max_depth=3, max_message_bytes=len(data) + 1)
    assert outcome(decode_message, data, tight) == outcome(_decode_loose, data, tight)


@given(st.binary(max_size=300))
@settings(max_examples=300)
def test_decode_message_agrees_with_the_loose_path_on_any_bytes(data: bytes) -> None:
    assert outcome(decode_message, data) == outcome(_decode_loose, data)


@pytest.mark.parametrize(
    "member",
    [
        '"params":{"a":' + "[" * 200 + "]" * 200 + "}",
        '"result":' + "[" * 200 + "]" * 200,
        '"x":' + "[" * 200 + "]" * 200,
        '"id":' + "[" * 200 + "]" * 200,
        '"params":{"a":' + "[" * 200 + "]" * 199 + "}",
        '"params":{"a":' + "[" * 200 + "]" * 200 + "},,",
    ],
)
def test_too_deep_wins_over_every_other_error(member: str) -> None:
    for head in ('{"jsonrpc":"2.0","id":1,', '{"jsonrpc":"1.0","id":1,"result":1,"error":2,'):
        data = (head + member + "}").encode()
        assert outcome(decode_message, data)[:2] == (-32700, "JSON nested deeper than 128 levels")
