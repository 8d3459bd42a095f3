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
- the capabilities follow the callbacks: sampling, elicitation (form) and roots are
  declared exactly when their callback is given.

The adapter runs the callback (awaiting it when it returns an awaitable); the rules
stay here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec
from msgspec import UNSET

from ..server.context import McpError
from ..session.base import SUBSCRIPTION_ID_KEY
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
from ..wire import METHOD_NOT_FOUND, RequestId

__all__ = [
    "Acknowledged",
    "Callbacks",
    "Delivery",
    "ElicitationCallback",
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
LogCallback = Callable[[LoggingMessageNotificationParams], Any]
"""Receives the params of each ``notifications/message``."""
NotificationCallback = Callable[[str, Any], Any]
"""Receives ``(method, params)`` of every other server notification."""

_SAMPLING = "sampling/createMessage"
_ELICITATION = "elicitation/create"
_ROOTS = "roots/list"
_LOG = "notifications/message"
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
        elicitation: answers form-mode ``elicitation/create``.
        roots: answers ``roots/list``.
        on_log: receives each ``notifications/message``.
        on_notification: receives every other server notification.
    """

    def __init__(
        self,
        *,
        sampling: SamplingCallback | None = None,
        elicitation: ElicitationCallback | None = None,
        roots: RootsCallback | None = None,
        on_log: LogCallback | None = None,
        on_notification: NotificationCallback | None = None,
    ) -> None:
        self.sampling = sampling
        self.elicitation = elicitation
        self.roots = roots
        self.on_log = on_log
        self.on_notification = on_notification

    def capabilities(self) -> ClientCapabilities:
        """What to declare: a capability exactly for each request callback given."""
        return ClientCapabilities(
            sampling=SamplingCapability() if self.sampling is not None else UNSET,
            elicitation=ElicitationCapability(form={}) if self.elicitation is not None else UNSET,
            roots=RootsCapability(list_changed=True) if self.roots is not None else UNSET,
        )

    @property
    def notified(self) -> bool:
        """Whether any notification has a callback (else every one is dropped)."""
        return self.on_log is not None or self.on_notification is not None

    def answer(self, method: str, params: Any) -> Reply:
        """Decide how to answer the server request ``method``.

        Returns:
            The callback to run and how to turn its value into the result.

        Raises:
            McpError: -32601 (method not found), no callback serves ``method``; send
                it as the error reply.
        """
        if method == _SAMPLING and self.sampling is not None:
            return Reply(self.sampling, (params,), _sampling_result)
        if method == _ELICITATION and self.elicitation is not None:
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
        if self.on_notification is None:
            return None
        return Delivery(self.on_notification, (method, params))
