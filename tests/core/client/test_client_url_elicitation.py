"""Callbacks' decisions about URL-mode elicitation (2025-11-25 client/elicitation.mdx):
which -32042 errors become UrlElicitationRequiredError, and which completion notices
reach the application."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from mcp_core import McpError, UrlElicitationRequiredError
from mcp_core.client import Callbacks, Delivery
from mcp_core.client.callbacks import MAX_OPEN_ELICITATIONS
from mcp_core.types import ElicitationCompleteNotificationParams, ElicitRequestParams, ElicitResult
from mcp_core.wire import INVALID_PARAMS, URL_ELICITATION_REQUIRED

ELICITATION = {"mode": "url", "message": "m", "url": "https://x", "elicitationId": "e1"}


def complete(elicitation_id: str) -> ElicitationCompleteNotificationParams:
    return ElicitationCompleteNotificationParams(elicitation_id=elicitation_id)


def callbacks() -> tuple[Callbacks, list[str]]:
    done: list[str] = []
    made = Callbacks(
        elicitation_url=lambda params: ElicitResult(action="accept"),
        on_elicitation_complete=done.append,
    )
    return made, done


@pytest.mark.parametrize(
    ("code", "data"),
    [
        (INVALID_PARAMS, {"elicitations": [ELICITATION]}),
        (URL_ELICITATION_REQUIRED, None),
        (URL_ELICITATION_REQUIRED, {"elicitations": [{"mode": "form", "message": "m"}]}),
        (URL_ELICITATION_REQUIRED, {"elicitations": "nope"}),
    ],
)
def test_only_a_well_formed_32042_is_a_url_elicitation_error(code: int, data: Any) -> None:
    made, _ = callbacks()
    assert made.url_required(McpError(code, "x", data)) is None


def test_a_32042_error_and_its_completion_notice() -> None:
    made, _ = callbacks()
    required = made.url_required(
        McpError(URL_ELICITATION_REQUIRED, "connect", {"elicitations": [ELICITATION]})
    )
    assert isinstance(required, UrlElicitationRequiredError)
    assert required.message == "connect"
    assert [e.elicitation_id for e in required.elicitations] == ["e1"]
    # The id is now known: its notice is delivered once, then forgotten.
    decision = made.deliver("notifications/elicitation/complete", complete("e1"))
    assert isinstance(decision, Delivery) and decision.args == ("e1",)
    assert made.deliver("notifications/elicitation/complete", complete("e1")) is None
    assert made.deliver("notifications/elicitation/complete", complete("never")) is None


def test_an_answered_url_elicitation_is_awaited_too() -> None:
    made, _ = callbacks()
    params = msgspec.convert(ELICITATION, ElicitRequestParams)
    made.answer("elicitation/create", params)
    assert isinstance(made.deliver("notifications/elicitation/complete", complete("e1")), Delivery)


def test_the_oldest_open_elicitations_are_forgotten() -> None:
    made, _ = callbacks()
    for n in range(MAX_OPEN_ELICITATIONS + 1):
        params = msgspec.convert({**ELICITATION, "elicitationId": f"e{n}"}, ElicitRequestParams)
        made.answer("elicitation/create", params)
    assert made.deliver("notifications/elicitation/complete", complete("e0")) is None
    last = f"e{MAX_OPEN_ELICITATIONS}"
    assert isinstance(made.deliver("notifications/elicitation/complete", complete(last)), Delivery)


def test_without_a_completion_callback_the_notice_is_just_a_notification() -> None:
    seen: list[Any] = []
    made = Callbacks(on_notification=lambda method, params: seen.append(method))
    decision = made.deliver("notifications/elicitation/complete", complete("e1"))
    assert (
        isinstance(decision, Delivery) and decision.args[0] == "notifications/elicitation/complete"
    )


def test_roots_changed_only_where_the_revision_has_it() -> None:
    assert Callbacks().roots_changed("2025-11-25") is None  # no roots declared
    with_roots = Callbacks(roots=[{"uri": "file:///a"}])
    assert with_roots.roots_changed("2025-11-25") == "notifications/roots/list_changed"
    assert with_roots.roots_changed("2026-07-28") is None
    assert with_roots.roots_changed(None) is None
