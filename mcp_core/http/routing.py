# Which stream each outgoing message of an HTTP-served session goes on, sans I/O.
#
# Theory of operation. A server's session sends messages without knowing about
# HTTP; the transport must put each on one answer in the making: the JSON body or
# SSE stream of a POST, or the session's standalone GET stream. The rules:
#
# Legacy era (2025-11-25 basic/transports.mdx, "Sending Messages to the Server"
# item 6, "Listening for Messages from the Server" item 4, "Multiple Connections"
# item 2):
#   - the response to a request goes on the stream of the POST that carried it,
#     and ends that stream ("After the JSON-RPC response has been sent, the
#     server SHOULD terminate the SSE stream");
#   - requests and notifications related to a request go on that request's
#     stream ("These messages SHOULD relate to the originating client request"),
#     unless its answer must be one JSON body (response mode "json"): then they
#     go on the standalone stream;
#   - everything else goes on the standalone stream ("SHOULD be unrelated to any
#     concurrently-running JSON-RPC request");
#   - a response whose stream is gone (its client left before any event id
#     reached it, so nobody can resume it) is dropped: the standalone stream
#     "MUST NOT" carry a response, and no message goes on two streams.
#
# Modern era (2026-07-28 basic/transports/streamable-http.mdx "Receiving
# Messages"): a request is served on its own, so everything it sends goes on its
# own stream, and the response to it ends the stream ("The final JSON-RPC
# response SHOULD terminate the stream").
#
# The endpoint registers a request's stream when it dispatches the request
# (`StreamRouter.open`); `route` then names a stream id for each message, and
# forgets the request once its response is routed. `route` runs for every
# message sent, so a route is a plain tuple and nothing else is made per message.

from __future__ import annotations

from typing import Final, TypeAlias

from ..wire.jsonrpc import ErrorResponse, Message, RequestId, Response

__all__ = [
    "STANDALONE_STREAM",
    "Route",
    "DROP",
    "TO_STANDALONE",
    "StreamRouter",
    "ends_stream",
]

STANDALONE_STREAM: Final = "0"
"""The stream id of a session's standalone SSE stream (the one GET opens)."""


Route: TypeAlias = tuple[str | None, bool]
"""Where one outgoing message goes: (the id of the stream to put it on, or None
to drop it; whether it is the response that ends that stream). A plain tuple,
as one is made for most messages a session sends."""

DROP: Final[Route] = (None, False)
"""Send the message nowhere (the response of a stream nobody can receive)."""

TO_STANDALONE: Final[Route] = (STANDALONE_STREAM, False)
"""Put the message on the session's standalone stream."""


class StreamRouter:
    """The streams of one legacy-era session's requests, and the route of each
    message the session sends (see the rules at the top of this module)."""

    __slots__ = ("_routes",)

    def __init__(self) -> None:
        # request id -> (its stream id, whether its answer is one JSON body)
        self._routes: dict[RequestId, tuple[str, bool]] = {}

    def open(self, request_id: RequestId, stream_id: str, json_only: bool = False) -> None:
        """A request was dispatched; its answer is stream ``stream_id``.

        Args:
            request_id: the request's id.
            stream_id: the stream of its answer.
            json_only: the answer is one JSON body: messages related to the
                request go on the standalone stream instead.
        """
        self._routes[request_id] = (stream_id, json_only)

    def route(self, message: Message, related: RequestId | None) -> Route:
        """Where ``message`` goes; ``related``: the request it was sent for, if any.

        Routing a request's response forgets the request.
        """
        kind = type(message)
        if kind is Response or kind is ErrorResponse:
            answered: RequestId | None = message.id  # type: ignore[union-attr]
            routes = self._routes
            found = routes.pop(answered, None) if answered is not None else None
            if not routes:
                routes.clear()  # gives back its slots: an idle session keeps an empty dict
            return DROP if found is None else (found[0], True)
        if related is None:
            return TO_STANDALONE
        found = self._routes.get(related)
        return TO_STANDALONE if found is None or found[1] else (found[0], False)

    def abandon(self, request_id: RequestId, stream_id: str) -> None:
        """Forget the stream of a request whose client left before anything
        identified the stream to it: nobody can resume it, so its response is
        dropped and its related messages go on the standalone stream."""
        found = self._routes.get(request_id)
        if found is not None and found[0] == stream_id:
            del self._routes[request_id]

    def clear(self) -> None:
        """Forget every request (the session ended)."""
        self._routes.clear()

    def __len__(self) -> int:
        """Requests whose response is still to be routed."""
        return len(self._routes)


def ends_stream(message: Message, request_id: RequestId | None) -> bool:
    """Whether ``message``, sent while serving a 2026-07-28 request on its own,
    is the response that ends that request's stream (everything else it sends
    goes on the same stream before it)."""
    kind = type(message)
    return (kind is Response or kind is ErrorResponse) and message.id == request_id  # type: ignore[union-attr]
