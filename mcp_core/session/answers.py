# Reading a client's answers in one pass.
#
# A client knows the result type of every request it has out, so a response can be
# read with its result in one msgspec pass (wire/jsonrpc.py OnePassResponseDecoder)
# rather than an envelope pass with the result kept Raw and a second pass over the
# result (decode_message, then decode_result). Which request a response answers has
# to be known before decoding: its id is guessed from where compact encoders put it
# (wire/peek.py response_id_hint), and the decoded id is checked against the guess.
#
# Exactly what the two stages give, or the two stages themselves: a response read
# in one pass is handed on only if it answers the request whose result type read
# it, and its result is an ordinary (complete) one, which ClientSession._on_response
# takes as decode_result would have given it. Everything else (no guess, a wrong
# guess, an input_required or task result, anything the one-pass decoder refuses,
# which it refuses with decode_message's own error) is read by decode_message.
# tests/core/session/test_client_one_pass.py feeds both paths the same bytes.

from __future__ import annotations

from typing import Any, Final

import msgspec
from msgspec import UNSET, Raw

from ..wire.jsonrpc import Limits, Message, OnePassResponseDecoder, Response, decode_message
from ..wire.peek import response_id_hint
from .requests import _Pending

__all__ = ["ONE_PASS_FROM", "read_answer"]

ONE_PASS_FROM: Final = 512
"""Messages shorter than this (bytes) go straight to decode_message. The guess costs
~4,000 instructions (a regular expression match); reading in one pass saves ~2,000
on a 171-byte response and ~9 a byte more (callgrind, benchmarks/README.md "codec,
third pass"), so it pays from ~400 bytes on."""

_readers: dict[msgspec.json.Decoder[Any], OnePassResponseDecoder | None] = {}
_COMPLETE: Final = (UNSET, "complete")


def _reader(decoder: msgspec.json.Decoder[Any]) -> OnePassResponseDecoder | None:
    # One reader per result decoder (they are cached per type, types/methods.py), or
    # None where a result read in one pass would not be the one decode_result gives
    # back as it is: a type that is not a Struct (decode_result would re-read it),
    # or a decoder configured otherwise than the one-pass reader's.
    if decoder in _readers:
        return _readers[decoder]
    result_type = decoder.type
    usable = (
        isinstance(result_type, type)
        and issubclass(result_type, msgspec.Struct)
        and decoder.strict
        and decoder.dec_hook is None
        and decoder.float_hook is None
    )
    reader = OnePassResponseDecoder(result_type) if usable else None
    _readers[decoder] = reader
    return reader


def read_answer(pending: dict[Any, _Pending], data: bytes, limits: Limits) -> Message:
    """decode_message(data, limits), but a response to a request in ``pending`` may
    come with its result already typed by that request's result decoder."""
    if len(data) >= ONE_PASS_FROM:
        waiting = pending.get(response_id_hint(data))
        reader = None if waiting is None else _reader(waiting.decoder)
        if reader is not None:
            message = reader.decode(data, limits)
            if type(message) is not Response or type(message.result) is Raw:
                return message  # decode_message's own answer
            if (
                pending.get(message.id) is waiting
                and getattr(message.result, "result_type", UNSET) in _COMPLETE
            ):
                return message
    return decode_message(data, limits)
