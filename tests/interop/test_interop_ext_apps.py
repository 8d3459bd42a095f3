"""MCP Apps interop with the TypeScript package ``@modelcontextprotocol/ext-apps``
2.0.4 on the TypeScript SDK 2.4, the parts that run without a browser:

* our `Client(apps=True)`, both eras, against a server written with its server
  helpers (``registerAppTool``, ``registerAppResource``, ``getUiCapability``;
  tests/interop/ext_apps/server.mjs, spawned over stdio): we find each tool's view
  (the package writes the deprecated flat key beside ``_meta.ui``), read it, keep
  its app-only tool off the model's list, and its tool sees our declaration;
* its host-side readers (``getToolUiResourceUri``, ``isToolVisibilityAppOnly``,
  ``buildAllowAttribute``; tests/interop/ext_apps/host.mjs, on the SDK's client)
  against our Apps server on our h11 server, asyncio and trio.

The packages come from npm into a cache (MCP_CORE_EXT_APPS_CACHE, default
~/.cache/mcp-core-apps/2.0.4), once; the tests skip without node and npm.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Final

import anyio
import paths
import pytest
from apps_helpers import CHART, apps_server
from http_helpers import running
from limits import HANG
from runtime_helpers import ERAS

from mcp_core.apps import MIME_TYPE, for_model, view_uri
from transports.client import Client
from transports.stdio import stdio_connector

pytestmark = pytest.mark.anyio

VERSION: Final = "2.0.4"
PACKAGES: Final = (
    f"@modelcontextprotocol/ext-apps@{VERSION}",
    "@modelcontextprotocol/server@2.4.0",
    "@modelcontextprotocol/client@2.4.0",
    "@modelcontextprotocol/core@2.4.0",
    "zod@^4.2",
)
SCRIPTS: Final = paths.TESTS / "interop" / "ext_apps"
VIEW: Final = "<!doctype html><html><body><p id=time></p></body></html>"


@pytest.fixture(scope="module")
def ext_apps() -> Path:
    """The folder holding the packages and our scripts (installed on first use)."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        pytest.skip("node and npm are needed for the ext-apps interop")
    default = Path.home() / ".cache" / "mcp-core-apps" / VERSION
    folder = Path(os.environ.get("MCP_CORE_EXT_APPS_CACHE", default))
    installed = folder / "node_modules" / "@modelcontextprotocol" / "ext-apps" / "package.json"
    if not installed.exists():
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "package.json").write_text('{"name": "apps-interop", "private": true}\n')
        command = [npm, "install", "--no-audit", "--no-fund", *PACKAGES]
        done = subprocess.run(command, cwd=folder, capture_output=True, timeout=600, check=False)
        if done.returncode != 0:
            pytest.skip(f"npm install failed: {done.stderr.decode()[-500:]}")
    if json.loads(installed.read_text())["version"] != VERSION:
        pytest.skip(f"{folder} holds another ext-apps than {VERSION}")
    # Node resolves a script's imports from the script's folder: ours go beside
    # the packages.
    for script in SCRIPTS.glob("*.mjs"):
        shutil.copyfile(script, folder / script.name)
    return folder


@pytest.mark.parametrize("era", ["legacy", "modern"])
async def test_our_host_with_an_ext_apps_server(ext_apps: Path, era: str) -> None:
    connector = stdio_connector(["node", str(ext_apps / "server.mjs")], cwd=ext_apps)
    with anyio.fail_after(HANG):
        async with Client(connector, apps=True, revisions=ERAS[era]) as client:
            revision = client.revision
            tools = (await client.list_tools()).tools
            get_time = next(tool for tool in tools if tool.name == "get-time")
            view = await client.read_view(get_time)
            called = await client.call_tool("get-time", {})
    assert revision in ERAS[era]
    assert view_uri(get_time) == "ui://get-time/view.html"
    assert [tool.name for tool in for_model(tools)] == ["get-time"]
    assert view.html == VIEW and view.ui.prefers_border is True
    assert "connect-src 'self' https://time.example" in view.content_security_policy()
    assert called.content[0].text == "view"  # type: ignore[union-attr]


async def test_ext_apps_host_with_our_server(ext_apps: Path) -> None:
    with anyio.fail_after(HANG):
        async with running(apps_server()) as port:
            done = await anyio.run_process(
                ["node", str(ext_apps / "host.mjs"), f"http://127.0.0.1:{port}/mcp"],
                cwd=ext_apps,
                check=False,
            )
    assert done.returncode == 0, done.stderr.decode()
    found = json.loads(done.stdout.decode().strip().splitlines()[-1])
    assert found["tools"] == {
        "sales": {"view": "ui://charts/bar.html", "appOnly": False},
        "refresh": {"view": "ui://charts/bar.html", "appOnly": True},
    }
    view = found["views"]["ui://charts/bar.html"]
    assert view["mimeType"] == MIME_TYPE and view["text"] == CHART
    assert view["csp"]["connectDomains"] == ["https://api.example.com"]
    assert view["allow"] == "clipboard-write"
    # Its client declared the extension: our tool drew for a view.
    assert found["sales"] == "chart of north drawn in the view"
