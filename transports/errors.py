"""One map from anyio's and the OS's exceptions to what they mean for a transport.

A stream's send or receive fails in a handful of ways that a transport treats alike:
the peer went away (`anyio.BrokenResourceError`, an `OSError` under it), we closed
the stream ourselves (`anyio.ClosedResourceError`), or, for a receive, the peer ended
its side (`anyio.EndOfStream`). The tuples below name those sets once, for the
``except`` clauses that turn them into our own errors (`PeerGone` for an HTTP
answer, end of input for a reader), as httpcore's ``map_exceptions`` table does; a
clause rather than a context manager, as they sit on the hot paths (a write per
message). `os_error_of` finds the OS's error under anyio's.
"""

from __future__ import annotations

from typing import Final

import anyio

__all__ = [
    "RECEIVE_ENDED",
    "SEND_FAILED",
    "os_error_of",
]

SEND_FAILED: Final = (anyio.BrokenResourceError, anyio.ClosedResourceError)
"""A send (or a receive) on a stream whose peer went away, or that we closed."""

RECEIVE_ENDED: Final = (anyio.EndOfStream, *SEND_FAILED)
"""A receive that gets nothing more: the peer ended its side, went away, or we closed."""


def os_error_of(exc: BaseException) -> OSError | None:
    """The `OSError` behind ``exc``: itself, or what anyio wrapped (its trio backend
    raises `anyio.BrokenResourceError` from the OSError of an accept or a send)."""
    if isinstance(exc, OSError):
        return exc
    cause = exc.__cause__
    return cause if isinstance(cause, OSError) else None
