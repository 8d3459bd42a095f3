"""The gateway's application side: it offers every list, and tells of changes."""

from __future__ import annotations

from typing import Any

from msgspec import UNSET

from mcp_core.apps import EXTENSION_ID, MIME_TYPE
from mcp_core.extensions import server_settings
from mcp_core.manager import Gateway, forwarded
from mcp_core.tasks import TASKS_EXTENSION
from mcp_core.types import ClientCapabilities, RootsCapability, ServerCapabilities
from mcp_core.types.skills import SKILLS_EXTENSION


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


def test_an_upstreams_extension_without_methods_is_declared_while_it_is() -> None:
    gateway = Gateway("g", "1")
    upstream = ServerCapabilities(
        extensions={
            EXTENSION_ID: {},
            "example.com/flags": {"x": 1},
            SKILLS_EXTENSION: {},  # has methods: the gateway does not serve them blindly
            TASKS_EXTENSION: {},  # the gateway's own
        }
    )
    declared: dict[str, dict[str, Any]] = {EXTENSION_ID: {}, "example.com/flags": {"x": 2}}
    added = gateway.relay_extensions(upstream, declared.get)
    assert added == [EXTENSION_ID, "example.com/flags"]
    assert gateway.relay_extensions(upstream, declared.get) == []  # once
    capabilities = gateway.config().capabilities
    assert server_settings(capabilities, "example.com/flags") == {"x": 2}
    assert server_settings(capabilities, SKILLS_EXTENSION) is None
    # In the handshake as well (SEP-2133 declares extensions there).
    assert EXTENSION_ID in gateway.config().handshake_extensions
    # No upstream declares it any more: neither does the gateway, after a change.
    del declared["example.com/flags"]
    gateway.lists_changed()
    assert server_settings(gateway.config().capabilities, "example.com/flags") is None
    assert gateway.own_extensions == {TASKS_EXTENSION}


def test_a_call_declares_the_clients_extensions_but_the_gateways_own() -> None:
    client = ClientCapabilities(
        roots=RootsCapability(list_changed=True),
        extensions={EXTENSION_ID: {"mimeTypes": [MIME_TYPE]}, TASKS_EXTENSION: {}},
    )
    sent = forwarded(client, {TASKS_EXTENSION})
    assert sent.extensions == {EXTENSION_ID: {"mimeTypes": [MIME_TYPE]}}
    assert sent.roots == client.roots
    assert forwarded(client, {EXTENSION_ID, TASKS_EXTENSION}).extensions is UNSET
    assert forwarded(ClientCapabilities()).extensions is UNSET
