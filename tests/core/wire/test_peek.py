"""`answer_id`: the id of an answer, from the first bytes of a line too long to read."""

from __future__ import annotations

import pytest

from mcp_core.wire import Response, encode_message
from mcp_core.wire.peek import answer_id, response_id_hint


@pytest.mark.parametrize(
    ("head", "expected"),
    [
        (encode_message(Response(id=7, result={"text": "x" * 500}))[:100], 7),
        (encode_message(Response(id='a"b', result={}))[:40], 'a"b'),
        (b' { "id" : -3 , "jsonrpc" : "2.0" , "error" : {"code"', -3),
        (b'{"jsonrpc":"2.0","id":"\\u00e9","result":[1,', "\u00e9"),
        # What cannot be told: None.
        (b'{"jsonrpc":"2.0","result":{"x":1},"id":7}', None),  # the id comes last
        (b'{"jsonrpc":"2.0","id":7,"method":"ping","params":{', None),  # a request
        (b'{"jsonrpc":"2.0","method":"notifications/message"', None),
        (b'{"jsonrpc":"2.0","id":1.5,"result":1', None),  # not an id
        (b'{"jsonrpc":"2.0","id":true,"result":1', None),
        (b'{"jsonrpc":"2.0","id":null,"error":{', None),
        (b'{"jsonrpc":"2.0","id":7', None),  # the head ends first
        (b'{"jsonrpc":"2.0","meta":{"id":7},"id":', None),  # nested: not looked into
        (b'[{"jsonrpc":"2.0","id":7,"result":1}', None),  # a batch
        (b"garbage", None),
        (b"", None),
        (b'{"a":1,' * 20 + b'"id":1,"result":1', None),  # too many members first
    ],
)
def test_answer_id(head: bytes, expected: object) -> None:
    assert answer_id(head) == expected


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (encode_message(Response(id=7, result={"content": []})), 7),  # ours
        (b'{"result":{"content":[]},"jsonrpc":"2.0","id":12}', 12),  # the TypeScript SDK's
        (b'{"result":{},"jsonrpc":"2.0","id":0}\n', 0),
        (b'{"jsonrpc":"2.0","id":123456789012345678,"result":1}', 123456789012345678),
        # Anything else: None (the two-stage read follows).
        (b'{"jsonrpc": "2.0", "id": 7, "result": 1}', None),
        (b'{"jsonrpc":"2.0","id":"7","result":1}', None),
        (b'{"jsonrpc":"2.0","id":-7,"result":1}', None),
        (b'{"jsonrpc":"2.0","id":07,"result":1}', None),
        (b'{"jsonrpc":"2.0","id":7,"error":{"code":1,"message":""}}', None),
        (b'{"jsonrpc":"2.0","id":7,"method":"ping"}', None),
        (b'{"jsonrpc":"2.0","method":"x","params":{"jsonrpc":"2.0","id":7}}', None),
        (b'{"id":7,"jsonrpc":"2.0","result":1}', None),
        (b"", None),
    ],
)
def test_response_id_hint(data: bytes, expected: object) -> None:
    assert response_id_hint(data) == expected
