"""The session layer: ``tools/call`` round trips through a client and a server, no I/O.

This is the core without a transport: a ClientSession and a
ServerSession wired directly to each other, with no event loop, no threads and no
sockets. One round trip is everything both peers do for one call:

  client.send_request("tools/call", ...) -> each of client.messages_to_send()
  -> server receives it -> RequestReceived -> server.send_response(id, result)
  -> each of server.messages_to_send() -> client receives it -> ResponseReceived.

Implementations, side by side in the same runs:

* ``mcp-core legacy``: a 2025-11-25 client (``revisions=("2025-11-25",)``) after
  the initialize handshake. Every message crosses as bytes: encode_message, then
  receive_bytes on the other side, so both peers parse and validate what a wire
  would carry.
* ``mcp-core modern``: the default dual-era client, which discovered 2026-07-28
  with server/discover. Every request carries the protocol version, the client's
  capabilities and identity in ``_meta``; every result carries ``resultType`` and
  the server's identity.
* ``... objects``: the same two eras with message objects handed over as they
  are (receive_message, no encode, no parse): the in-memory mode.
* ``mcp SDK (DirectDispatcher)``: the official SDK's fastest in-process path.
  ``mcp.Client`` given a low-level ``mcp.server.Server`` and a mode other than
  ``"legacy"`` connects through ``mcp.shared.direct_dispatcher`` (a
  ``create_direct_dispatcher_pair``; no streams, no JSON-RPC framing, no JSON):
  a call awaits the server's ``modern_on_request`` directly. The handshake is
  ``mode="auto"`` (server/discover, which finds 2026-07-28), as the modern
  client above. Calls go through ``ClientSession.call_tool`` (``client.session``),
  a little faster than ``Client.call_tool``, which adds the input-required driver
  on top. The server is a ``Server`` with one ``on_call_tool`` handler and an
  ``on_list_tools`` handler, listed once before timing (the SDK client lists a
  tool once to learn its output schema). The SDK needs an event loop; it runs on
  a private asyncio loop, entered once per timed operation.

Every server echoes the ``text`` argument back in one TextContent block, and the
first round trip of every implementation is checked before any timing starts.
Handshakes happen once, outside the timed loop.

One timed operation is a burst of ROUND_TRIPS_PER_OP sequential round trips for
every implementation, so the SDK's loop entry (``run_until_complete``) is
amortised over the burst rather than charged per call; the figures reported are
divided back to one round trip.
"""

from __future__ import annotations

import asyncio
import importlib
from collections.abc import Callable
from typing import Any, Final

from mcp_core import ClientConfig, ClientSession, ServerConfig, ServerSession
from mcp_core.session import HandshakeCompleted, RequestReceived, ResponseReceived
from mcp_core.types import (
    CallToolRequestParams,
    CallToolResult,
    Implementation,
    ListChangedCapability,
    ServerCapabilities,
    TextContent,
)
from mcp_core.wire import encode_message

from .harness import Case, CaseResult, Settings, run_case, scaled
from .layers import LayerResult, Progress, not_importable

__all__ = [
    "LEGACY",
    "LEGACY_OBJECTS",
    "MODERN",
    "MODERN_OBJECTS",
    "ROUND_TRIPS_PER_OP",
    "SDK",
    "CorePair",
    "build_case",
    "run",
]

LEGACY: Final = "mcp-core legacy"
MODERN: Final = "mcp-core modern"
LEGACY_OBJECTS: Final = "mcp-core legacy, objects"
MODERN_OBJECTS: Final = "mcp-core modern, objects"
SDK: Final = "mcp SDK (DirectDispatcher)"

RATIOS: Final = {
    "mcp-core legacy / SDK": (LEGACY, SDK),
    "mcp-core modern / SDK": (MODERN, SDK),
    "mcp-core legacy, objects / SDK": (LEGACY_OBJECTS, SDK),
    "mcp-core modern, objects / SDK": (MODERN_OBJECTS, SDK),
}

ROUND_TRIPS_PER_OP: Final = 32
"""Sequential round trips in one timed operation; figures are per round trip."""

LEGACY_REVISION: Final = "2025-11-25"
MODERN_REVISION: Final = "2026-07-28"
TOOL: Final = "echo"
TEXT: Final = "hello"

Operation = Callable[[], object]


# --- mcp-core -------------------------------------------------------------------------------------


