"""The shared-state rules of mcp_core.http.shared that need no backend: when a
stream has its response, and the error that ends one whose worker is gone."""

from __future__ import annotations

import json

import pytest

from mcp_core.http.server import HttpEndpoint
from mcp_core.http.shared import answers, lost_answer


@pytest.mark.parametrize("request_id", [7, "seven", ""])
def test_a_stream_is_answered_by_the_response_to_its_request_only(request_id: object) -> None:
    wanted = json.dumps(request_id).encode()
    progress = b'{"jsonrpc":"2.0","method":"notifications/progress","params":{}}'
    result = json.dumps({"jsonrpc": "2.0", "id": request_id, "result": {}}).encode()
    error = json.dumps(
        {"jsonrpc": "2.0", "id": request_id, "error": {"code": 1, "message": "no"}}
    ).encode()
    other = json.dumps({"jsonrpc": "2.0", "id": [request_id], "result": {}}).encode()
    assert not answers([], wanted)
    assert not answers([progress, b"not json", other], wanted)
    assert answers([progress, result], wanted)
    assert answers([error], wanted)
    # A request of the server with the same id is no answer.
    asked = json.dumps({"jsonrpc": "2.0", "id": request_id, "method": "ping"}).encode()
    assert not answers([asked], wanted)


def test_a_lost_answer_is_an_internal_error_for_its_request() -> None:
    lost = json.loads(lost_answer(b'"r-1"'))
    assert lost["jsonrpc"] == "2.0" and lost["id"] == "r-1"
    assert lost["error"]["code"] == -32603
    assert "may or may not have taken effect" in lost["error"]["message"]
    assert answers([lost_answer(b"3")], b"3")


def test_stream_ids_carry_the_endpoints_prefix() -> None:
    # Two processes serving one session never name two streams alike.
    for prefix in ("ab12cd.", ""):
        endpoint = HttpEndpoint(stream_prefix=prefix)
        endpoint.adopt("s", None, 0.0)
        session = endpoint.sessions["s"]
        assert [session.new_stream_id() for _ in range(2)] == [f"{prefix}1", f"{prefix}2"]
