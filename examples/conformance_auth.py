"""The auth scenarios of the conformance harness (``auth/...``), for conformance_client.py.

Each scenario's mock authorization server answers the authorization request at once
with a redirect carrying the code, so the "user agent" here fetches the
authorization URL and returns where it redirects. The harness passes client
credentials and keys in ``MCP_CONFORMANCE_CONTEXT`` (JSON).

conformance_client.py hands it every ``auth/`` scenario, so either works. Run it:

    scripts/conformance client --suite auth 'python examples/conformance_client.py'
    MCP_CONFORMANCE_SCENARIO=auth/metadata-default python examples/conformance_auth.py URL
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

import anyio

from mcp_core.auth.actions import SendRequest
from mcp_core.auth.config import IdentityExchange, OAuthConfig
from transports import Client, connect_http
from transports.http.oauth import OAuth, fetch
from transports.http.oauth_jwt import new_dpop_key
from transports.http.pool import ConnectionPool

CIMD_URL = "https://conformance-test.local/client-metadata.json"
"""The client metadata URL the harness's basic-cimd scenario expects."""

REDIRECT_URI = "http://localhost:3000/callback"


async def follow_redirect(url: str, redirect_uri: str) -> str:
    """Be the user's browser: ask for ``url`` and return where it redirects."""
    pool = ConnectionPool()
    try:
        with anyio.fail_after(10):
            status, headers, _ = await fetch(pool, SendRequest("GET", url, ()))
    finally:
        await pool.aclose()
    location = dict((name.lower(), value) for name, value in headers).get("location")
    if not 300 <= status < 400 or location is None:
        raise RuntimeError(f"the authorization endpoint answered {status}, not a redirect")
    return location


def oauth_for(scenario: str, context: dict[str, Any]) -> OAuth:
    """The OAuth settings a scenario calls for."""
    settings: dict[str, Any] = {
        "client_name": "mcp-core-conformance",
        "redirect_uri": REDIRECT_URI,
        "client_metadata_url": CIMD_URL,
        "dpop": new_dpop_key(),  # used only where the server advertises DPoP
    }
    if "client_id" in context:
        settings["client_id"] = context["client_id"]
        settings["client_secret"] = context.get("client_secret")
    if scenario.startswith("auth/client-credentials"):
        settings["grant"] = "client_credentials"
        if "private_key_pem" in context:
            from transports.http.oauth_jwt import pem_signer

            alg = context.get("signing_algorithm", "ES256")
            settings["signer"] = pem_signer(context["private_key_pem"], alg)
            settings["signing_alg"] = alg
    if "valid_jwt" in context:  # workload identity federation (SEP-1933)
        settings["grant"] = "jwt_bearer"
        settings["assertion"] = context["valid_jwt"]
    if "idp_token_endpoint" in context:  # enterprise-managed authorization (SEP-990)
        settings["grant"] = "jwt_bearer"
        settings["identity"] = IdentityExchange(
            token_endpoint=context["idp_token_endpoint"],
            id_token=context["idp_id_token"],
            client_id=context["idp_client_id"],
        )
    return OAuth(OAuthConfig(**settings), user_agent=follow_redirect, timeout=10)


async def exercise(client: Client) -> None:
    """What a client does once connected: list the tools, call the first one (the
    step-up scenario asks for more scope on tools/call)."""
    tools = await client.list_tools()
    if tools.tools:
        await client.call_tool(tools.tools[0].name, {})


async def run(scenario: str, url: str) -> None:
    context = json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT") or "{}")
    auth = oauth_for(scenario, context)
    with anyio.fail_after(25):
        async with connect_http(url, name="mcp-core-conformance", auth=auth) as client:
            await exercise(client)


def main(scenario: str, url: str) -> int:
    """Run one auth scenario; 0 on success, 1 when the client failed."""
    try:
        anyio.run(run, scenario, url)
    except Exception as exc:
        print(f"{scenario}: {exc}")
        return 1
    return 0


if __name__ == "__main__":
    name = os.environ.get("MCP_CONFORMANCE_SCENARIO", "")
    if not name.startswith("auth/") or len(sys.argv) < 2:
        print(f"not an auth scenario: {name!r}", file=sys.stderr)
        raise SystemExit(2)
    raise SystemExit(main(name, sys.argv[-1]))
