"""One test module for every shared-state backend: the in-memory defaults and
Redis (a real redis-server, see conftest), under asyncio and trio."""

from __future__ import annotations

from typing import Any

import anyio
import msgspec
import pytest
from limits import HANG
from redis_helpers import RedisProcess, backends

from mcp_core.http.shared import SessionRecord
from mcp_core.tasks import TaskRecord

LIMIT = HANG
pytestmark = pytest.mark.anyio


def task(task_id: str, principal: str = "alice", at: float = 100.0, **changes: Any) -> TaskRecord:
    changes.setdefault("ttl_ms", 60_000)
    return TaskRecord(
        task_id=task_id,
        principal=principal,
        era="2026-07-28",
        created_at=at,
        updated_at=at,
        **changes,
    )


def session(session_id: str, principal: str | None = "alice") -> SessionRecord:
    return SessionRecord(
        session_id=session_id,
        principal=principal,
        revision="2025-11-25",
        client_capabilities=msgspec.Raw(b'{"sampling":{}}'),
        client_info=msgspec.Raw(b'{"name":"c","version":"1"}'),
        created=1.0,
    )


async def test_a_nonce_is_claimed_once(backend_kind: str, redis_or_none: RedisProcess) -> None:
    with anyio.fail_after(LIMIT):
        async with backends(backend_kind, redis_or_none) as b:
            assert await b.once.claim(b"n" * 16, 130.0, now=100.0)
            assert not await b.once.claim(b"n" * 16, 130.0, now=101.0)
            assert await b.once.claim(b"m" * 16, 130.0, now=101.0)


async def test_tasks_are_created_read_swapped_and_listed(
    backend_kind: str, redis_or_none: RedisProcess
) -> None:
    with anyio.fail_after(LIMIT):
        async with backends(backend_kind, redis_or_none) as b:
            first, second, third = task("t1"), task("t2", at=101.0), task("t3", at=102.0)
            for record in (first, second, third, task("x", principal="bob")):
                await b.tasks.create(record, 103.0)
            with pytest.raises(ValueError, match="exists already"):
                await b.tasks.create(first, 103.0)
            assert await b.tasks.get("alice", "t1") == first
            assert await b.tasks.get("bob", "t1") is None
            moved = msgspec.structs.replace(first, status="completed", version=1)
            assert await b.tasks.swap(first, moved)
            assert not await b.tasks.swap(first, moved)
            assert await b.tasks.get("alice", "t1") == moved
            page = await b.tasks.page("alice", None, 2)
            assert [r.task_id for r in page] == ["t1", "t2"]
            rest = await b.tasks.page("alice", "t2", 2)
            assert [r.task_id for r in rest] == ["t3"]
            assert [r.task_id for r in await b.tasks.page("bob", None, 10)] == ["x"]


async def test_sessions_are_found_by_their_principal_only(
    backend_kind: str, redis_or_none: RedisProcess
) -> None:
    with anyio.fail_after(LIMIT):
        async with backends(backend_kind, redis_or_none) as b:
            await b.sessions.put(session("s1"), 60.0)
            await b.sessions.put(session("s2", None), 60.0)
            found = await b.sessions.get("alice", "s1")
            assert found == session("s1")
            assert bytes(found.client_capabilities) == b'{"sampling":{}}'
            assert await b.sessions.get("mallory", "s1") is None
            assert await b.sessions.get(None, "s2") == session("s2", None)
            await b.sessions.drop("alice", "s1")
            assert await b.sessions.get("alice", "s1") is None


async def test_events_replay_after_one_on_its_stream_only(
    backend_kind: str, redis_or_none: RedisProcess
) -> None:
    with anyio.fail_after(LIMIT):
        async with backends(backend_kind, redis_or_none) as b:
            log = b.events
            await log.append("alice", "s", "0", "0-a1", None)
            await log.append("alice", "s", "0", "0-a2", b'{"n":1}')
            await log.append("alice", "s", "1", "1-b1", b'{"n":"other"}')
            await log.append("alice", "s", "0", "0-b2", b'{"n":2}')
            assert await log.after("alice", "s", "0-a1") == (
                "0",
                [("0-a2", b'{"n":1}'), ("0-b2", b'{"n":2}')],
            )
            assert await log.after("alice", "s", "0-a2") == ("0", [("0-b2", b'{"n":2}')])
            assert await log.after("alice", "s", "1-b1") == ("1", [])
            assert await log.after("bob", "s", "0-a2") is None
            for unknown in ("0-a9", "nonsense", ""):
                assert await log.after("alice", "s", unknown) is None
            await log.drop("alice", "s")
            assert await log.after("alice", "s", "0-a2") is None


async def test_the_event_log_keeps_the_newest_events(
    backend_kind: str, redis_or_none: RedisProcess
) -> None:
    with anyio.fail_after(LIMIT):
        async with backends(backend_kind, redis_or_none, max_events=3) as b:
            for n in range(5):
                await b.events.append(None, "s", "0", f"0-{n}", b"%d" % n)
            assert await b.events.after(None, "s", "0-1") is None
            assert await b.events.after(None, "s", "0-2") == ("0", [("0-3", b"3"), ("0-4", b"4")])


