# JSON-RPC batches in a 2025-03-26 session over streamable HTTP, sans I/O.
#
# 2025-03-26 is the one revision with batches (basic/index.mdx "Batching"), and its
# transport page lets a POST carry one ("Sending Messages to the Server" item 3: an
# array of requests and/or notifications, or an array of responses). Item 4: input
# that is only notifications and responses gets 202 with no body, or an HTTP error
# status if the server cannot accept it; item 5: input with requests gets JSON or
# an SSE stream, with a response per request (item 6: "MAY be batched").
#
# Here a batch is taken whole or refused whole: a member that is not a valid
# message, an `initialize` inside it (2025-03-26 basic/lifecycle.mdx: "The
# initialization request MUST NOT be part of a JSON-RPC batch") or a request id
# used twice in it gets 400 with the JSON-RPC error, and nothing of the batch is
# served. A taken batch is fed to the session as it came (the session splits it,
# ServerSession.receive_bytes); its responses are answered together, as one JSON
# array (or as events of one SSE stream in response mode "sse").

from __future__ import annotations

from typing import Final

from ..wire.errors import RemoteProtocolError
from ..wire.jsonrpc import (
    Message,
    Request,
    RequestId,
    decode_batch,
    decode_message,
    encode_message,
    error_reply,
)
from .decisions import JSON_HEADER, Reply, refuse

__all__ = ["BATCH_REVISION", "read_batch"]

BATCH_REVISION: Final = "2025-03-26"
"""The revision whose sessions may POST batches."""


def read_batch(body: bytes) -> list[Message] | Reply:
    """The members of a batch POSTed in a 2025-03-26 session, or the 400 refusal
    of the whole batch (see the rules at the top of this module)."""
    try:
        members = [decode_message(raw) for raw in decode_batch(body)]
    except RemoteProtocolError as exc:
        return Reply(exc.http_status, (JSON_HEADER,), encode_message(error_reply(exc)))
    seen: set[RequestId] = set()
    for member in members:
        if type(member) is not Request:
            continue
        if member.method == "initialize":
            return refuse(400, "initialize must not be part of a batch", request_id=member.id)
        if member.id in seen:
            return refuse(400, f"request id {member.id!r} is used twice in the batch")
        seen.add(member.id)
    return members