class CorePair:
    """A ClientSession wired straight into a ServerSession, handshake done.

    Args:
        legacy: a 2025-11-25-only client (initialize handshake) instead of the
            default dual-era one (server/discover, 2026-07-28).
        wire: hand messages over as bytes (encode_message, receive_bytes) rather
            than as objects (receive_message).
    """

    def __init__(self, *, legacy: bool, wire: bool) -> None:
        client_config = ClientConfig(client_info=Implementation(name="bench-client", version="1"))
        if legacy:
            client_config = ClientConfig(
                client_info=client_config.client_info, revisions=(LEGACY_REVISION,)
            )
        server_config = ServerConfig(
            server_info=Implementation(name="bench-server", version="1"),
            capabilities=ServerCapabilities(tools=ListChangedCapability()),
        )
        self.client = ClientSession(client_config)
        self.server = ServerSession(server_config)
        self.wire = wire
        self.params = CallToolRequestParams(name=TOOL, arguments={"text": TEXT})
        self._handshake()
        self.round_trip = self._bytes_round_trip if wire else self._objects_round_trip

    def _handshake(self) -> None:
        # Everything queued crosses, both ways, until both sides are quiet.
        self.client.start()
        completed = False
        while True:
            to_server = self.client.messages_to_send()
            to_client = self.server.messages_to_send()
            if not to_server and not to_client:
                break
            for message in to_server:
                self.server.receive_bytes(encode_message(message))
            for message in to_client:
                events = self.client.receive_bytes(encode_message(message))
                completed = completed or any(type(e) is HandshakeCompleted for e in events)
        if not completed:
            raise AssertionError("the handshake did not complete")

    def _answer(self, events: list[Any]) -> None:
        # The application side of the server: echo the text back.
        for event in events:
            if type(event) is not RequestReceived:
                raise AssertionError(f"server: expected RequestReceived, got {event!r}")
            text = event.params.arguments["text"]
            self.server.send_response(event.id, CallToolResult(content=[TextContent(text=text)]))

    def _bytes_round_trip(self) -> Any:
        client, server = self.client, self.server
        client.send_request("tools/call", self.params)
        for message in client.messages_to_send():
            self._answer(server.receive_bytes(encode_message(message)))
        result = None
        for message in server.messages_to_send():
            for event in client.receive_bytes(encode_message(message)):
                if type(event) is not ResponseReceived:
                    raise AssertionError(f"client: expected ResponseReceived, got {event!r}")
                result = event.result
        return result

    def _objects_round_trip(self) -> Any:
        client, server = self.client, self.server
        client.send_request("tools/call", self.params)
        for message in client.messages_to_send():
            self._answer(server.receive_message(message))
        result = None
        for message in server.messages_to_send():
            for event in client.receive_message(message):
                if type(event) is not ResponseReceived:
                    raise AssertionError(f"client: expected ResponseReceived, got {event!r}")
                result = event.result
        return result

    def check(self) -> None:
        """One round trip, with everything about its outcome checked."""
        expected = LEGACY_REVISION if self.client.era == "legacy" else MODERN_REVISION
        if self.client.revision != expected:
            raise AssertionError(f"negotiated {self.client.revision!r}, expected {expected!r}")
        result = self.round_trip()
        if not isinstance(result, CallToolResult):
            raise AssertionError(f"expected a CallToolResult, got {result!r}")
        content = result.content
        if len(content) != 1 or not isinstance(content[0], TextContent) or content[0].text != TEXT:
            raise AssertionError(f"the tool did not echo {TEXT!r}: {content!r}")
        if self.client.pending_requests or self.server.requests_in_flight:
            raise AssertionError("a request was left in flight")

    def operation(self) -> Operation:
        round_trip = self.round_trip
        bursts = range(ROUND_TRIPS_PER_OP)

        def burst() -> None:
            for _ in bursts:
                round_trip()

        return burst


# --- the official SDK -----------------------------------------------------------------------------


