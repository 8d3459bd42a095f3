"""When to try a lost server again: exponential backoff with jitter.

The schedule is 1, 2, 4, 8, 16 seconds by default (`Backoff`), each delay spread by
a random fraction (``jitter``) so that many clients of one restarted server do not
come back at the same instant. The random source is the caller's, so a test can fix
it; nothing here sleeps. `Retries` counts the attempts of one connection: success
resets it, and past ``max_attempts`` it gives up until a manual reconnect resets it.
`Restarts` applies the same schedule to a worker process that exited: a run
longer than ``min_uptime`` counts as a success, so only a worker that dies at
once, again and again, is given up.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["DEFAULT_BACKOFF", "Backoff", "Restarts", "Retries"]


@dataclass(frozen=True)
class Backoff:
    """The reconnection schedule.

    Attributes:
        initial: seconds before the first retry.
        factor: each retry waits this many times longer than the one before.
        maximum: no wait is longer than this.
        jitter: each wait is spread by up to this fraction of it, either way
            (0.1: from 90% to 110%).
        max_attempts: retries before giving up (None: never give up).
    """

    initial: float = 1.0
    factor: float = 2.0
    maximum: float = 16.0
    jitter: float = 0.1
    max_attempts: int | None = 5

    def __post_init__(self) -> None:
        if self.initial < 0 or self.maximum < 0:
            raise ValueError("backoff delays must not be negative")
        if self.factor < 1:
            raise ValueError("the backoff factor must be at least 1")
        if not 0 <= self.jitter <= 1:
            raise ValueError("jitter is a fraction from 0 to 1")
        if self.max_attempts is not None and self.max_attempts < 0:
            raise ValueError("max_attempts must not be negative")

    def delay(self, attempt: int, random: Callable[[], float]) -> float:
        """Seconds to wait before retry number ``attempt`` (1 for the first).

        Args:
            random: a number in [0, 1), e.g. ``random.random``.
        """
        base = min(self.initial * self.factor ** (attempt - 1), self.maximum)
        spread = self.jitter * (2.0 * random() - 1.0)
        return max(0.0, base * (1.0 + spread))


DEFAULT_BACKOFF = Backoff()
"""1, 2, 4, 8, 16 seconds, 10% jitter, five retries."""


class Retries:
    """The retries of one connection."""

    def __init__(self, backoff: Backoff, random: Callable[[], float]) -> None:
        self.backoff = backoff
        self._random = random
        #: Retries since the last success.
        self.attempts = 0

    @property
    def exhausted(self) -> bool:
        """Whether the connection has used up its retries."""
        limit = self.backoff.max_attempts
        return limit is not None and self.attempts >= limit

    def next_delay(self) -> float | None:
        """Count one more retry: the seconds to wait before it, or None when the
        retries are used up (a manual `reset` starts again)."""
        if self.exhausted:
            return None
        self.attempts += 1
        return self.backoff.delay(self.attempts, self._random)

    def reset(self) -> None:
        """The connection succeeded, or a person asked for a reconnect: start over."""
        self.attempts = 0


class Restarts:
    """When to start a worker process again after it exited.

    Args:
        backoff: the schedule; its ``max_attempts`` is how many exits in a row
            within ``min_uptime`` of starting are restarted (the default: 1, 2,
            4, 8, 16 seconds, then no more).
        min_uptime: seconds of running after which an exit starts the count
            and the schedule over (a worker that served a while and was
            killed is restarted after ``backoff.initial``). 30 s: a worker
            that fails as it starts is seldom slower to fail, even on a
            loaded machine (supervisord's ``startsecs`` is the same idea).
        random: a number in [0, 1), for the jitter.
    """

    def __init__(
        self,
        backoff: Backoff = DEFAULT_BACKOFF,
        *,
        min_uptime: float = 30.0,
        random: Callable[[], float],
    ) -> None:
        if min_uptime < 0:
            raise ValueError("min_uptime must not be negative")
        self.min_uptime = min_uptime
        self._retries = Retries(backoff, random)

    @property
    def quick_exits(self) -> int:
        """Exits in a row within ``min_uptime`` of starting (the last included)."""
        return self._retries.attempts

    def exited(self, uptime: float) -> float | None:
        """The worker exited after running ``uptime`` seconds.

        Returns:
            Seconds to wait before starting it again, or None: it died at once
            too many times in a row; leave it down.
        """
        if uptime >= self.min_uptime:
            self._retries.reset()
        return self._retries.next_delay()
