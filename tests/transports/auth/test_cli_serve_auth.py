"""``mcp-core serve --transport http --auth-jwks URL --auth-issuer URL``: a real
server process protected with tokens checked against a JWKS served by the test;
and the option errors. Every wait bounded by LIMIT."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import anyio
import paths
import pytest
from auth_helpers import EC_KEY, ISSUER, bearer, jwks_endpoint, public_jwk, token
from http_helpers import LIMIT, RawClient, initialize

from transports.cli import main

pytestmark = pytest.mark.anyio

HELLO = str(paths.ROOT / "examples" / "hello.py")
AUDIENCE = "https://mcp.example.com/mcp"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def _listening_port(stderr: Any) -> int:
    seen = b""
    while b"\n" not in seen:
        seen += await stderr.receive()
    url = seen.split(b"\n", 1)[0].decode().rsplit(" ", 1)[1]
    return int(url.removeprefix("http://127.0.0.1:").removesuffix("/mcp"))


async def test_serve_requires_tokens_from_the_issuer() -> None:
    with anyio.fail_after(LIMIT * 3):
        async with jwks_endpoint(lambda: [public_jwk(EC_KEY, "k1")]) as jwks:
            argv = [sys.executable, "-m", "transports", "serve", HELLO, "--transport", "http"]
            argv += ["--port", "0", "--auth-jwks", jwks.url, "--auth-issuer", ISSUER]
            argv += ["--auth-audience", AUDIENCE, "--auth-scope", "mcp"]
            process = await anyio.open_process(
                argv, cwd=paths.ROOT, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL
            )
            try:
                assert process.stderr is not None
                port = await _listening_port(process.stderr)
                async with RawClient(port, "/.well-known/oauth-protected-resource/mcp") as raw:
                    await raw.send("GET")
                    metadata = (await raw.answer()).json()
                    assert metadata["resource"] == AUDIENCE
                    assert metadata["authorization_servers"] == [ISSUER]
                    assert metadata["scopes_supported"] == ["mcp"]
                async with RawClient(port) as raw:
                    await raw.send("POST", initialize())
                    assert (await raw.answer()).status == 401
                    await raw.send("POST", initialize(), **bearer(token(scope="other")))
                    assert (await raw.answer()).status == 403
                    await raw.send("POST", initialize(), **bearer(token(aud=AUDIENCE)))
                    assert (await raw.answer()).status == 200
            finally:
                process.terminate()
                await process.wait()
                await process.aclose()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--auth-jwks", "http://x/jwks"], "--auth-jwks needs --auth-issuer"),
        (["--auth-issuer", ISSUER], "need --auth-jwks"),
        (["--auth-jwks", "u", "--auth-issuer", ISSUER, "--port", "0"], "--port 0 needs"),
    ],
)
def test_serve_auth_options(
    capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    assert main(["serve", HELLO, "--transport", "http", *args]) == 2
    assert message in capsys.readouterr().err


def test_auth_options_are_for_http(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", HELLO, "--auth-jwks", "http://x/jwks"]) == 2
    assert "--auth-jwks only applies to --transport http" in capsys.readouterr().err