class _Sdk:
    """An SDK ``Client`` connected in-process to a low-level ``Server``, on its own loop.

    The client is entered by a host task that stays parked until close(), so the
    SDK's task group is entered and left by the same task; each timed operation
    is one ``run_until_complete`` of a burst of calls on the same loop.
    """

    def __init__(self) -> None:
        mcp = importlib.import_module("mcp")
        lowlevel = importlib.import_module("mcp.server")
        types = importlib.import_module("mcp_types")
        self.types = types
        tool = types.Tool(
            name=TOOL,
            input_schema={"type": "object", "properties": {"text": {"type": "string"}}},
        )

        async def on_call_tool(ctx: Any, params: Any) -> Any:
            text = params.arguments["text"]
            return types.CallToolResult(content=[types.TextContent(type="text", text=text)])

        async def on_list_tools(ctx: Any, params: Any) -> Any:
            return types.ListToolsResult(tools=[tool])

        server = lowlevel.Server(
            "bench-server", on_call_tool=on_call_tool, on_list_tools=on_list_tools
        )
        self.client = mcp.Client(server, mode="auto")
        self.loop = asyncio.new_event_loop()
        self._stop: asyncio.Event | None = None
        self._host: asyncio.Task[None] | None = None
        try:
            self.loop.run_until_complete(self._open())
        except BaseException:
            self.close()
            raise

    async def _open(self) -> None:
        ready = asyncio.Event()
        self._stop = asyncio.Event()
        failure: list[BaseException] = []

        async def host() -> None:
            try:
                async with self.client:
                    ready.set()
                    assert self._stop is not None
                    await self._stop.wait()
            except BaseException as exc:
                failure.append(exc)
                ready.set()
                raise

        self._host = asyncio.ensure_future(host())
        await ready.wait()
        if failure:
            raise failure[0]
        dispatcher = type(getattr(self.client.session, "_dispatcher", None)).__name__
        if dispatcher != "DirectDispatcher":
            raise RuntimeError(f"the SDK connected through {dispatcher}, not DirectDispatcher")
        # The SDK client lists a tool once to learn its output schema; do it now.
        await self.client.session.list_tools()

    async def _burst(self) -> Any:
        call_tool = self.client.session.call_tool
        result = None
        for _ in range(ROUND_TRIPS_PER_OP):
            result = await call_tool(TOOL, {"text": TEXT})
        return result

    def check(self) -> None:
        """One burst, with the outcome and the era checked."""
        if self.client.protocol_version != MODERN_REVISION:
            raise AssertionError(f"the SDK negotiated {self.client.protocol_version!r}")
        result = self.loop.run_until_complete(self._burst())
        content = result.content
        if len(content) != 1 or content[0].text != TEXT or result.is_error:
            raise AssertionError(f"the SDK tool did not echo {TEXT!r}: {result!r}")

    def operation(self) -> Operation:
        run_until_complete, burst = self.loop.run_until_complete, self._burst

        def operation() -> object:
            return run_until_complete(burst())

        return operation

    def close(self) -> None:
        """Leave the client (and so stop the in-process server) and close the loop."""
        try:
            if self._stop is not None and self._host is not None:
                self._stop.set()
                self.loop.run_until_complete(self._host)
        finally:
            self.loop.close()


def _load_sdk() -> tuple[_Sdk | None, str]:
    try:
        return _Sdk(), ""
    except ImportError as exc:
        return None, not_importable(exc, "mcp")


# --- the case -------------------------------------------------------------------------------------


def build_case(sdk: _Sdk | None) -> Case:
    """The one case, every implementation checked once before it is returned."""
    implementations: dict[str, Operation] = {}
    for label, legacy, wire in [
        (LEGACY, True, True),
        (MODERN, False, True),
        (LEGACY_OBJECTS, True, False),
        (MODERN_OBJECTS, False, False),
    ]:
        pair = CorePair(legacy=legacy, wire=wire)
        pair.check()
        implementations[label] = pair.operation()
    if sdk is not None:
        sdk.check()
        implementations[SDK] = sdk.operation()
    request = encode_message(_sample_request())
    return Case(
        name="call_tool_round_trip",
        title=(
            f"tools/call round trip, client <-> server session, ops = round trips "
            f"(timed in bursts of {ROUND_TRIPS_PER_OP})"
        ),
        payload_bytes=len(request),
        implementations=implementations,
        ratios=RATIOS,
    )


def _sample_request() -> Any:
    # The legacy request as it crosses the wire, for the size in the table header.
    pair = CorePair(legacy=True, wire=True)
    pair.client.send_request("tools/call", pair.params)
    return pair.client.messages_to_send()[0]


def per_round_trip(result: CaseResult) -> CaseResult:
    """``result`` with every figure divided back from bursts to single round trips."""
    return scaled(result, ROUND_TRIPS_PER_OP)


def run(settings: Settings, progress: Progress) -> LayerResult:
    """Run the round-trip case; the SDK column is skipped, with the reason, when absent."""
    result = LayerResult(name="session")
    sdk, reason = _load_sdk()
    if sdk is None:
        result.skipped[SDK] = reason
    try:
        case = build_case(sdk)
        count = len(case.implementations)
        progress(f"session: {case.name}: {case.title} ({count} implementations)")
        result.cases.append(per_round_trip(run_case(case, settings)))
    finally:
        if sdk is not None:
            sdk.close()
    return result
