"""``mcp-core serve|gateway --transport http --auth-jwks URL --auth-issuer URL``: a
real server or gateway process protected with tokens checked against a JWKS served
by the test (the gateway on asyncio and trio); and the option errors. Every wait
bounded by LIMIT."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import paths
import pytest
from auth_helpers import EC_KEY, ISSUER, bearer, jwks_endpoint, public_jwk, token
from http_helpers import LIMIT, RawClient, initialize
from runtime_helpers import only_text

from transports import connect_http
from transports.cli import main

pytestmark = pytest.mark.anyio

HELLO = str(paths.ROOT / "examples" / "hello.py")
AUDIENCE = "https://mcp.example.com/mcp"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def _listening_port(stderr: Any) -> int:
    # The port of the first "... serving ... on URL" line.
    seen = b""
    while not any(b" on http://" in line for line in seen.split(b"\n")[:-1]):
        seen += await stderr.receive()
    line = next(line for line in seen.split(b"\n") if b" on http://" in line)
    url = line.decode().rsplit(" ", 1)[1]
    return int(url.removeprefix("http://127.0.0.1:").removesuffix("/mcp"))


def _gateway_config(directory: Path) -> str:
    path = directory / "servers.json"
    servers = {"hello": {"command": sys.executable, "args": [HELLO]}}
    path.write_text(json.dumps({"mcpServers": servers}))
    return str(path)


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


@pytest.mark.parametrize("backend", ["asyncio", "trio"])
async def test_the_gateway_requires_tokens_from_the_issuer(tmp_path: Path, backend: str) -> None:
    # Whoever reaches the gateway's port acts with its upstreams' credentials, so
    # it is a resource server with the same options as `serve` (issue 30, item 11).
    config = _gateway_config(tmp_path)
    env = {**os.environ, "PYTHONPATH": str(paths.ROOT)}
    with anyio.fail_after(LIMIT * 6):
        async with jwks_endpoint(lambda: [public_jwk(EC_KEY, "k1")]) as jwks:
            argv = [sys.executable, "-m", "transports", "gateway", "--config", config]
            argv += ["--transport", "http", "--port", "0", "--backend", backend]
            argv += ["--auth-jwks", jwks.url, "--auth-issuer", ISSUER]
            argv += ["--auth-audience", AUDIENCE]
            process = await anyio.open_process(
                argv, cwd=paths.ROOT, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL
            )
            try:
                assert process.stderr is not None
                port = await _listening_port(process.stderr)
                async with RawClient(port) as raw:
                    await raw.send("POST", initialize())
                    refused = await raw.answer()
                    assert refused.status == 401
                    assert "resource_metadata=" in refused.headers["www-authenticate"]
                    await raw.send("POST", initialize(), **bearer(token(aud="https://other")))
                    assert (await raw.answer()).status == 401
                url = f"http://127.0.0.1:{port}/mcp"
                async with connect_http(url, headers=bearer(token(aud=AUDIENCE))) as client:
                    result = await client.call_tool("hello.HelloTool", {"value": "gate"})
                    assert only_text(result) == "Hello-bonjour gate!"
            finally:
                process.terminate()
                with anyio.CancelScope(shield=True):
                    await process.wait()
                    await process.aclose()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--auth-jwks", "u"], "--auth-jwks only applies to --transport http"),
        (["--transport", "http", "--auth-jwks", "u"], "--auth-jwks needs --auth-issuer"),
        (["--transport", "http", "--auth-issuer", ISSUER], "need --auth-jwks"),
    ],
)
def test_gateway_auth_options(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    assert main(["gateway", "--config", _gateway_config(tmp_path), *args]) == 2
    assert message in capsys.readouterr().err
