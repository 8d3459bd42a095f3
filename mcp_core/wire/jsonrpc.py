# The JSON-RPC 2.0 envelope and its codec.
#
# Theory of operation. MCP messages are JSON-RPC 2.0 requests, notifications and
# responses (MCP basic/index.mdx "Messages" in every revision). Decoding happens in
# two stages so that routing a message costs one pass over its bytes:
#
#   1. decode_message(bytes) reads the envelope only. ``params`` and ``result`` stay
#      msgspec.Raw (a view of the original bytes), so a message that is only routed
#      or forwarded is never decoded twice.
#   2. decode_params(request, decoder) / decode_result(...) turn the Raw into the
#      typed value for that method, on demand, and a failure there still knows the
#      request id, so the error reply can echo it.
#
# The four message kinds below are both what we send and what we receive (h11's
# symmetric events). They are msgspec Structs tagged ``jsonrpc: "2.0"``, so the tag
# is always written and they encode to the wire shape directly.
#
# Limits. The size limit is checked before msgspec sees the bytes. msgspec recurses
# on nested arrays and objects and raises RecursionError at a depth that depends on
# the caller's stack; we refuse anything nested deeper than ``max_depth`` with a
# clean -32700 instead, decided from the bytes alone (wire/nesting.py), so the answer is
# the same wherever the codec is called from. A well-formed message is parsed first
# and its nesting checked after, only where it is long enough to be too deep:
# parsed text is known to be JSON, which makes the check cheaper, and a message too
# deep for the stack raises RecursionError instead, which, like every other
# failure, goes the slow path that checks the limits first. Either way the
# nesting error wins over every other.
#
# UTF-8. JSON text is UTF-8 (RFC 8259 section 8.1), but msgspec checks only the
# strings it decodes, not the ones it skips or keeps Raw: invalid UTF-8 in params
# is found by decode_params, with the id. A transport that must refuse a message
# before serving it (HTTP: 400, as any other parse error) calls `check_utf8` too;
# the decoders leave it out, as it would cost every message a scan (~2.5% of the
# one-pass decode of a tools/call, callgrind). Error messages say what is wrong in
# words (a lone UTF-16 surrogate escape, a number out of range), not msgspec's
# guess at it.

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final, Literal, Protocol, TypeVar, Union

import msgspec
from msgspec import UNSET, Raw, UnsetType

from .errors import (
    INVALID_PARAMS,
    INVALID_REQUEST,
    PARSE_ERROR,
    RemoteProtocolError,
)
from .nesting import nesting_exceeds, valid_nesting_exceeds

__all__ = [
    "RequestId",
    "ErrorObject",
    "Request",
    "Notification",
    "Response",
    "ErrorResponse",
    "Message",
    "Limits",
    "DEFAULT_LIMITS",
    "decode_message",
    "check_utf8",
    "OnePassDecoder",
    "OnePassResponseDecoder",
    "decode_batch",
    "is_batch",
    "decode_params",
    "decode_result",
    "encode_message",
    "encode_batch",
    "error_reply",
]

RequestId = int | str
"""A JSON-RPC id as MCP allows it: an int or a string, never null (basic/index.mdx)."""

_T = TypeVar("_T")