async def test_the_bus_reaches_every_listener_of_the_topic(
    backend_kind: str, redis_or_none: RedisProcess
) -> None:
    with anyio.fail_after(LIMIT):
        async with (
            backends(backend_kind, redis_or_none) as b,
            b.bus.listen("changes") as first,
            b.bus.listen("changes") as second,
            b.bus.listen("elsewhere") as elsewhere,
        ):
            await b.bus.publish("changes", b'{"m":1}')
            await b.bus.publish("elsewhere", b"x")
            assert await anext(first) == b'{"m":1}'
            assert await anext(second) == b'{"m":1}'
            assert await anext(elsewhere) == b"x"


async def test_every_redis_key_has_a_ttl(redis_server: RedisProcess) -> None:
    with anyio.fail_after(LIMIT):
        async with backends("redis", redis_server) as b:
            await b.once.claim(b"n" * 16, 130.0, now=100.0)
            await b.tasks.create(task("t1", ttl_ms=None), 100.0)
            await b.sessions.put(session("s1"), 60.0)
            await b.events.append("alice", "s1", "0", "0-1", b"{}")
            await b.events.append_many([], [("alice", "s1", "w.1", b"1")])
            await b.events.beat("w.", 60.0)
            client = b.once.connection.client
            prefix = b.once.connection.prefix
            keys = [key async for key in client.scan_iter(match=f"{prefix}:*")]
            # once, task, task index, session, events, streams, worker
            assert len(keys) == 7
            for key in keys:
                assert await client.pttl(key) > 0, key
            # The principal is in no key, only its digest.
            assert not any(b"alice" in key for key in keys)


async def test_a_memory_session_expires_on_the_callers_clock() -> None:
    async with backends("memory", None) as b:
        b.sessions.now = 10.0
        await b.sessions.put(session("s1"), 5.0)
        b.sessions.now = 14.9
        assert await b.sessions.get("alice", "s1") is not None
        b.sessions.now = 15.0
        assert await b.sessions.get("alice", "s1") is None


async def test_a_worker_with_another_state_key_is_refused_at_start(
    redis_server: RedisProcess,
) -> None:
    from transports.redis import check_fingerprint

    with anyio.fail_after(LIMIT):
        async with backends("redis", redis_server) as b:
            connection = b.once.connection
            await check_fingerprint(connection, "aa" * 16, ttl=60.0)
            await check_fingerprint(connection, "aa" * 16, ttl=60.0)
            with pytest.raises(RuntimeError, match="same MCP_CORE_STATE_KEY"):
                await check_fingerprint(connection, "bb" * 16, ttl=60.0)


async def test_events_appended_together_replay_as_if_one_by_one(
    backend_kind: str, redis_or_none: RedisProcess
) -> None:
    with anyio.fail_after(LIMIT):
        async with backends(backend_kind, redis_or_none, max_events=3) as b:
            await b.events.append_many(
                [
                    ("alice", "s", "1", "1-a1", None),
                    ("alice", "t", "0", "0-a1", b"other session"),
                    ("alice", "s", "1", "1-a2", b"x"),
                    ("alice", "s", "1", "1-a3", b"y"),
                    ("alice", "s", "1", "1-a4", b"z"),
                ]
            )
            assert await b.events.after("alice", "s", "1-a1") is None  # capped at 3
            assert await b.events.after("alice", "s", "1-a2") == (
                "1",
                [("1-a3", b"y"), ("1-a4", b"z")],
            )
            assert await b.events.after("alice", "t", "0-a1") == ("0", [])
            await b.events.append_many([])


async def test_streams_are_named_for_their_request_and_workers_are_alive_while_they_beat(
    backend_kind: str, redis_or_none: RedisProcess
) -> None:
    with anyio.fail_after(LIMIT):
        async with backends(backend_kind, redis_or_none) as b:
            log = b.events
            await log.append_many(
                [("alice", "s", "w.1", "w.1-w.1", None)], [("alice", "s", "w.1", b'"r-1"')]
            )
            await log.append_many([], [("alice", "s", "w.2", b"7")])
            assert await log.request_of("alice", "s", "w.1") == b'"r-1"'
            assert await log.request_of("alice", "s", "w.2") == b"7"
            assert await log.request_of("bob", "s", "w.1") is None
            assert await log.request_of("alice", "s", "w.3") is None
            assert await log.after("alice", "s", "w.1-w.1") == ("w.1", [])
            await log.drop("alice", "s")
            assert await log.request_of("alice", "s", "w.1") is None
            assert not await log.alive("w.")
            await log.beat("w.", 60.0)
            assert await log.alive("w.")
            assert not await log.alive("v.")
            # A beat lasts its ttl (on the caller's clock in memory).
            await log.beat("v.", 0.05)
            if backend_kind == "memory":
                log.now += 0.06
            while await log.alive("v."):
                await anyio.sleep(0.01)
            assert await log.alive("w.")
