"""What the resource server tests share: signing keys, hand-made JWTs, a JWKS
endpoint and an introspection endpoint on 127.0.0.1 that count their requests,
and a protected server run the h11 way or the ASGI way (uvicorn, at the root)."""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any, Final
from urllib.parse import parse_qs

import anyio
import jwt
from asgi_helpers import uvicorn_serving
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from http_helpers import Gates, RawClient, make_server
from net_helpers import RawConnection, response, scripted

from mcp_core import Context, HttpServerConfig, Server
from mcp_core.auth import ResourceConfig, ScopePolicy, TokenVerifier
from transports.auth import BearerAuth
from transports.http.asgi import asgi_app
from transports.http.server import serve_http

ISSUER: Final = "https://auth.example.com"
RESOURCE: Final = "https://mcp.example.com/mcp"
POLICY: Final = ScopePolicy(
    required=("mcp",),
    tools={"delete": ("files:write", "files:admin")},
    implies={"files": ("files:write", "files:admin")},
)
CONFIG: Final = ResourceConfig(
    RESOURCE, (ISSUER,), scopes=POLICY, scopes_supported=("mcp",), resource_name="test"
)

EC_KEY: Final = ec.generate_private_key(ec.SECP256R1())
OTHER_KEY: Final = ec.generate_private_key(ec.SECP256R1())
RSA_KEY: Final = rsa.generate_private_key(public_exponent=65537, key_size=2048)


def public_jwk(key: Any, kid: str, **extra: Any) -> dict[str, Any]:
    algorithm = jwt.algorithms.ECAlgorithm if isinstance(key, ec.EllipticCurvePrivateKey) else None
    if algorithm is None:
        found: dict[str, Any] = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(key.public_key()))
    else:
        found = json.loads(algorithm.to_jwk(key.public_key()))
    return {**found, "kid": kid, "use": "sig", **extra}


def claims(**changes: Any) -> dict[str, Any]:
    """Good claims for our resource, with ``changes`` (None removes a claim)."""
    now = int(time.time())
    base: dict[str, Any] = {
        "iss": ISSUER,
        "sub": "alice",
        "aud": RESOURCE,
        "exp": now + 300,
        "iat": now,
        "scope": "mcp",
        "client_id": "test-client",
    }
    base.update(changes)
    return {k: v for k, v in base.items() if v is not None}


def token(key: Any = EC_KEY, alg: str = "ES256", kid: str | None = "k1", **changes: Any) -> str:
    """A JWT signed by ``key`` with `claims` (``changes`` applied)."""
    headers = {"kid": kid} if kid is not None else {}
    return jwt.encode(claims(**changes), key, algorithm=alg, headers=headers)


def bearer(value: str) -> dict[str, str]:
    return {"authorization": f"Bearer {value}"}


@dataclass
class Endpoint:
    """A test HTTP endpoint: its URL and the requests it got."""

    url: str
    requests: list[Any] = field(default_factory=list)


@asynccontextmanager
async def jwks_endpoint(keys: Callable[[], list[dict[str, Any]]]) -> AsyncIterator[Endpoint]:
    """GET /jwks answers ``{"keys": keys()}``; every request is counted."""
    found = Endpoint("")

    async def handle(connection: RawConnection) -> None:
        while (request := await connection.request()) is not None:
            found.requests.append(request)
            body = json.dumps({"keys": keys()}).encode()
            await connection.write(response(200, {"content-type": "application/json"}, body))

    async with scripted(handle) as port:
        found.url = f"http://127.0.0.1:{port}/jwks"
        yield found


@asynccontextmanager
async def introspection_endpoint(answers: dict[str, dict[str, Any]]) -> AsyncIterator[Endpoint]:
    """POST /introspect answers ``answers[token]`` (else inactive); counted."""
    found = Endpoint("")

    async def handle(connection: RawConnection) -> None:
        while (request := await connection.request()) is not None:
            found.requests.append(request)
            form = parse_qs(request.body.decode())
            answer = answers.get(form.get("token", [""])[0], {"active": False})
            body = json.dumps(answer).encode()
            await connection.write(response(200, {"content-type": "application/json"}, body))

    async with scripted(handle) as port:
        found.url = f"http://127.0.0.1:{port}/introspect"
        yield found


def protected_server() -> Server:
    server = make_server(Gates())

    @server.tool
    def whoami(ctx: Context) -> str:
        """Who the transport says is calling."""
        return str(ctx.principal)

    @server.tool
    def delete(path: str) -> str:
        """Needs files:write and files:admin."""
        return f"deleted {path}"

    @server.tool
    async def confirm(ctx: Context) -> str:
        """Ask the user first (2026-07-28: a requestState round trip)."""
        answer = await ctx.elicit("Sure?", {"type": "object", "properties": {}})
        return f"{ctx.principal} said {answer.action}"

    return server


@asynccontextmanager
async def protecting(
    kind: str, verifier: TokenVerifier, config: ResourceConfig = CONFIG
) -> AsyncIterator[Callable[[str], RawClient]]:
    """Serve the protected server (``kind`` "h11" or "asgi"); yields a function
    that opens a raw client on a target."""
    auth = BearerAuth(config, verifier)
    server = protected_server()
    http = HttpServerConfig()
    if kind == "asgi":
        app = asgi_app(server, config=http, authenticate=auth)
        async with uvicorn_serving(app) as port:
            yield lambda target: RawClient(port, target)
        return
    async with anyio.create_task_group() as tg:
        port = await tg.start(
            lambda task_status: serve_http(
                server, port=0, config=http, authenticate=auth, task_status=task_status
            )
        )
        try:
            yield lambda target: RawClient(port, target)
        finally:
            tg.cancel_scope.cancel()
