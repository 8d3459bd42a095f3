# What the OAuth client flow asks its adapter to do, and the records it keeps.
#
# `OAuthFlow` (flow.py) answers each thing it is told with a list of the actions
# below, h11 style: zero or more `StoreCredentials`, then one of `SendRequest` (report
# the answer with `received` or `request_failed`), `LoadCredentials` (answer with
# `loaded`), `AuthorizeUser` (answer with `redirected`), `Authorized` or `Failed`.

from __future__ import annotations

from dataclasses import dataclass

import msgspec

from .discovery import ResourceMetadata, ServerMetadata
from .registration import ClientInfo
from .tokens import Tokens

__all__ = [
    "Authorized",
    "AuthorizeUser",
    "Credentials",
    "Failed",
    "FlowAction",
    "LoadCredentials",
    "PendingAuthorization",
    "SendRequest",
    "StoreCredentials",
]


class Credentials(msgspec.Struct, kw_only=True, omit_defaults=True):
    """Everything kept for one authorization server (keyed by its issuer: 2026-07-28
    basic/authorization/client-registration.mdx "Authorization Server Binding").

    Attributes:
        issuer: the authorization server.
        client: the client information it issued (or a portable metadata URL).
        tokens: the tokens it issued, by the MCP server (resource) they are for.
    """

    issuer: str
    client: ClientInfo | None = None
    tokens: dict[str, Tokens] = msgspec.field(default_factory=dict)


class PendingAuthorization(msgspec.Struct, kw_only=True, omit_defaults=True):
    """An authorization request sent to the user's browser and not yet answered:
    what finishing it needs, in any process (`msgspec.json.encode` it, and give it
    to `OAuthFlow.resume`).

    Attributes:
        server_url: the MCP server.
        resource: the `resource` asked for (RFC 8707).
        issuer: the authorization server's issuer, recorded before the redirect to
            check the response's `iss` (2026-07-28 basic/authorization/index.mdx
            "Authorization Response Validation").
        metadata: its metadata.
        client: the client information used.
        verifier: the PKCE code verifier.
        state: the `state` sent.
        redirect_uri: the redirect URI sent.
        scope: the scope asked for, if any.
        prm: the Protected Resource Metadata, if the server has it.
        authorizations: authorization requests made so far (the step-up bound).
    """

    server_url: str
    resource: str
    issuer: str
    metadata: ServerMetadata
    client: ClientInfo
    verifier: str
    state: str
    redirect_uri: str
    scope: str | None = None
    prm: ResourceMetadata | None = None
    authorizations: int = 1


@dataclass(frozen=True, slots=True)
class SendRequest:
    """Send this HTTP request (with a timeout) and report its answer, redirects not
    followed. ``purpose`` says what it is, for messages."""

    method: str
    url: str
    headers: tuple[tuple[str, str], ...]
    body: bytes = b""
    purpose: str = ""


@dataclass(frozen=True, slots=True)
class LoadCredentials:
    """Look up what is stored for ``issuer`` and hand it to `OAuthFlow.loaded`."""

    issuer: str


@dataclass(frozen=True, slots=True)
class StoreCredentials:
    """Store ``credentials`` for their issuer, replacing what was there."""

    credentials: Credentials


@dataclass(frozen=True, slots=True)
class AuthorizeUser:
    """Have the user open ``url`` (a browser, or show it), wait for the redirect to
    ``redirect_uri`` and hand its full URL to `OAuthFlow.redirected`."""

    url: str
    redirect_uri: str


@dataclass(frozen=True, slots=True)
class Authorized:
    """Done: send ``access_token`` as `Authorization: Bearer` on every request to
    the MCP server."""

    access_token: str


@dataclass(frozen=True, slots=True)
class Failed:
    """The flow cannot go on; ``reason`` says why."""

    reason: str


FlowAction = SendRequest | LoadCredentials | StoreCredentials | AuthorizeUser | Authorized | Failed
"""Anything the flow asks for."""
