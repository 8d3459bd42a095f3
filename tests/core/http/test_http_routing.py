"""Which stream each outgoing message goes on, and when a session ends on its own.

2025-11-25 means 2025-11-25 basic/transports.mdx "Streamable HTTP"; 2026-07-28
means 2026-07-28 basic/transports/streamable-http.mdx. No I/O: the endpoint
decides, these tests read its decisions.
"""

from __future__ import annotations

from test_http_rules import INITIALIZE, body, open_session, request

from mcp_core.http.decisions import Dispatch, EndSession
from mcp_core.http.routing import DROP, TO_STANDALONE, StreamRouter, ends_stream
from mcp_core.http.server import HttpEndpoint, HttpServerConfig
from mcp_core.session.lifecycle import SessionState
from mcp_core.wire import ErrorObject, ErrorResponse, Notification, Request, Response

PROGRESS = Notification(method="notifications/progress")
LIST_CHANGED = Notification(method="notifications/tools/list_changed")
SAMPLING = Request(id=7, method="sampling/createMessage")


def answer(request_id: int | str | None) -> ErrorResponse:
    return ErrorResponse(id=request_id, error=ErrorObject(code=-32603, message="x"))


def dispatch(endpoint: HttpEndpoint, sid: str, method: str, request_id: int) -> Dispatch:
    decision = endpoint.receive(request(mcp_session_id=sid), body(method, id=request_id), 0.0)
    assert isinstance(decision, Dispatch) and decision.stream_id is not None
    return decision


def test_a_response_goes_on_its_requests_stream_and_ends_it() -> None:
    # 2025-11-25 "Sending Messages to the Server" item 6: the SSE stream carries
    # the response to the POST's request; after it the server terminates it.
    endpoint = HttpEndpoint()
    sid = open_session(endpoint)
    first = dispatch(endpoint, sid, "tools/list", 1)
    second = dispatch(endpoint, sid, "tools/list", 2)
    routes = endpoint.routes(sid)
    assert routes.route(Response(id=2, result={}), None) == (second.stream_id, True)
    assert routes.route(answer(1), None) == (first.stream_id, True)
    # Routing the response forgot the request: a second one has nowhere to go.
    assert routes.route(Response(id=1, result={}), None) is DROP
    assert len(routes) == 0


def test_related_messages_go_on_the_requests_stream() -> None:
    # Same item: "requests and notifications before sending the JSON-RPC
    # response ... SHOULD relate to the originating client request".
    endpoint = HttpEndpoint()
    sid = open_session(endpoint)
    decision = dispatch(endpoint, sid, "tools/call", 1)
    routes = endpoint.routes(sid)
    assert routes.route(PROGRESS, 1) == (decision.stream_id, False)
    assert routes.route(SAMPLING, 1) == (decision.stream_id, False)


def test_unrelated_messages_go_on_the_standalone_stream() -> None:
    # "Listening for Messages from the Server" item 4: the GET stream carries
    # requests and notifications unrelated to any running request.
    endpoint = HttpEndpoint()
    sid = open_session(endpoint)
    dispatch(endpoint, sid, "tools/call", 1)
    routes = endpoint.routes(sid)
    assert routes.route(LIST_CHANGED, None) is TO_STANDALONE
    # Related to a request that is answered already, or was never made.
    assert routes.route(PROGRESS, 99) is TO_STANDALONE


def test_a_response_never_goes_on_the_standalone_stream() -> None:
    # Item 4: "MUST NOT send a JSON-RPC response on the stream" (the GET one):
    # a response of no known request (or with no id) is dropped.
    routes = StreamRouter()
    assert routes.route(Response(id=5, result={}), None) is DROP
    assert routes.route(answer(None), None) is DROP


def test_json_answers_send_related_messages_on_the_standalone_stream() -> None:
    # A JSON answer holds one message (item 5), so what relates to its request
    # goes on the standalone stream; the response still answers the POST.
    endpoint = HttpEndpoint(HttpServerConfig(response_mode="json"))
    sid = open_session(endpoint)
    decision = dispatch(endpoint, sid, "tools/call", 1)
    routes = endpoint.routes(sid)
    assert routes.route(PROGRESS, 1) is TO_STANDALONE
    assert routes.route(Response(id=1, result={}), None) == (decision.stream_id, True)


def test_an_abandoned_stream_drops_its_response() -> None:
    # "Multiple Connections" item 2: one stream per message, never two; a
    # stream whose client left before an event id reached it is gone for good.
    endpoint = HttpEndpoint()
    sid = open_session(endpoint)
    decision = dispatch(endpoint, sid, "tools/call", 1)
    assert decision.stream_id is not None
    routes = endpoint.routes(sid)
    routes.abandon(1, "another stream")  # not its stream: nothing happens
    assert routes.route(PROGRESS, 1) == (decision.stream_id, False)
    routes.abandon(1, decision.stream_id)
    assert routes.route(PROGRESS, 1) is TO_STANDALONE
    assert routes.route(Response(id=1, result={}), None) is DROP


def test_clear_forgets_every_request() -> None:
    routes = StreamRouter()
    routes.open(1, "1")
    routes.open(2, "2", json_only=True)
    assert len(routes) == 2
    routes.clear()
    assert routes.route(Response(id=1, result={}), None) is DROP


def test_a_modern_requests_response_ends_its_own_stream() -> None:
    # 2026-07-28 "Receiving Messages": notifications relate to the request and
    # come before "the final JSON-RPC response", which SHOULD end the stream.
    assert ends_stream(Response(id=3, result={}), 3)
    assert ends_stream(answer(3), 3)
    assert not ends_stream(Response(id=4, result={}), 3)
    assert not ends_stream(PROGRESS, 3)


class _Protocol:
    """Stands in for the bound ServerSession: only its state is read."""

    def __init__(self, state: SessionState) -> None:
        self.state = state
        self.revision: str | None = None


def _initialize(endpoint: HttpEndpoint) -> Dispatch:
    decision = endpoint.receive(request(), INITIALIZE, now=0.0)
    assert isinstance(decision, Dispatch) and decision.created
    assert decision.session_id is not None
    return decision


def test_a_refused_initialize_ends_the_session_it_minted() -> None:
    # 2025-11-25 "Session Management" item 1: the session id comes with the
    # InitializeResult; an initialize the session refused leaves none to keep.
    endpoint = HttpEndpoint()
    decision = _initialize(endpoint)
    assert decision.session_id is not None
    endpoint.bind(decision.session_id, _Protocol(SessionState.NEW))
    assert endpoint.fed(decision) == EndSession(decision.session_id)
    assert decision.session_id not in endpoint.sessions
    # Asked again (or for a session already gone): nothing more to end.
    assert endpoint.fed(decision) is None


def test_an_accepted_initialize_and_later_requests_keep_the_session() -> None:
    endpoint = HttpEndpoint()
    decision = _initialize(endpoint)
    assert decision.session_id is not None
    endpoint.bind(decision.session_id, _Protocol(SessionState.INITIALIZING))
    assert endpoint.fed(decision) is None
    later = dispatch(endpoint, decision.session_id, "ping", 2)
    endpoint.bind(decision.session_id, _Protocol(SessionState.NEW))
    assert endpoint.fed(later) is None  # not the initialize that minted it
    assert decision.session_id in endpoint.sessions
