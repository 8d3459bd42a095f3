"""Which callback answers a server request or receives a notification (Callbacks)."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest
from msgspec import UNSET

from mcp_core.client import Acknowledged, Callbacks, Delivery, Reply
from mcp_core.server import McpError
from mcp_core.types import (
    CreateMessageRequestParams,
    CreateMessageResult,
    ElicitRequest,
    ElicitResult,
    ListRootsRequest,
    ListRootsResult,
    LoggingMessageNotificationParams,
    ResourceUpdatedNotificationParams,
    Root,
    SubscriptionFilter,
    SubscriptionsAcknowledgedNotificationParams,
)
from mcp_core.wire import METHOD_NOT_FOUND

SAMPLED = {"role": "assistant", "model": "m", "content": {"type": "text", "text": "hi"}}
SAMPLING_PARAMS = CreateMessageRequestParams(messages=[], max_tokens=5)


def finish(reply: Reply) -> Any:
    return reply.finish(reply.callback(*reply.args))


def everything() -> Callbacks:
    return Callbacks(
        sampling=lambda params: SAMPLED,
        elicitation=lambda params: ElicitResult(action="cancel"),
        roots=lambda: ListRootsResult(roots=[Root(uri="file:///r")]),
    )


def test_capabilities_follow_the_callbacks() -> None:
    assert msgspec.to_builtins(Callbacks().capabilities()) == {}
    assert msgspec.to_builtins(everything().capabilities()) == {
        "sampling": {},
        "elicitation": {"form": {}},
        "roots": {"listChanged": True},
    }
    only_roots = Callbacks(roots=lambda: []).capabilities()
    assert only_roots.sampling is UNSET and only_roots.elicitation is UNSET


def test_each_server_request_goes_to_its_callback() -> None:
    callbacks = everything()
    reply = callbacks.answer("sampling/createMessage", SAMPLING_PARAMS)
    assert reply.callback is callbacks.sampling and reply.args == (SAMPLING_PARAMS,)
    assert finish(reply) == msgspec.convert(SAMPLED, CreateMessageResult)
    elicited = finish(callbacks.answer("elicitation/create", "params"))
    assert elicited == ElicitResult(action="cancel")
    reply = callbacks.answer("roots/list", UNSET)
    assert reply.args == ()
    assert finish(reply) == ListRootsResult(roots=[Root(uri="file:///r")])


def test_roots_may_be_a_plain_list() -> None:
    callbacks = Callbacks(roots=lambda: [Root(uri="file:///a"), {"uri": "file:///b"}])
    result = finish(callbacks.answer("roots/list", UNSET))
    assert result == ListRootsResult(roots=[Root(uri="file:///a"), Root(uri="file:///b")])


def test_a_result_that_does_not_fit_is_refused() -> None:
    callbacks = Callbacks(sampling=lambda params: {"role": "nobody"})
    with pytest.raises(msgspec.ValidationError):
        finish(callbacks.answer("sampling/createMessage", SAMPLING_PARAMS))


@pytest.mark.parametrize(
    "method", ["sampling/createMessage", "elicitation/create", "roots/list", "tools/list"]
)
def test_no_callback_means_method_not_found(method: str) -> None:
    with pytest.raises(McpError) as caught:
        Callbacks().answer(method, UNSET)
    assert caught.value.code == METHOD_NOT_FOUND
    assert method in caught.value.message


def test_input_requests_go_to_the_same_callbacks() -> None:
    callbacks = everything()
    elicit = msgspec.convert(
        {
            "method": "elicitation/create",
            "params": {"message": "?", "requestedSchema": {"type": "object", "properties": {}}},
        },
        ElicitRequest,
    )
    reply = callbacks.answer_input(elicit)
    assert reply.callback is callbacks.elicitation and reply.args == (elicit.params,)
    assert callbacks.answer_input(ListRootsRequest()).callback is callbacks.roots
    with pytest.raises(McpError):
        Callbacks().answer_input(ListRootsRequest())


def test_log_messages_go_to_on_log_and_the_rest_to_on_notification() -> None:
    logged: list[Any] = []
    noted: list[Any] = []
    callbacks = Callbacks(on_log=logged.append, on_notification=lambda m, p: noted.append(m))
    assert callbacks.notified
    log = LoggingMessageNotificationParams(level="info", data="x")
    delivery = callbacks.deliver("notifications/message", log)
    assert isinstance(delivery, Delivery)
    assert delivery.callback is callbacks.on_log and delivery.args == (log,)
    updated = ResourceUpdatedNotificationParams(uri="file:///a")
    for method, params in [
        ("notifications/resources/updated", updated),
        ("notifications/tools/list_changed", UNSET),
        ("notifications/progress", UNSET),
    ]:
        delivery = callbacks.deliver(method, params)
        assert isinstance(delivery, Delivery)
        assert delivery.callback is callbacks.on_notification
        assert delivery.args == (method, params)


def test_notifications_without_a_callback_are_dropped() -> None:
    callbacks = Callbacks()
    assert not callbacks.notified
    log = LoggingMessageNotificationParams(level="info", data="x")
    assert callbacks.deliver("notifications/message", log) is None
    assert callbacks.deliver("notifications/tools/list_changed", UNSET) is None
    only_log = Callbacks(on_log=print)
    assert only_log.notified
    assert only_log.deliver("notifications/prompts/list_changed", UNSET) is None
    assert Callbacks(on_notification=print).deliver("notifications/message", log) is None


def test_an_acknowledgement_settles_its_subscription() -> None:
    # 2026-07-28 basic/patterns/subscriptions.mdx "Acknowledgment": the subscription
    # id rides in _meta under io.modelcontextprotocol/subscriptionId.
    granted = SubscriptionFilter(tools_list_changed=True)
    params = SubscriptionsAcknowledgedNotificationParams(
        meta={"io.modelcontextprotocol/subscriptionId": 7}, notifications=granted
    )
    noted: list[Any] = []
    decision = Callbacks(on_notification=lambda m, p: noted.append(m)).deliver(
        "notifications/subscriptions/acknowledged", params
    )
    assert isinstance(decision, Acknowledged)
    assert decision.subscription_id == 7 and decision.granted == granted


def test_an_acknowledgement_naming_no_subscription_is_dropped() -> None:
    callbacks = Callbacks(on_notification=print)
    method = "notifications/subscriptions/acknowledged"
    bare = SubscriptionsAcknowledgedNotificationParams(notifications=SubscriptionFilter())
    assert callbacks.deliver(method, bare) is None
    other = SubscriptionsAcknowledgedNotificationParams(
        meta={"other": 1}, notifications=SubscriptionFilter()
    )
    assert callbacks.deliver(method, other) is None
