"""Apps: a tool with an interactive view (MCP Apps, ``io.modelcontextprotocol/ui``).

A view is a ``ui://`` resource holding an HTML document, served with the
extension's MIME type (``text/html;profile=mcp-app``) and the sandbox it needs
(origins for its CSP, browser permissions). A tool names its view in
``_meta.ui.resourceUri``; a host that renders views (it declared the extension)
shows the tool's result in it, any other client reads the tool's text. A tool
whose visibility is ``["app"]`` is for the view's buttons, not for the model.

Run it:

    python examples/apps.py
    mcp-core list "python examples/apps.py"
    mcp-core read "python examples/apps.py" ui://dice/view.html
"""

from __future__ import annotations

import random

from mcp_core import Context, Server
from mcp_core.apps import Apps, Csp, client_supports_apps
from transports import run_stdio

VIEW = """<!doctype html>
<html>
<head><meta charset="utf-8"><title>Dice</title></head>
<body>
<p id="roll">...</p>
<button id="again">Roll again</button>
<script>
let next = 1;
function request(method, params) {
  const id = next++;
  window.parent.postMessage({jsonrpc: "2.0", id, method, params}, "*");
  return new Promise((resolve) => {
    window.addEventListener("message", function answer(event) {
      if (event.data && event.data.id === id) {
        window.removeEventListener("message", answer);
        resolve(event.data.result);
      }
    });
  });
}
window.addEventListener("message", (event) => {
  const message = event.data || {};
  if (message.method === "ui/notifications/tool-result") {
    document.getElementById("roll").textContent = message.params.structuredContent.faces.join(" ");
  }
});
document.getElementById("again").onclick = async () => {
  const result = await request("tools/call", {name: "reroll", arguments: {}});
  document.getElementById("roll").textContent = result.structuredContent.faces.join(" ");
};
request("ui/initialize", {appCapabilities: {}, clientInfo: {name: "dice", version: "1"},
                          protocolVersion: "2026-01-26"})
  .then(() => window.parent.postMessage(
    {jsonrpc: "2.0", method: "ui/notifications/initialized"}, "*"));
</script>
</body>
</html>
"""

server = Server("dice", "1.0", description="Dice with a view")
apps = Apps(server)
apps.view("ui://dice/view.html", VIEW, name="dice_view", csp=Csp(), prefers_border=True)


@apps.tool(view="ui://dice/view.html")
async def roll(ctx: Context, dice: int = 2) -> dict[str, list[int]]:
    """Roll some six-sided dice."""
    faces = [random.randint(1, 6) for _ in range(max(1, min(dice, 10)))]
    # The result's text block (a JSON copy of the dict) is what a client
    # without views reads; a host with views gets the same and draws it.
    await ctx.debug(f"rolled for a {'host' if client_supports_apps(ctx) else 'text-only client'}")
    return {"faces": faces}


@apps.tool(view="ui://dice/view.html", visibility=["app"])
def reroll() -> dict[str, list[int]]:
    """Roll two dice again (for the view's button)."""
    return {"faces": [random.randint(1, 6) for _ in range(2)]}


if __name__ == "__main__":
    run_stdio(server)
