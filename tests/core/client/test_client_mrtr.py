"""The 2026-07-28 multi round-trip retry loop of one call, without I/O (InputRounds)."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest
from msgspec import UNSET

from mcp_core.client import MAX_INPUT_ROUNDS, Callbacks, InputRounds, requests
from mcp_core.server import McpError, UrlElicitationRequiredError
from mcp_core.types import (
    CallToolRequestParams,
    CreateMessageRequest,
    ElicitRequest,
    ElicitResult,
    InputRequiredResult,
    ListRootsRequest,
    Root,
)
from mcp_core.wire import INTERNAL_ERROR, METHOD_NOT_FOUND, URL_ELICITATION_REQUIRED

# An InputRequiredResult as a server sends it (2026-07-28 basic/patterns/mrtr.mdx).
ASKING = b"""{
  "resultType": "input_required",
  "inputRequests": {
    "github_login": {
      "method": "elicitation/create",
      "params": {
        "mode": "form",
        "message": "Please provide your GitHub username",
        "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}},
                            "required": ["name"]}
      }
    },
    "where": {"method": "roots/list"}
  },
  "requestState": "AEAD-protected blob"
}"""


def decode(data: bytes) -> InputRequiredResult:
    return msgspec.json.decode(data, type=InputRequiredResult)


def run(callbacks: Callbacks, asks: Any) -> dict[str, Any]:
    # What the adapter does with each ask, minus the await.
    answers = {}
    for key, ask in asks.items():
        reply = callbacks.answer_input(ask)
        answers[key] = reply.finish(reply.callback(*reply.args))
    return answers


def test_retry_answers_every_input_request_and_echoes_the_state() -> None:
    call = requests.call_tool("deploy", {"branch": "main"})
    rounds = InputRounds(call)
    asks = rounds.input_required(decode(ASKING))
    assert set(asks) == {"github_login", "where"}
    assert isinstance(asks["github_login"], ElicitRequest)
    assert isinstance(asks["where"], ListRootsRequest)
    callbacks = Callbacks(
        elicitation=lambda params: {"action": "accept", "content": {"name": "octocat"}},
        roots=lambda: [Root(uri="file:///repo")],
    )
    retry = rounds.retry(run(callbacks, asks))
    assert retry.method == "tools/call" and retry.result_type is call.result_type
    # The original request, untouched, plus the answers under the server's keys.
    assert retry.params.name == "deploy" and retry.params.arguments == {"branch": "main"}
    assert retry.params.request_state == "AEAD-protected blob"
    assert retry.params.input_responses == {
        "github_login": {"action": "accept", "content": {"name": "octocat"}},
        "where": {"roots": [{"uri": "file:///repo"}]},
    }
    assert call.params.input_responses is UNSET and call.params.request_state is UNSET
    wire = msgspec.json.decode(msgspec.json.encode(retry.params))
    assert wire["requestState"] == "AEAD-protected blob"
    assert set(wire["inputResponses"]) == {"github_login", "where"}


def test_no_request_state_means_none_in_the_retry() -> None:
    # mrtr.mdx: "If the InputRequiredResult does not contain a requestState field,
    # the client MUST NOT include one in the retry."
    rounds = InputRounds(requests.get_prompt("greet"))
    asks = rounds.input_required(
        decode(
            b'{"inputRequests": {"s": {"method": "sampling/createMessage", "params": '
            b'{"messages": [], "maxTokens": 5}}}}'
        )
    )
    assert isinstance(asks["s"], CreateMessageRequest)
    retry = rounds.retry(
        {"s": {"role": "assistant", "model": "m", "content": {"type": "text", "text": "hi"}}}
    )
    assert retry.params.request_state is UNSET
    assert "requestState" not in msgspec.json.decode(msgspec.json.encode(retry.params))


def test_state_only_retries_at_once_with_no_input_responses() -> None:
    rounds = InputRounds(requests.read_resource("file:///a"))
    asks = rounds.input_required(decode(b'{"requestState": "s1"}'))
    assert asks == {}
    retry = rounds.retry({})
    assert retry.params.input_responses is UNSET and retry.params.request_state == "s1"


def test_each_round_echoes_the_latest_state() -> None:
    rounds = InputRounds(requests.call_tool("t"))
    rounds.input_required(decode(b'{"requestState": "first"}'))
    assert rounds.retry({}).params.request_state == "first"
    rounds.input_required(decode(b'{"requestState": "second"}'))
    retry = rounds.retry({})
    assert retry.params.request_state == "second"
    # Every retry is built from the original call, never from an earlier retry.
    assert isinstance(retry.params, CallToolRequestParams) and retry.params.name == "t"


def test_a_server_that_never_settles_is_given_up_on() -> None:
    rounds = InputRounds(requests.call_tool("loop"))
    for _ in range(MAX_INPUT_ROUNDS):
        rounds.input_required(decode(b'{"requestState": "again"}'))
        rounds.retry({})
    with pytest.raises(McpError) as caught:
        rounds.input_required(decode(b'{"requestState": "again"}'))
    assert caught.value.code == INTERNAL_ERROR
    assert "tools/call still needs input after 32 rounds" in caught.value.message


def url_asked(url: str) -> bytes:
    ask = {"method": "elicitation/create", "params": {"mode": "url", "message": "m", "url": url}}
    return msgspec.json.encode({"inputRequests": {"connect": ask}, "requestState": "s"})


def test_urls_are_opened_in_one_round_of_a_call_only() -> None:
    # 2026-07-28 client/elicitation.mdx "URL Mode Elicitation Requests": "accept" is
    # consent, the interaction is out of band; asked again, the user has not done
    # it yet: the call ends with -32042 instead of opening the URL again.
    rounds = InputRounds(requests.call_tool("files"))
    (ask,) = rounds.input_required(decode(url_asked("https://a.example/1"))).values()
    assert isinstance(ask, ElicitRequest)
    rounds.retry({"connect": ElicitResult(action="accept")})
    # Form rounds in between are answered as ever.
    assert set(rounds.input_required(decode(ASKING))) == {"github_login", "where"}
    rounds.retry({})
    with pytest.raises(UrlElicitationRequiredError) as caught:
        rounds.input_required(decode(url_asked("https://a.example/2")))
    assert caught.value.code == URL_ELICITATION_REQUIRED
    assert [e.url for e in caught.value.elicitations] == ["https://a.example/2"]
    assert "tools/call still needs the user to complete a URL elicitation" in str(caught.value)


def test_max_rounds_is_a_parameter() -> None:
    rounds = InputRounds(requests.call_tool("t"), max_rounds=1)
    rounds.input_required(decode(b'{"requestState": "x"}'))
    with pytest.raises(McpError):
        rounds.input_required(decode(b'{"requestState": "x"}'))


def test_an_input_request_without_a_callback_fails_the_call() -> None:
    rounds = InputRounds(requests.call_tool("t"))
    asks = rounds.input_required(decode(ASKING))
    with pytest.raises(McpError) as caught:
        run(Callbacks(roots=lambda: []), asks)
    assert caught.value.code == METHOD_NOT_FOUND


def test_typed_answers_go_out_as_plain_json() -> None:
    rounds = InputRounds(requests.call_tool("t"))
    rounds.input_required(decode(b'{"requestState": "x"}'))
    retry = rounds.retry({"k": ElicitResult(action="decline")})
    assert retry.params.input_responses == {"k": {"action": "decline"}}
