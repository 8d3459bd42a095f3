"""A real OAuth 2.1 authorization server for the end-to-end tests, built on authlib.

authlib (a maintained OAuth library, in the test extra) does the protocol: the
authorization code grant with PKCE required, refresh tokens, client
authentication. This module adds what authlib leaves to its host: storage in
dicts, Dynamic Client Registration (a client per request, public), metadata
(RFC 8414) and the MCP server's Protected Resource Metadata (RFC 9728), all served
by a raw HTTP/1.1 server on 127.0.0.1 (`net_helpers.scripted`). The user approves
every authorization request at once.

Use: ``async with authorization_server() as auth: ...``, set ``auth.resource`` to
the MCP server's URL; ``auth.check`` is an `authenticate=` hook for that server that
accepts this server's access tokens.
"""

from __future__ import annotations

import json
import os
import secrets
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any, ClassVar
from urllib.parse import parse_qs, urlsplit

from authlib.oauth2.rfc6749 import AuthorizationServer, ClientMixin, OAuth2Request, grants
from authlib.oauth2.rfc6749.requests import BasicOAuth2Payload
from authlib.oauth2.rfc6750 import BearerTokenGenerator
from authlib.oauth2.rfc7636 import CodeChallenge
from net_helpers import RawConnection, response, scripted

from mcp_core.http.decisions import AuthRefusal, HttpRequest

SCOPE = "mcp"


@dataclass
class Client(ClientMixin):  # type: ignore[misc]
    client_id: str
    redirect_uris: list[str]

    def get_client_id(self) -> str:
        return self.client_id

    def get_default_redirect_uri(self) -> str:
        return self.redirect_uris[0]

    def get_allowed_scope(self, scope: str) -> str:
        return scope

    def check_redirect_uri(self, redirect_uri: str) -> bool:
        return redirect_uri in self.redirect_uris

    def check_client_secret(self, client_secret: str) -> bool:
        return False

    def check_endpoint_auth_method(self, method: str, endpoint: str) -> bool:
        return method == "none"

    def check_response_type(self, response_type: str) -> bool:
        return response_type == "code"

    def check_grant_type(self, grant_type: str) -> bool:
        return grant_type in ("authorization_code", "refresh_token")


@dataclass
class Code:
    code: str
    client_id: str
    redirect_uri: str
    scope: str
    code_challenge: str
    code_challenge_method: str

    def get_redirect_uri(self) -> str:
        return self.redirect_uri

    def get_scope(self) -> str:
        return self.scope


@dataclass
class Token:
    access_token: str
    refresh_token: str | None
    client_id: str
    scope: str
    expires_at: float
    revoked: bool = False

    def check_client(self, client: Client) -> bool:
        return client.client_id == self.client_id

    def get_scope(self) -> str:
        return self.scope

    def get_expires_in(self) -> int:
        return int(self.expires_at - time.time())

    def is_expired(self) -> bool:
        return False  # refresh tokens do not expire here

    def is_revoked(self) -> bool:
        return self.revoked


@dataclass
class Store:
    clients: dict[str, Client] = field(default_factory=dict)
    codes: dict[str, Code] = field(default_factory=dict)
    tokens: dict[str, Token] = field(default_factory=dict)
    grants: list[dict[str, str]] = field(default_factory=list)
    """Every token request's form, in order."""
    authorizations: list[dict[str, str]] = field(default_factory=list)
    """Every authorization request's query, in order."""


class _Request(OAuth2Request):  # type: ignore[misc]
    def __init__(self, method: str, uri: str, headers: dict[str, str], data: dict[str, str]):
        super().__init__(method, uri, headers=headers)
        self._data = data
        self.payload = BasicOAuth2Payload(data)

    @property
    def args(self) -> dict[str, str]:
        return self._data

    @property
    def form(self) -> dict[str, str]:
        return self._data


class _CodeGrant(grants.AuthorizationCodeGrant):  # type: ignore[misc]
    TOKEN_ENDPOINT_AUTH_METHODS: ClassVar[list[str]] = ["none"]

    def save_authorization_code(self, code: str, request: _Request) -> None:
        data = request.payload.data
        store: Store = self.server.store
        store.codes[code] = Code(
            code=code,
            client_id=request.client.client_id,
            redirect_uri=data["redirect_uri"],
            scope=data.get("scope", ""),
            code_challenge=data["code_challenge"],
            code_challenge_method=data["code_challenge_method"],
        )

    def query_authorization_code(self, code: str, client: Client) -> Code | None:
        found = self.server.store.codes.get(code)
        return found if found is not None and found.client_id == client.client_id else None

    def delete_authorization_code(self, authorization_code: Code) -> None:
        self.server.store.codes.pop(authorization_code.code, None)

    def authenticate_user(self, authorization_code: Code) -> str:
        return "the-user"


class _RefreshGrant(grants.RefreshTokenGrant):  # type: ignore[misc]
    TOKEN_ENDPOINT_AUTH_METHODS: ClassVar[list[str]] = ["none"]
    INCLUDE_NEW_REFRESH_TOKEN = True  # rotation (OAuth 2.1 section 4.3.1)

    def authenticate_refresh_token(self, refresh_token: str) -> Token | None:
        for token in self.server.store.tokens.values():
            if token.refresh_token == refresh_token and not token.revoked:
                return token
        return None

    def authenticate_user(self, refresh_token: Token) -> str:
        return "the-user"

    def revoke_old_credential(self, refresh_token: Token) -> None:
        refresh_token.revoked = True