class ErrorObject(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """The ``error`` member of an error response (JSON-RPC 2.0 section 5.1)."""

    code: int
    message: str
    data: Any = UNSET


class Request(
    msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True, tag_field="jsonrpc", tag="2.0"
):
    """A request: expects exactly one response with the same id.

    On receipt ``params`` is a msgspec.Raw (or UNSET); when sending it may be any
    encodable value: a Struct, a dict, or a Raw passed through untouched.
    """

    id: RequestId
    method: str
    params: Any = UNSET


class Notification(
    msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True, tag_field="jsonrpc", tag="2.0"
):
    """A notification: a request without an id, which is never answered."""

    method: str
    params: Any = UNSET


class Response(
    msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True, tag_field="jsonrpc", tag="2.0"
):
    """A successful response. On receipt ``result`` is a msgspec.Raw."""

    id: RequestId
    result: Any


class ErrorResponse(
    msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True, tag_field="jsonrpc", tag="2.0"
):
    """An error response. ``id`` is None only when the request's id was unreadable."""

    id: RequestId | None
    error: ErrorObject


Message = Request | Notification | Response | ErrorResponse
"""Any one JSON-RPC message."""


class Limits(msgspec.Struct, frozen=True, kw_only=True):
    """Limits on what a peer can make us hold: every incoming message is checked
    against the first two before it is parsed, every incoming request against the
    third before it is admitted.

    Attributes:
        max_message_bytes: larger messages are refused with -32600. 16 MiB leaves
            room for base64 images and audio in results (a 10 MiB file is ~13.4 MiB
            of base64) while bounding what one peer can make us hold.
        max_depth: arrays and objects nested deeper are refused with -32700. 128 is
            serde_json's default recursion limit; MCP payloads (JSON Schemas
            included) stay far below it, and it sits far below the depth at which
            msgspec runs out of stack.
        max_requests_in_flight: requests of the peer's that a session holds
            unanswered at once; one more is refused at once with -32603 and never
            reaches the application (the session goes on). Requests the core
            answers itself (ping, initialize, logging/setLevel, server/discover)
            are never refused. 4096: every request in flight holds a handler
            task, its params and a cancel scope in the runtime, and this bounds
            that for a peer that sends without waiting for answers. The figure is
            four times the runtime's default handler concurrency (1024, in
            transports), so an honest burst queues for a free handler rather than
            being refused. For comparison, HTTP/2 servers commonly allow 100 to
            250 concurrent streams per connection (RFC 9113 section 6.5.2
            recommends no fewer than 100), and an MCP request holds more than a
            stream does.
    """

    max_message_bytes: int = 16 * 1024 * 1024
    max_depth: int = 128
    max_requests_in_flight: int = 4096


DEFAULT_LIMITS: Final = Limits()
"""The limits used when none are given."""


class _Envelope(msgspec.Struct, gc=False):
    # The envelope of a well-formed message, which is nearly every message: each
    # member typed as a valid message has it, so msgspec checks the types in C.
    # Anything that does not fit is read again by _LooseEnvelope for the precise
    # error. gc=False: the members are str/int/Raw or an ErrorObject of plain JSON
    # data, which cannot form a reference cycle through this object; it saves
    # ~15 ns a message (benchmarks/codec.py).
    jsonrpc: Literal["2.0"]
    id: int | str | UnsetType | None = UNSET
    method: str | UnsetType = UNSET
    params: Raw | UnsetType = UNSET
    result: Raw | UnsetType = UNSET
    error: ErrorObject | UnsetType = UNSET


class _LooseEnvelope(msgspec.Struct, gc=False):
    # Deliberately loose: every member is read as whatever JSON it holds, so that a
    # bad ``method`` or ``jsonrpc`` never hides a readable id from the error reply.
    jsonrpc: Any = UNSET
    id: Any = UNSET
    method: Any = UNSET
    params: Raw | UnsetType = UNSET
    result: Raw | UnsetType = UNSET
    error: Any = UNSET


_envelope_decoder: Final = msgspec.json.Decoder(_Envelope)
_loose_decoder: Final = msgspec.json.Decoder(_LooseEnvelope)
_batch_decoder: Final = msgspec.json.Decoder(list[Raw])
_encoder: Final = msgspec.json.Encoder()
_WHITESPACE: Final = b" \t\r\n"


def _check_limits(data: bytes, limits: Limits) -> None:
    if len(data) > limits.max_message_bytes:
        raise RemoteProtocolError(
            f"message of {len(data)} bytes exceeds the limit of {limits.max_message_bytes} bytes",
            INVALID_REQUEST,
            http_status=413,
        )
    if nesting_exceeds(data, limits.max_depth):
        raise RemoteProtocolError(f"JSON nested deeper than {limits.max_depth} levels", PARSE_ERROR)


def is_batch(data: bytes) -> bool:
    """Whether ``data`` holds a JSON array (a JSON-RPC batch) rather than one message."""
    return data.lstrip(_WHITESPACE)[:1] == b"["


def _readable_id(value: Any) -> RequestId | None:
    # bool is a subclass of int in Python but not a JSON-RPC id.
    if type(value) is int or type(value) is str:
        return value
    return None


def _invalid(message: str, request_id: RequestId | None = None) -> RemoteProtocolError:
    return RemoteProtocolError(message, INVALID_REQUEST, request_id=request_id)


# A \uD800-\uDFFF escape that is not half of a pair (its backslash not escaped).
_LONE_SURROGATE: Final = re.compile(
    rb"(?<!\\)(?:\\\\)*(\\u[dD][89abAB][0-9a-fA-F]{2}(?!\\u[dD][c-fC-F][0-9a-fA-F]{2})"
    rb"|(?<!\\u[dD][89abAB][0-9a-fA-F]{2})\\u[dD][c-fC-F][0-9a-fA-F]{2})"
)


def _parse_error(
    raw: bytes, exc: Exception, request_id: RequestId | None = None
) -> RemoteProtocolError:
    # -32700 in words: msgspec says "Input data was truncated" for a lone
    # surrogate, and Python's codec error names no message.
    if isinstance(exc, UnicodeDecodeError):
        try:
            raw.decode()  # msgspec's error counts from the start of its string
        except UnicodeDecodeError as whole:
            exc = whole
        what = f"invalid UTF-8 (byte 0x{raw[exc.start]:02x} at offset {exc.start})"
    else:
        lone = _LONE_SURROGATE.search(raw)
        if lone is not None:
            escape = lone.group(1).decode("ascii")
            what = f"a lone UTF-16 surrogate {escape} at offset {lone.start(1)}, no character"
        else:
            what = str(exc)
    return RemoteProtocolError(f"invalid JSON: {what}", PARSE_ERROR, request_id=request_id)


def check_utf8(data: bytes, message: Message) -> None:
    """Refuse the bytes of a decoded ``message`` that are not all UTF-8, wherever
    the bad bytes are (see "UTF-8" above).

    Raises:
        RemoteProtocolError: -32700 with the message's id (the request's, when
            it is one).
    """
    if data.isascii():
        return
    try:
        data.decode()
    except UnicodeDecodeError as exc:
        request_id = None if isinstance(message, Notification) else message.id
        raise _parse_error(data, exc, _readable_id(request_id)) from None


def decode_message(data: bytes | Raw, limits: Limits = DEFAULT_LIMITS) -> Message:
    """Decode one JSON-RPC message, leaving ``params`` and ``result`` as Raw.

    Args:
        data: the UTF-8 JSON text of exactly one message.
        limits: size and nesting limits to enforce before parsing.

    Returns:
        A Request, Notification, Response or ErrorResponse.

    Raises:
        RemoteProtocolError: with ``code`` -32700 for bytes that are not JSON (or
            nested too deep), -32600 for JSON that is not a valid message, a batch,
            or a message over the size limit. ``request_id`` holds the offending
            id when it could be read. Nothing is kept between calls.
    """
    raw = data if type(data) is bytes else bytes(data)
    size = len(raw)
    if size > limits.max_message_bytes:
        _check_limits(raw, limits)
    try:
        env = _envelope_decoder.decode(raw)
    except (msgspec.DecodeError, UnicodeDecodeError, RecursionError):
        # Not a well-formed message (ValidationError is a DecodeError): the slow
        # path says precisely what is wrong.
        return _decode_loose(raw, limits)
    # The nesting limit, checked once msgspec has parsed the text, which it did
    # without error: were the text too deep for the stack, it would have raised
    # RecursionError and gone the slow path, which checks the limit first. So a
    # message past the limit gets the same answer either way, decided from its
    # bytes. A member nested max_depth deep (the message one more) takes at least
    # 2 * max_depth bytes, so most messages need no scan: a 2026-07-28 request
    # with its _meta envelope is ~300 bytes, its params fewer than 256.
    max_depth = limits.max_depth
    if size > 2 * max_depth:
        params = env.params
        result = env.result
        inner = len(params) if params is not UNSET else 0
        inner_result = len(result) if result is not UNSET else 0
        least = 2 * max_depth
        if (
            inner >= least or inner_result >= least or size - inner - inner_result >= least
        ) and valid_nesting_exceeds(raw, max_depth):
            raise RemoteProtocolError(f"JSON nested deeper than {max_depth} levels", PARSE_ERROR)
    # The well-formed kinds, in the order _decode_loose tells them apart.
    method = env.method
    msg_id = env.id
    if method is not UNSET:
        if msg_id is UNSET:
            return Notification(method=method, params=env.params)
        if msg_id is not None:
            return Request(id=msg_id, method=method, params=env.params)
    elif env.result is not UNSET:
        if msg_id is not None and msg_id is not UNSET and env.error is UNSET:
            return Response(id=msg_id, result=env.result)
    elif env.error is not UNSET and msg_id is not UNSET:
        return ErrorResponse(id=msg_id, error=env.error)
    return _decode_loose(raw, limits)


def _decode_loose(raw: bytes, limits: Limits) -> Message:
    # Every check in the order of precedence of the errors: the limits first, then
    # the JSON, then the members one by one.
    _check_limits(raw, limits)
    try:
        env = _loose_decoder.decode(raw)
    except msgspec.ValidationError as exc:
        if is_batch(raw):
            raise _invalid("a batch (JSON array) is not allowed here") from None
        if raw.lstrip(_WHITESPACE)[:1] == b"{":
            # An object with a member msgspec cannot hold: a number out of range
            # (1e999), whose place the error names.
            raise _invalid(f"unreadable member: {exc}") from None
        raise _invalid("a JSON-RPC message must be a JSON object") from None
    except (msgspec.DecodeError, UnicodeDecodeError) as exc:
        raise _parse_error(raw, exc) from None
    except RecursionError:  # only reachable when max_depth is set very high
        raise RemoteProtocolError("JSON nested too deeply", PARSE_ERROR) from None

    method = env.method
    msg_id = env.id
    if env.jsonrpc != "2.0":
        raise _invalid('"jsonrpc" must be exactly "2.0"', _readable_id(msg_id))
    if method is not UNSET:
        if type(method) is not str:
            raise _invalid('"method" must be a string', _readable_id(msg_id))
        if msg_id is UNSET:
            return Notification(method=method, params=env.params)
        if type(msg_id) is int or type(msg_id) is str:
            return Request(id=msg_id, method=method, params=env.params)
        raise _invalid('a request "id" must be an integer or a string')
    if env.result is not UNSET:
        if env.error is not UNSET:
            raise _invalid('a response has either "result" or "error", not both')
        if type(msg_id) is int or type(msg_id) is str:
            return Response(id=msg_id, result=env.result)
        raise _invalid('a response "id" must be an integer or a string')
    if env.error is not UNSET:
        if msg_id is not None and type(msg_id) is not int and type(msg_id) is not str:
            raise _invalid('an error response "id" must be an integer, a string or null')
        try:
            error = msgspec.convert(env.error, ErrorObject)
        except msgspec.ValidationError as exc:
            raise _invalid(f"malformed error object: {exc}", _readable_id(msg_id)) from None
        return ErrorResponse(id=msg_id, error=error)
    raise _invalid('a message needs "method", "result" or "error"', _readable_id(msg_id))


# --- one pass --------------------------------------------------------------------------
#
# decode_message leaves params Raw, and the typed decode reads them again: two scans
# of every message. Where the caller knows the params type of every method it
# expects, one msgspec decode of a tagged union keyed on ``method`` reads the
# envelope and the params together. It is used only where it gives what the two
# stages give: any failure (an unknown method, a bad member, a duplicate ``method``,
# params of the wrong shape, a limit) goes to decode_message, so a message it does
# not read is read exactly as before and refused with the same error; a message it
# does read is one the two stages accept, as the same Request or Notification with
# the params decode_params would have returned (decode_params hands params of its
# own type back as they are). tests/core/wire/test_one_pass.py checks both on
# arbitrary input.

# The shortest message holding a member ``D`` besides its envelope is the
# notification {"jsonrpc":"2.0","method":"M","":D}: 33 bytes and the method's.
_ENVELOPE_BYTES: Final = 33


def _typed_message(method: str, params_type: Any, request: bool) -> type[Any]:
    # A request needs an id (else it is a notification); a notification must have
    # none (else it is a request), so its id is read to see that it is absent.
    id_type: Any = (int | str) if request else (Raw | UnsetType)
    fields: list[Any] = [("jsonrpc", Literal["2.0"])]
    fields.append(("id", id_type) if request else ("id", id_type, UNSET))
    fields.append(("params", params_type | UnsetType, UNSET))
    return msgspec.defstruct("OnePassMessage", fields, tag_field="method", tag=method, kw_only=True)


class _Decode(Protocol):
    def __call__(self, data: bytes | Raw, limits: Limits = ...) -> Message: ...


class OnePassDecoder:
    """Decode a message and, for the methods it is given, its params in one pass.

    Args:
        requests: method -> params type, for methods sent as requests.
        notifications: method -> params type, for methods sent as notifications.

    ``decode(data, limits=DEFAULT_LIMITS)`` returns what ``decode_message`` returns,
    except that a request or notification of a method given here carries its params
    already typed (or UNSET when absent), which ``decode_params`` with that type
    hands back as they are. It raises what decode_message raises for the same bytes.

    For a peer that receives requests and notifications mostly (a server): anything
    else is read twice, the union's failed attempt and decode_message (a response
    of 40 KB: ~1.5x decode_message alone).
    """

    __slots__ = ("decode",)

    def __init__(
        self, requests: Mapping[str, Any], notifications: Mapping[str, Any] | None = None
    ) -> None:
        members: list[Any] = []
        # member -> (is a request, method): one lookup tells both.
        kinds: dict[type[Any], tuple[bool, str]] = {}
        for method, params_type in requests.items():
            member = _typed_message(method, params_type, request=True)
            kinds[member] = (True, method)
            members.append(member)
        for method, params_type in (notifications or {}).items():
            member = _typed_message(method, params_type, request=False)
            kinds[member] = (False, method)
            members.append(member)
        union = msgspec.json.Decoder(Union[tuple(members)])  # noqa: UP007
        self.decode: _Decode = _one_pass(union, kinds)


def _one_pass(
    union: msgspec.json.Decoder[Any], kinds: dict[type[Any], tuple[bool, str]]
) -> _Decode:
    # A closure rather than a method: ~360 instructions less a message (of
    # ~11,700, callgrind; benchmarks/README.md "codec, third pass").
    fallback = decode_message
    unset = UNSET
    failures = (msgspec.DecodeError, UnicodeDecodeError, RecursionError)

    def decode(data: bytes | Raw, limits: Limits = DEFAULT_LIMITS) -> Message:
        if type(data) is not bytes:
            data = bytes(data)
        if len(data) > limits.max_message_bytes:
            return fallback(data, limits)
        try:
            typed = union.decode(data)
        except failures:
            return fallback(data, limits)
        request, method = kinds[type(typed)]
        if request:
            message: Message = Request(id=typed.id, method=method, params=typed.params)
        elif typed.id is unset:
            message = Notification(method=method, params=typed.params)
        else:
            return fallback(data, limits)
        # The nesting limit, as decode_message has it: a message past it has a
        # member max_depth deep, which takes 2 * max_depth bytes besides the
        # envelope around it.
        max_depth = limits.max_depth
        if len(data) >= 2 * max_depth + _ENVELOPE_BYTES and valid_nesting_exceeds(data, max_depth):
            return fallback(data, limits)
        return message

    return decode


# The shortest response around a member ``D``: {"jsonrpc":"2.0","id":0,"result":D}
# or {"jsonrpc":"2.0","id":0,"result":0,"":D}, 34 bytes either way at least.
_RESPONSE_ENVELOPE_BYTES: Final = 34


class OnePassResponseDecoder:
    """Decode a response and its result, of a type known up front, in one pass.

    A client knows the result type of each request it sent; once it knows which
    request a response answers (`mcp_core.wire.peek.answer_id`, or one request in
    flight), this reads the response and its result together. ``decode`` returns
    what ``decode_message`` returns, except that a response carries its result
    already typed, which ``decode_result`` with that type hands back as it is.
    Anything it cannot read that way goes to decode_message, as OnePassDecoder's.
    """

    __slots__ = ("_decoder",)

    def __init__(self, result_type: Any) -> None:
        # No other member: with ``method`` or ``error`` the two stages give a
        # request or a refusal, never this response, and a response has no other
        # members (JSON-RPC 2.0 section 5), so any is left to decode_message. msgspec
        # refuses them as it meets them, which is ~390 instructions cheaper on a
        # small result than reading ``method`` and ``error`` to see them absent.
        message = msgspec.defstruct(
            "OnePassResponse",
            [("jsonrpc", Literal["2.0"]), ("id", int | str), ("result", result_type)],
            kw_only=True,
            forbid_unknown_fields=True,
        )
        self._decoder: msgspec.json.Decoder[Any] = msgspec.json.Decoder(message)

    def decode(self, data: bytes | Raw, limits: Limits = DEFAULT_LIMITS) -> Message:
        """Decode one message as decode_message does, typing a response's result.

        Raises:
            RemoteProtocolError: what decode_message raises for the same bytes.
        """
        size = len(data)
        if size > limits.max_message_bytes:
            return decode_message(data, limits)
        try:
            typed = self._decoder.decode(data)
        except (msgspec.DecodeError, UnicodeDecodeError, RecursionError):
            return decode_message(data, limits)
        max_depth = limits.max_depth
        if size >= 2 * max_depth + _RESPONSE_ENVELOPE_BYTES and valid_nesting_exceeds(
            bytes(data), max_depth
        ):
            return decode_message(data, limits)
        return Response(id=typed.id, result=typed.result)


def decode_batch(data: bytes, limits: Limits = DEFAULT_LIMITS) -> list[Raw]:
    """Split a JSON-RPC batch into its members, each to go through decode_message.

    Only revision 2025-03-26 allows batches (its basic/index.mdx "Batching"); the
    caller decides whether the negotiated revision does.

    Raises:
        RemoteProtocolError: -32700 for bytes that are not JSON, -32600 when the
            array is empty or the data is not an array (JSON-RPC 2.0 section 6).
    """
    _check_limits(data, limits)
    try:
        members = _batch_decoder.decode(data)
    except msgspec.ValidationError:
        raise _invalid("a batch must be a JSON array") from None
    except (msgspec.DecodeError, UnicodeDecodeError) as exc:
        raise _parse_error(data, exc) from None
    except RecursionError:
        raise RemoteProtocolError("JSON nested too deeply", PARSE_ERROR) from None
    if not members:
        raise _invalid("an empty batch is not a valid request")
    return members


def _decode_payload(
    raw: Any, decoder: msgspec.json.Decoder[_T], request_id: RequestId | None, what: str
) -> _T:
    try:
        return decoder.decode(raw)
    except msgspec.ValidationError as exc:
        body = bytes(raw).lstrip(_WHITESPACE)[:1]
        if what == "params" and body not in (b"{", b"["):
            # JSON-RPC 2.0 section 4.2: params, when present, is an object or array.
            raise _invalid('"params" must be an object', request_id) from None
        raise RemoteProtocolError(
            f"invalid {what}: {exc}", INVALID_PARAMS, request_id=request_id
        ) from None
    except (msgspec.DecodeError, UnicodeDecodeError) as exc:
        # The envelope pass skips over Raw members without checking their strings.
        raise _parse_error(bytes(raw), exc, request_id) from None


_EMPTY_OBJECT: Final = Raw(b"{}")


def decode_params(message: Request | Notification, decoder: msgspec.json.Decoder[_T]) -> _T:
    """Decode a message's ``params`` with a typed decoder (absent params read as ``{}``).

    Raises:
        RemoteProtocolError: -32602 when the params do not fit the type, -32600 when
            they are not a JSON object at all; ``request_id`` is the request's id.
    """
    params = message.params
    # Params of the decoder's own type are handed over as they are: the one-pass
    # decoders' (read off the wire with that type), or a message built in this
    # process (the in-memory message mode). First, as that is the common case.
    if type(params) is decoder.type:
        return params
    if type(params) is Raw:
        try:
            return decoder.decode(params)
        except (msgspec.DecodeError, UnicodeDecodeError):
            pass  # the slow path below says precisely what is wrong
    elif params is UNSET:
        params = _EMPTY_OBJECT
    else:
        # Anything else goes through the codec, so both modes accept the same inputs.
        params = Raw(_encoder.encode(params))
    request_id = message.id if type(message) is Request else None
    return _decode_payload(params, decoder, request_id, "params")


def decode_result(response: Response, decoder: msgspec.json.Decoder[_T]) -> _T:
    """Decode a response's ``result`` with a typed decoder.

    Raises:
        RemoteProtocolError: -32602 when the result does not fit the expected type.
    """
    result = response.result
    if type(result) is decoder.type:  # as decode_params
        return result
    if type(result) is Raw:
        try:
            return decoder.decode(result)
        except (msgspec.DecodeError, UnicodeDecodeError):
            pass  # the slow path below says precisely what is wrong
    else:
        result = Raw(_encoder.encode(result))
    return _decode_payload(result, decoder, response.id, "result")


if TYPE_CHECKING:

    def encode_message(message: Message) -> bytes:
        """Encode one message to compact JSON bytes (no trailing newline)."""
        ...

else:
    # The encoder's own method: a Python function around it would cost a call
    # (~50 ns) on every message sent.
    encode_message = _encoder.encode


def encode_batch(messages: list[Message]) -> bytes:
    """Encode a list of messages as one JSON array (the reply to a batch)."""
    return _encoder.encode(messages)


def error_reply(error: RemoteProtocolError) -> ErrorResponse:
    """The error response that answers the message that raised ``error``."""
    data = error.data if error.data is not None else UNSET
    return ErrorResponse(
        id=error.request_id,
        error=ErrorObject(code=error.code, message=error.message, data=data),
    )
