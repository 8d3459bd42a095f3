"""A scripted world for the OAuth client flow: URLs and their answers, no I/O.

`World` answers each `SendRequest` of an `OAuthFlow` from its table (404 for a URL
not in it), plays the user (its authorization endpoint redirects at once with a
code), keeps a store by issuer, and records every request, so a test drives the
flow to the end and reads what was asked and in which order.
"""

from __future__ import annotations

import base64
import hashlib
import json
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import msgspec

from mcp_core.auth.actions import (
    Authorized,
    AuthorizeUser,
    Credentials,
    Failed,
    FlowAction,
    LoadCredentials,
    SendRequest,
    StoreCredentials,
)
from mcp_core.auth.config import OAuthConfig
from mcp_core.auth.flow import OAuthFlow

SERVER = "https://mcp.example.com/mcp"
ISSUER = "https://auth.example.com"
NOW = 1_800_000_000.0

Answer = tuple[int, Any]


def prm(resource: str = SERVER, issuer: str = ISSUER, **more: Any) -> dict[str, Any]:
    return {"resource": resource, "authorization_servers": [issuer], **more}


def as_metadata(issuer: str = ISSUER, **more: Any) -> dict[str, Any]:
    document = {
        "issuer": issuer,
        "authorization_endpoint": f"{issuer}/authorize",
        "token_endpoint": f"{issuer}/token",
        "registration_endpoint": f"{issuer}/register",
        "code_challenge_methods_supported": ["S256"],
        "token_endpoint_auth_methods_supported": ["none"],
    }
    document.update(more)
    return {k: v for k, v in document.items() if v is not None}


def form_of(body: bytes) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(body.decode()).items()}


def query_of(url: str) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(urlsplit(url).query).items()}


@dataclass
class World:
    answers: dict[str, Answer] = field(default_factory=dict)
    store: dict[str, Credentials] = field(default_factory=dict)
    requests: list[SendRequest] = field(default_factory=list)
    authorizations: list[str] = field(default_factory=list)
    stored: list[Credentials] = field(default_factory=list)
    issued: int = 0
    tokens: dict[str, Any] = field(default_factory=dict)
    redirect_extra: dict[str, str] = field(default_factory=dict)
    now: float = NOW

    @classmethod
    def standard(cls, **metadata: Any) -> World:
        """PRM at the path-inserted URL, RFC 8414 metadata at the root, DCR."""
        world = cls()
        world.answers["https://mcp.example.com/.well-known/oauth-protected-resource/mcp"] = (
            200,
            prm(),
        )
        world.answers[f"{ISSUER}/.well-known/oauth-authorization-server"] = (
            200,
            as_metadata(**metadata),
        )
        world.answers[f"{ISSUER}/register"] = (201, {"client_id": "dyn-client"})
        return world

    def urls(self) -> list[str]:
        return [request.url for request in self.requests]

    def answer(self, request: SendRequest) -> tuple[int, list[tuple[str, str]], bytes]:
        self.requests.append(request)
        if request.url.endswith("/token") and request.url not in self.answers:
            self.issued += 1
            form = form_of(request.body)
            body = {"access_token": f"token-{self.issued}", "token_type": "Bearer"}
            body.update(self.tokens)
            if "scope" in form and "scope" not in self.tokens:
                body["scope"] = form["scope"]
            return 200, [("content-type", "application/json")], json.dumps(body).encode()
        status, content = self.answers.get(request.url, (404, {"error": "not_found"}))
        headers = [("content-type", "application/json")]
        if isinstance(content, tuple):  # (headers, body)
            headers, content = content
        data = content if isinstance(content, bytes) else json.dumps(content).encode()
        return status, headers, data

    def redirect_for(self, action: AuthorizeUser) -> str:
        self.authorizations.append(action.url)
        query = query_of(action.url)
        back = {"code": "the-code", "state": query["state"], **self.redirect_extra}
        return f"{action.redirect_uri}?{urlencode(back)}"

    def run(self, flow: OAuthFlow, actions: list[FlowAction], user: bool = True) -> FlowAction:
        """Carry out actions until the flow is authorized, failed, or (``user``
        False) asks for the user."""
        for _ in range(50):
            follow: list[FlowAction] | None = None
            for action in actions:
                if isinstance(action, StoreCredentials):
                    record = msgspec.json.decode(
                        msgspec.json.encode(action.credentials), type=Credentials
                    )
                    self.store[record.issuer] = record
                    self.stored.append(record)
                elif isinstance(action, (Authorized, Failed)):
                    return action
                elif isinstance(action, SendRequest):
                    follow = flow.received(*self.answer(action), self.now)
                elif isinstance(action, LoadCredentials):
                    follow = flow.loaded(self.store.get(action.issuer), self.now)
                elif isinstance(action, AuthorizeUser):
                    if not user:
                        return action
                    follow = flow.redirected(self.redirect_for(action), self.now)
            assert follow is not None, actions
            actions = follow
        raise AssertionError("the flow did not end")

    def challenge(
        self, flow: OAuthFlow, status: int = 401, header: str | None = "Bearer", user: bool = True
    ) -> FlowAction:
        return self.run(flow, flow.challenged(status, header, self.now), user)


def new_flow(**config: Any) -> OAuthFlow:
    return OAuthFlow(OAuthConfig(**config), SERVER)


def s256(verifier: str) -> str:
    digest = hashlib.sha256(verifier.encode()).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()
