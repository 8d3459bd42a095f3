"""What replicas share for 2026-07-28 requestState: a keyring (seal with the
first key, open with any) and single use through an asynchronous `OnceStore`
(2026-07-28 basic/patterns/mrtr.mdx "Server Requirements")."""

from __future__ import annotations

from typing import Any

import pytest
from server_app_helpers import KEY, MODERN, dispatch

from mcp_core.server.app import Server
from mcp_core.server.context import Context, McpError
from mcp_core.server.request_state import EPOCH_SIZE, StateRejected, StateSealer
from mcp_core.types.client import InputRequiredResult
from mcp_core.types.server import CallToolResult

OLD = b"o" * 32
SCHEMA = {"type": "object", "properties": {"name": {"type": "string"}}}
NAME = {"action": "accept", "content": {"name": "Ada"}}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class SetOnce:
    """An asynchronous once-store over a set, as a shared backend behaves."""

    def __init__(self) -> None:
        self.claimed: list[bytes] = []
        self.epoch = b"e" * EPOCH_SIZE

    async def current_epoch(self, *, ttl: float) -> bytes:
        return self.epoch

    async def claim(self, nonce: bytes, expiry: float, *, now: float, epoch: bytes) -> bool:
        if epoch != self.epoch:
            raise StateRejected("store restarted")
        if nonce in self.claimed:
            return False
        self.claimed.append(nonce)
        return True


def make_server(**options: Any) -> Server:
    server = Server("test", "1.0", **options)

    @server.tool
    async def ask(ctx: Context) -> str:
        answer = await ctx.elicit("Name?", SCHEMA, key="name")
        return str(answer.content["name"])  # type: ignore[index]

    return server


async def call(server: Server, params: dict[str, Any]) -> Any:
    return await dispatch(
        server, "tools/call", params, revision=MODERN, capabilities={"elicitation": {}}
    )


def test_the_keyring_seals_with_the_first_key_and_opens_with_any() -> None:
    old = StateSealer(OLD)
    both = StateSealer(KEY, old_keys=[OLD])
    token = old.seal(b"p", now=0.0, request_binding="b")
    assert both.open(token, now=1.0, request_binding="b") == b"p"
    new_token = both.seal(b"q", now=0.0, request_binding="b")
    with pytest.raises(StateRejected, match="bad signature"):
        old.open(new_token, now=1.0, request_binding="b")
    assert both.fingerprint == StateSealer(KEY).fingerprint != old.fingerprint


@pytest.mark.anyio
async def test_a_state_sealed_by_one_replica_opens_on_another_with_the_keyring() -> None:
    sealing = make_server(state_key=[OLD])
    opening = make_server(state_key=[KEY, OLD])
    assert sealing.state_fingerprint != opening.state_fingerprint
    first = await call(sealing, {"name": "ask"})
    assert isinstance(first, InputRequiredResult)
    retry = {"name": "ask", "inputResponses": {"name": NAME}, "requestState": first.request_state}
    final = await call(opening, retry)
    assert isinstance(final, CallToolResult)
    assert final.content[0].text == "Ada"  # type: ignore[union-attr]


@pytest.mark.anyio
async def test_a_shared_once_store_refuses_the_second_use_on_any_replica() -> None:
    once = SetOnce()
    a = make_server(state_key=KEY, replay_guard=once)
    b = make_server(state_key=KEY, replay_guard=once)
    first = await call(a, {"name": "ask"})
    retry = {"name": "ask", "inputResponses": {"name": NAME}, "requestState": first.request_state}
    assert isinstance(await call(b, retry), CallToolResult)
    with pytest.raises(McpError) as refused:
        await call(a, retry)
    assert refused.value.data == {"reason": "replayed"}
    assert len(once.claimed) == 1


@pytest.mark.anyio
async def test_a_state_sealed_before_the_once_store_lost_its_memory_is_refused() -> None:
    # A shared store restarted empty (a new epoch) cannot tell a replay from a
    # first use: every state sealed before is refused, used or not.
    once = SetOnce()
    server = make_server(state_key=KEY, replay_guard=once)
    used, unused = await call(server, {"name": "ask"}), await call(server, {"name": "ask"})
    retry = {"name": "ask", "inputResponses": {"name": NAME}, "requestState": used.request_state}
    assert isinstance(await call(server, retry), CallToolResult)
    once.claimed.clear()
    once.epoch = b"f" * EPOCH_SIZE
    for state in (used, unused):
        with pytest.raises(McpError) as refused:
            await call(server, {**retry, "requestState": state.request_state})
        assert refused.value.data == {"reason": "store restarted"}
    assert once.claimed == []
    # A state sealed now opens.
    fresh = await call(server, {"name": "ask"})
    assert isinstance(
        await call(server, {**retry, "requestState": fresh.request_state}), CallToolResult
    )


@pytest.mark.anyio
async def test_a_bad_state_is_refused_before_the_once_store_is_asked() -> None:
    once = SetOnce()
    server = make_server(state_key=KEY, replay_guard=once)
    with pytest.raises(McpError) as refused:
        await call(server, {"name": "ask", "inputResponses": {}, "requestState": "AAAA"})
    assert refused.value.data == {"reason": "malformed"}
    assert once.claimed == []


def test_an_empty_keyring_is_refused() -> None:
    with pytest.raises(ValueError, match="at least one key"):
        Server("test", "1.0", state_key=[])


def test_after_the_bus_was_lost_every_watcher_hears_each_list_may_have_changed() -> None:
    server = make_server()
    heard: list[tuple[str, Any]] = []
    unwatch = server.watch(lambda method, params: heard.append((method, params)))
    server.relay_missed()
    unwatch()
    assert [method for method, _ in heard] == [
        "notifications/tools/list_changed",
        "notifications/resources/list_changed",
        "notifications/prompts/list_changed",
    ]
    assert server.take_list_changes() == []  # relayed, not recorded
