"""The gateway's application side: it offers every list, and tells of changes."""

from __future__ import annotations

from mcp_core.manager import Gateway


def test_a_gateway_offers_every_list_with_list_changed() -> None:
    capabilities = Gateway("g", "1").capabilities()
    assert capabilities.tools.list_changed is True  # type: ignore[union-attr]
    assert capabilities.prompts.list_changed is True  # type: ignore[union-attr]
    assert capabilities.resources.list_changed is True  # type: ignore[union-attr]


def test_list_changes_become_notifications_once_serving() -> None:
    gateway = Gateway("g", "1")
    gateway.lists_changed("tools")
    assert gateway.take_list_changes() == []  # not serving yet: nobody to tell
    gateway.config()
    seen: list[str] = []
    gateway.watch(lambda method, params: seen.append(method))
    gateway.lists_changed("prompts")
    gateway.lists_changed()
    assert seen == [
        "notifications/prompts/list_changed",
        "notifications/tools/list_changed",
        "notifications/resources/list_changed",
        "notifications/prompts/list_changed",
    ]
