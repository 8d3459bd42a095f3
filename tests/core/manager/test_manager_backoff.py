"""The reconnection schedule: 1, 2, 4, 8, 16 seconds, spread by jitter, reset on success."""

from __future__ import annotations

import pytest

from mcp_core.manager import DEFAULT_BACKOFF, Backoff, Restarts, Retries


def fixed(value: float):  # type: ignore[no-untyped-def]
    return lambda: value


def test_the_default_schedule_without_jitter_is_1_2_4_8_16_then_gives_up() -> None:
    retries = Retries(DEFAULT_BACKOFF, fixed(0.5))  # 0.5: no spread either way
    delays = [retries.next_delay() for _ in range(6)]
    assert delays == [1.0, 2.0, 4.0, 8.0, 16.0, None]
    assert retries.exhausted


def test_jitter_spreads_each_delay_by_its_fraction_both_ways() -> None:
    low = Retries(DEFAULT_BACKOFF, fixed(0.0))
    high = Retries(DEFAULT_BACKOFF, fixed(0.999999))
    assert low.next_delay() == pytest.approx(0.9)
    assert high.next_delay() == pytest.approx(1.1, rel=1e-5)
    assert low.next_delay() == pytest.approx(1.8)


def test_a_success_resets_the_attempts() -> None:
    retries = Retries(DEFAULT_BACKOFF, fixed(0.5))
    for _ in range(5):
        retries.next_delay()
    assert retries.next_delay() is None
    retries.reset()
    assert retries.attempts == 0
    assert retries.next_delay() == 1.0


def test_the_schedule_is_configurable_and_capped() -> None:
    backoff = Backoff(initial=0.1, factor=3, maximum=0.5, jitter=0, max_attempts=None)
    retries = Retries(backoff, fixed(0.9))
    delays = [retries.next_delay() for _ in range(5)]
    assert delays == pytest.approx([0.1, 0.3, 0.5, 0.5, 0.5])
    assert not retries.exhausted


def test_no_retries_at_all() -> None:
    retries = Retries(Backoff(max_attempts=0), fixed(0.5))
    assert retries.next_delay() is None


@pytest.mark.parametrize(
    "options",
    [{"initial": -1}, {"factor": 0.5}, {"jitter": 1.5}, {"max_attempts": -1}],
)
def test_impossible_schedules_are_refused(options: dict[str, float]) -> None:
    with pytest.raises(ValueError):
        Backoff(**options)  # type: ignore[arg-type]


def test_a_worker_that_dies_at_once_is_restarted_with_backoff_then_left_down() -> None:
    restarts = Restarts(Backoff(jitter=0.0), min_uptime=30.0, random=lambda: 0.5)
    assert [restarts.exited(1.0) for _ in range(6)] == [1.0, 2.0, 4.0, 8.0, 16.0, None]
    assert restarts.quick_exits == 5


def test_a_worker_that_ran_a_while_starts_the_schedule_over() -> None:
    restarts = Restarts(Backoff(jitter=0.0), min_uptime=30.0, random=lambda: 0.5)
    assert restarts.exited(1.0) == 1.0 and restarts.exited(1.0) == 2.0
    assert restarts.exited(3600.0) == 1.0  # killed after serving an hour
    assert restarts.quick_exits == 1
    with pytest.raises(ValueError):
        Restarts(min_uptime=-1.0, random=lambda: 0.5)