class _Server(AuthorizationServer):  # type: ignore[misc]
    def __init__(self, store: Store, lifetime: int) -> None:
        super().__init__(scopes_supported=[SCOPE])
        self.store = store
        self.lifetime = lifetime
        self.register_grant(_CodeGrant, [CodeChallenge(required=True)])
        self.register_grant(_RefreshGrant)
        self.register_token_generator(
            "default",
            BearerTokenGenerator(
                access_token_generator=lambda **_: secrets.token_urlsafe(16),
                refresh_token_generator=lambda **_: secrets.token_urlsafe(16),
                expires_generator=lambda client, grant_type: self.lifetime,
            ),
        )

    def query_client(self, client_id: str) -> Client | None:
        return self.store.clients.get(client_id)

    def save_token(self, token: dict[str, Any], request: _Request) -> None:
        self.store.tokens[token["access_token"]] = Token(
            access_token=token["access_token"],
            refresh_token=token.get("refresh_token"),
            client_id=request.client.client_id,
            scope=token.get("scope", ""),
            expires_at=time.time() + token["expires_in"],
        )

    def create_oauth2_request(self, request: _Request) -> _Request:
        return request

    def handle_response(
        self, status: int, body: Any, headers: list[tuple[str, str]]
    ) -> tuple[int, Any, list[tuple[str, str]]]:
        return status, body, headers

    def send_signal(self, name: str, *args: Any, **kwargs: Any) -> None:
        pass


@dataclass
class Running:
    """The authorization server, running."""

    url: str
    resource: str
    store: Store

    @property
    def prm_url(self) -> str:
        return f"{self.url}/prm"

    def check(self, request: HttpRequest) -> str | AuthRefusal:
        """An `authenticate=` hook for the MCP server: its access tokens only."""
        header = request.headers.get("authorization", "")
        token = self.store.tokens.get(header.removeprefix("Bearer "))
        if token is not None and not token.revoked and token.expires_at > time.time():
            return f"user:{token.client_id}"
        challenge = f'Bearer resource_metadata="{self.prm_url}", scope="{SCOPE}"'
        if header:
            challenge += ', error="invalid_token"'
        return AuthRefusal(401, "authorization required", (("www-authenticate", challenge),))


@asynccontextmanager
async def authorization_server(lifetime: int = 3600) -> AsyncIterator[Running]:
    """The server on 127.0.0.1 (free port)."""
    os.environ["AUTHLIB_INSECURE_TRANSPORT"] = "1"  # plain http on the loopback only
    store = Store()
    box: dict[str, str] = {}
    running = Running("", "", store)
    server = _Server(store, lifetime)

    def metadata() -> dict[str, Any]:
        base = box["url"]
        return {
            "issuer": base,
            "authorization_endpoint": f"{base}/authorize",
            "token_endpoint": f"{base}/token",
            "registration_endpoint": f"{base}/register",
            "scopes_supported": [SCOPE],
            "response_types_supported": ["code"],
            "grant_types_supported": ["authorization_code", "refresh_token"],
            "code_challenge_methods_supported": ["S256"],
            "token_endpoint_auth_methods_supported": ["none"],
        }

    def answer(method: str, target: str, headers: dict[str, str], body: bytes) -> bytes:
        parts = urlsplit(target)
        uri = f"{box['url']}{target}"
        if parts.path == "/.well-known/oauth-authorization-server":
            return _json(200, metadata())
        if parts.path == "/prm":
            prm = {"resource": running.resource, "authorization_servers": [box["url"]]}
            return _json(200, {**prm, "scopes_supported": [SCOPE]})
        if parts.path == "/register" and method == "POST":
            asked = json.loads(body)
            client = Client(secrets.token_hex(8), list(asked["redirect_uris"]))
            store.clients[client.client_id] = client
            answer = {"client_id": client.client_id, "token_endpoint_auth_method": "none"}
            return _json(201, {**answer, "redirect_uris": client.redirect_uris})
        if parts.path == "/authorize":
            query = {k: v[0] for k, v in parse_qs(parts.query).items()}
            store.authorizations.append(query)
            request = _Request(method, uri, headers, query)
            grant = server.get_authorization_grant(request)
            status, content, extra = server.create_authorization_response(
                request, grant_user="the-user", grant=grant
            )
            return response(status, dict(extra), json.dumps(content).encode() if content else b"")
        if parts.path == "/token" and method == "POST":
            form = {k: v[0] for k, v in parse_qs(body.decode()).items()}
            store.grants.append(form)
            status, content, extra = server.create_token_response(
                _Request(method, uri, headers, form)
            )
            return response(status, dict(extra), json.dumps(content).encode())
        return _json(404, {"error": "not_found"})

    async def handle(connection: RawConnection) -> None:
        while (request := await connection.request()) is not None:
            data = answer(request.method, request.target, request.headers, request.body)
            await connection.write(data)

    async with scripted(handle) as port:
        box["url"] = running.url = f"http://127.0.0.1:{port}"
        yield running


def _json(status: int, document: dict[str, Any]) -> bytes:
    return response(status, {"content-type": "application/json"}, json.dumps(document).encode())
