"""How a client answers its server: which callback serves what the server sends.

A client application is a handful of callbacks (sampling, elicitation, roots, log
messages, other notifications). `Callbacks` holds them and decides, without running
anything, what each message from the server comes to:

- a server request (handshake era) or an input request inside an
  InputRequiredResult (2026-07-28 basic/patterns/mrtr.mdx) becomes a `Reply`: the
  callback to run, its arguments, and how its return value becomes the result.
  A request we have no callback for is refused with -32601 (method not found);
- a notification becomes a `Delivery` (callback and arguments) or, for
  ``notifications/subscriptions/acknowledged``, an `Acknowledged` for the listen
  request it answers (2026-07-28 basic/patterns/subscriptions.mdx "Acknowledgment");
- the capabilities follow the callbacks: sampling, elicitation (form, URL) and
  roots are declared exactly when their callback is given, ``sampling.tools`` when
  the application says its sampling callback handles tools. A request that needs
  a capability we did not declare is refused (-32601 for a whole capability,
  -32602 for a sub-capability: 2025-11-25 client/elicitation.mdx "Error
  Handling"), in both eras;
- ``notifications/elicitation/complete`` reaches its callback only for an
  elicitation this client was asked for and has not seen completed (2025-11-25
  client/elicitation.mdx: clients MUST ignore unknown or completed ids).

The adapter runs the callback (awaiting it when it returns an awaitable); the rules
stay here.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Final

import msgspec
from msgspec import UNSET

from ..server.context import McpError, UrlElicitationRequiredError
from ..session.base import SUBSCRIPTION_ID_KEY
from ..session.config import missing_client_capability, request_feature
from ..types import (
    ClientCapabilities,
    CreateMessageRequest,
    CreateMessageRequestParams,
    CreateMessageResult,
    ElicitationCapability,
    ElicitRequest,
    ElicitRequestParams,
    ElicitResult,
    InputRequest,
    ListRootsResult,
    LoggingMessageNotificationParams,
    Root,
    RootsCapability,
    SamplingCapability,
    SubscriptionFilter,
)
from ..types.methods import method_spec
from ..wire import INVALID_PARAMS, METHOD_NOT_FOUND, RequestId

__all__ = [
    "Acknowledged",
    "Callbacks",
    "Delivery",
    "ElicitationCallback",
    "ElicitationCompleteCallback",
    "LogCallback",
    "NotificationCallback",
    "Reply",
    "RootsCallback",
    "SamplingCallback",
]

SamplingCallback = Callable[[CreateMessageRequestParams], Any]
"""Answers ``sampling/createMessage``: a CreateMessageResult (or a dict of one), maybe awaitable."""
ElicitationCallback = Callable[[ElicitRequestParams], Any]
"""Answers form-mode ``elicitation/create``: an ElicitResult (or a dict), maybe awaitable."""
RootsCallback = Callable[[], Any]
"""Answers ``roots/list``: a list of Root (or a ListRootsResult), maybe awaitable."""
ElicitationCompleteCallback = Callable[[str], Any]
"""Receives the ``elicitationId`` of each URL-mode elicitation the server says is done."""
LogCallback = Callable[[LoggingMessageNotificationParams], Any]
"""Receives the params of each ``notifications/message``."""
NotificationCallback = Callable[[str, Any], Any]
"""Receives ``(method, params)`` of every other server notification."""

_SAMPLING = "sampling/createMessage"
_ELICITATION = "elicitation/create"
_ROOTS = "roots/list"
_LOG = "notifications/message"
_COMPLETE = "notifications/elicitation/complete"
_ROOTS_CHANGED = "notifications/roots/list_changed"

MAX_OPEN_ELICITATIONS: Final = 1024
"""URL elicitations remembered for their completion notice; the oldest are
forgotten past this (a notice for one then is ignored, as for an unknown id)."""
_ACKNOWLEDGED = "notifications/subscriptions/acknowledged"


def _convert(value: Any, kind: type[Any]) -> Any:
    if isinstance(value, kind):
        return value
    return msgspec.convert(value, kind, from_attributes=True)


def _sampling_result(value: Any) -> CreateMessageResult:
    result: CreateMessageResult = _convert(value, CreateMessageResult)
    return result


def _elicitation_result(value: Any) -> ElicitResult:
    result: ElicitResult = _convert(value, ElicitResult)
    return result


def _roots_result(value: Any) -> ListRootsResult:
    if isinstance(value, ListRootsResult):
        return value
    return ListRootsResult(roots=[_convert(root, Root) for root in value])


class Reply:
    """How to answer one server request: ``finish(callback(*args))``, awaited if need be.

    Attributes:
        callback: the application's callback.
        args: what to call it with.
        finish: turns what the callback returned into the typed result (a dict is
            converted; ``msgspec.ValidationError`` if it does not fit).
    """

    __slots__ = ("args", "callback", "finish")

    def __init__(
        self, callback: Callable[..., Any], args: tuple[Any, ...], finish: Callable[[Any], Any]
    ) -> None:
        self.callback = callback
        self.args = args
        self.finish = finish


class Delivery:
    """A notification for a callback: run ``callback(*args)``, in arrival order."""

    __slots__ = ("args", "callback")

    def __init__(self, callback: Callable[..., Any], args: tuple[Any, ...]) -> None:
        self.callback = callback
        self.args = args


class Acknowledged:
    """The server acknowledged the ``subscriptions/listen`` request ``subscription_id``.

    Attributes:
        subscription_id: the listen request's id (the subscription id).
        granted: the notifications the server agreed to send.
    """

    __slots__ = ("granted", "subscription_id")

    def __init__(self, subscription_id: RequestId, granted: SubscriptionFilter) -> None:
        self.subscription_id = subscription_id
        self.granted = granted


class Callbacks:
    """The client application: its callbacks, and which one answers what.

    Args:
        sampling: answers ``sampling/createMessage``.
        sampling_tools: ``sampling`` handles ``tools`` and ``toolChoice``
            (declares ``sampling.tools``, 2025-11-25 client/sampling.mdx).
        elicitation: answers form-mode ``elicitation/create``.
        elicitation_url: answers URL-mode ``elicitation/create`` (declares
            ``elicitation.url``): show the URL, ask for consent, open it.
        roots: answers ``roots/list``: a callback, or the list of roots itself.
        on_log: receives each ``notifications/message``.
        on_elicitation_complete: receives the id of each URL-mode elicitation
            the server says is complete.
        on_notification: receives every other server notification.
    """

    def __init__(
        self,
        *,
        sampling: SamplingCallback | None = None,
        sampling_tools: bool = False,
        elicitation: ElicitationCallback | None = None,
        elicitation_url: ElicitationCallback | None = None,
        roots: RootsCallback | Sequence[Root | dict[str, Any]] | None = None,
        on_log: LogCallback | None = None,
        on_elicitation_complete: ElicitationCompleteCallback | None = None,
        on_notification: NotificationCallback | None = None,
    ) -> None:
        if sampling_tools and sampling is None:
            raise ValueError("sampling_tools needs a sampling callback")
        self.sampling = sampling
        self.sampling_tools = sampling_tools
        self.elicitation = elicitation
        self.elicitation_url = elicitation_url
        self.roots: RootsCallback | None = None
        if roots is not None:
            self.set_roots(roots)
        self.on_log = on_log
        self.on_elicitation_complete = on_elicitation_complete
        self.on_notification = on_notification
        # URL elicitations asked of us and not completed yet (an ordered set).
        self._open: dict[str, None] = {}
        self._capabilities = self._declare()

    def capabilities(self) -> ClientCapabilities:
        """What to declare: a capability exactly for each request callback given."""
        return self._capabilities

    def _declare(self) -> ClientCapabilities:
        elicitation: ElicitationCapability | Any = UNSET
        if self.elicitation is not None or self.elicitation_url is not None:
            elicitation = ElicitationCapability(
                form={} if self.elicitation is not None else UNSET,
                url={} if self.elicitation_url is not None else UNSET,
            )
        sampling: SamplingCapability | Any = UNSET
        if self.sampling is not None:
            sampling = SamplingCapability(tools={} if self.sampling_tools else UNSET)
        return ClientCapabilities(
            sampling=sampling,
            elicitation=elicitation,
            roots=RootsCapability(list_changed=True) if self.roots is not None else UNSET,
        )

    def set_roots(self, roots: RootsCallback | Sequence[Root | dict[str, Any]]) -> None:
        """Answer ``roots/list`` with ``roots`` from now on (a callback, or a list)."""
        if callable(roots):
            self.roots = roots
            return
        fixed = ListRootsResult(roots=[_convert(root, Root) for root in roots])
        self.roots = lambda: fixed

    def roots_changed(self, revision: str | None) -> str | None:
        """The notification to send after `set_roots`, if any:
        ``notifications/roots/list_changed`` where the revision has it (up to
        2025-11-25) and we declared ``roots.listChanged`` (2025-11-25
        client/roots.mdx "List Changed Notification")."""
        if self.roots is None or revision is None or method_spec(_ROOTS_CHANGED, revision) is None:
            return None
        return _ROOTS_CHANGED

    def url_required(self, error: McpError) -> UrlElicitationRequiredError | None:
        """``error`` as a UrlElicitationRequiredError if it is one (-32042); its
        elicitations are then awaited for their completion notice."""
        required = UrlElicitationRequiredError.from_error(error)
        if required is not None:
            for elicitation in required.elicitations:
                self._expect(elicitation.elicitation_id)
        return required

    def _expect(self, elicitation_id: Any) -> None:
        if not isinstance(elicitation_id, str):
            return
        self._open[elicitation_id] = None
        if len(self._open) > MAX_OPEN_ELICITATIONS:
            del self._open[next(iter(self._open))]

    @property
    def notified(self) -> bool:
        """Whether any notification has a callback (else every one is dropped)."""
        return (
            self.on_log is not None
            or self.on_notification is not None
            or self.on_elicitation_complete is not None
        )

    def answer(self, method: str, params: Any) -> Reply:
        """Decide how to answer the server request ``method``.

        Returns:
            The callback to run and how to turn its value into the result.

        Raises:
            McpError: send it as the error reply: -32601 (method not found), no
                callback serves ``method``; -32602 (invalid params), the request
                uses a sub-capability we did not declare (sampling with tools,
                an elicitation mode).
        """
        missing = missing_client_capability(self._capabilities, method, params)
        if missing is not None and missing[1] is not None:
            raise McpError(INVALID_PARAMS, f"this client did not declare {missing[0]}.{missing[1]}")
        if method == _SAMPLING and self.sampling is not None:
            return Reply(self.sampling, (params,), _sampling_result)
        if method == _ELICITATION:
            url = request_feature(method, params) == "url"
            if url and self.elicitation_url is not None:
                self._expect(getattr(params, "elicitation_id", None))
                return Reply(self.elicitation_url, (params,), _elicitation_result)
            if not url and self.elicitation is not None:
                return Reply(self.elicitation, (params,), _elicitation_result)
        if method == _ROOTS and self.roots is not None:
            return Reply(self.roots, (), _roots_result)
        raise McpError(METHOD_NOT_FOUND, f"this client does not handle {method}")

    def answer_input(self, request: InputRequest) -> Reply:
        """Decide how to answer one input request of an InputRequiredResult.

        The same callbacks as `answer` serve them (2026-07-28
        basic/patterns/mrtr.mdx: input requests are the former server requests).

        Raises:
            McpError: -32601, no callback serves it.
        """
        if isinstance(request, CreateMessageRequest):
            return self.answer(_SAMPLING, request.params)
        if isinstance(request, ElicitRequest):
            return self.answer(_ELICITATION, request.params)
        return self.answer(_ROOTS, UNSET)

    def deliver(self, method: str, params: Any) -> Delivery | Acknowledged | None:
        """Decide what a server notification comes to.

        Returns:
            An `Acknowledged` for ``notifications/subscriptions/acknowledged`` (None
            if it names no subscription); a `Delivery` to ``on_log`` or
            ``on_notification``; None when no callback wants it.
        """
        if method == _ACKNOWLEDGED:
            meta = params.meta if isinstance(params.meta, dict) else {}
            subscription_id = meta.get(SUBSCRIPTION_ID_KEY)
            if subscription_id is None:
                return None
            return Acknowledged(subscription_id, params.notifications)
        if method == _LOG:
            return None if self.on_log is None else Delivery(self.on_log, (params,))
        if method == _COMPLETE and self.on_elicitation_complete is not None:
            elicitation_id = params.elicitation_id
            if elicitation_id not in self._open:
                return None
            del self._open[elicitation_id]
            return Delivery(self.on_elicitation_complete, (elicitation_id,))
        if self.on_notification is None:
            return None
        return Delivery(self.on_notification, (method, params))
