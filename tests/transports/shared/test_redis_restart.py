"""What a many-process deployment (three workers behind HAProxy) does when its
Redis restarts empty (no persistence): of the h11 server and of the ASGI app
under uvicorn."""

from __future__ import annotations

import anyio
import pytest
from balancer_helpers import LIMIT, Deployment, Modern
from redis_helpers import RedisProcess

pytestmark = pytest.mark.anyio

NAME = {"action": "accept", "content": {"name": "Ada"}}
REDIS_PERSIST = False  # restarts empty


async def test_a_request_state_is_refused_after_redis_restarts_empty(
    deployment: Deployment, redis: RedisProcess
) -> None:
    # 2026-07-28 basic/patterns/mrtr.mdx "Server Requirements": single use is
    # the server's to enforce. Redis forgot which states were used, so every
    # state sealed before is refused (fail closed), never run a second time.
    client = Modern(deployment.port)
    used = await client.result("tools/call", {"name": "greet", "arguments": {}})
    unused = await client.result("tools/call", {"name": "greet", "arguments": {}})
    (key,) = used["inputRequests"]

    def retry(state: str) -> dict[str, object]:
        return {
            "name": "greet",
            "arguments": {},
            "inputResponses": {key: NAME},
            "requestState": state,
        }

    assert (await client.text(**retry(used["requestState"]))).startswith("Hello, Ada")
    redis.restart()
    with anyio.fail_after(LIMIT):
        for state in (used["requestState"], unused["requestState"]):
            status, reply = await client.request("tools/call", retry(state))
            assert status == 200 and "error" in reply, reply
            assert reply["error"]["code"] == -32602
            assert reply["error"]["data"] == {"reason": "store restarted"}
        # The client starts over: a state sealed now opens once.
        again = await client.result("tools/call", {"name": "greet", "arguments": {}})
        assert (await client.text(**retry(again["requestState"]))).startswith("Hello, Ada")
