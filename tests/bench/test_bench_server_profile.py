"""The profile of an HTTP server process: calls per call, by where they are made."""

from __future__ import annotations

from benchmarks.server_profile import count


def test_the_profile_counts_the_calls_of_ours_and_of_the_floor() -> None:
    ours = count("ours", "legacy", "json", 2, "asyncio", 50)
    floor = count("h11", "floor", "json", 2, "asyncio", 50)
    assert ours["mcp_core"] > 0 and ours["transports"] > 0 and ours["h11"] > 0
    assert "mcp_core" not in floor and floor["h11"] > 0
    assert abs(ours["all"] - sum(v for k, v in ours.items() if k != "all")) < 1e-6
    assert ours["all"] > floor["all"]
