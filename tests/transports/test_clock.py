"""The event loop's clock, resolved once, reads what anyio.current_time reads."""

from __future__ import annotations

import anyio
import pytest

from transports.clock import loop_clock

pytestmark = pytest.mark.anyio


async def test_the_resolved_clock_is_anyios_clock() -> None:
    clock = loop_clock()
    for _ in range(3):
        before = clock()
        now = anyio.current_time()
        after = clock()
        assert before <= now <= after
        await anyio.sleep(0.01)
    assert clock() - before >= 0.01
