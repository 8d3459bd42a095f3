# Knowing when a coroutine first waits.
#
# Some work is only worth starting once a task actually waits: watching a socket
# for a hang-up while a handler runs matters only if the handler suspends (one
# that answers at once cannot be interrupted anyway), and a stream's head is
# worth sending early only if its first event is not there at once. `watching`
# awaits a coroutine exactly as ``await`` would, passing everything it yields to
# the event loop and everything the loop sends (values, exceptions) back to it,
# and calls a hook each time it suspends, until the hook says it is done. The
# loop cannot tell the difference, so this works under asyncio and trio alike.

from __future__ import annotations

from collections.abc import Callable, Coroutine, Generator
from typing import Any, Generic, TypeVar

__all__ = ["resumed", "watching"]

_T = TypeVar("_T")


class watching(Generic[_T]):  # named like the function it stands for
    """Await ``coro``, calling ``hook()`` whenever it suspends until the hook
    returns True (then not again)."""

    __slots__ = ("_coro", "_hook")

    def __init__(self, coro: Coroutine[Any, Any, _T], hook: Callable[[], bool]) -> None:
        self._coro = coro
        self._hook: Callable[[], bool] | None = hook

    def __await__(self) -> Generator[Any, Any, _T]:
        coro = self._coro
        hook = self._hook
        value: Any = None
        error: BaseException | None = None
        while True:
            try:
                yielded = coro.send(value) if error is None else coro.throw(error)
            except StopIteration as done:
                result: _T = done.value
                return result
            if hook is not None and hook():
                hook = None
            try:
                value = yield yielded
                error = None
            except GeneratorExit:
                coro.close()
                raise
            except BaseException as exc:
                value, error = None, exc


class resumed(Generic[_T]):  # named like the function it stands for
    """Await the rest of ``coro``, whose first step the caller took by hand
    (``first = coro.send(None)``, which did not finish it): ``first`` goes to the
    event loop, and from then on everything passes as with ``await``.

    Taking the first step by hand costs nothing when the coroutine finishes at
    once, as most handlers do; `watching` wraps every step.
    """

    __slots__ = ("_coro", "_first")

    def __init__(self, coro: Coroutine[Any, Any, _T], first: Any) -> None:
        self._coro = coro
        self._first = first

    def __await__(self) -> Generator[Any, Any, _T]:
        coro = self._coro
        yielded = self._first
        while True:
            try:
                value = yield yielded
            except GeneratorExit:
                coro.close()
                raise
            except BaseException as exc:
                try:
                    yielded = coro.throw(exc)
                except StopIteration as done:
                    result: _T = done.value
                    return result
                continue
            try:
                yielded = coro.send(value)
            except StopIteration as done:
                result = done.value
                return result
