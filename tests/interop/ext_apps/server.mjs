// An MCP Apps server written with @modelcontextprotocol/ext-apps 2.0.4's server
// helpers on the TypeScript SDK 2.4 (@modelcontextprotocol/server), over stdio:
// the shape of the package's reference examples (a tool registered with
// registerAppTool, its view with registerAppResource), without a browser.
import { McpServer } from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import {
  registerAppResource,
  registerAppTool,
  getUiCapability,
  RESOURCE_MIME_TYPE,
} from "@modelcontextprotocol/ext-apps/server";

const VIEW = "<!doctype html><html><body><p id=time></p></body></html>";
function build() {
const server = new McpServer({ name: "ext-apps-clock", version: "1.0.0" });

registerAppTool(
  server,
  "get-time",
  {
    title: "Get Time",
    description: "The current time, drawn in a view",
    inputSchema: {},
    _meta: { ui: { resourceUri: "ui://get-time/view.html" } },
  },
  async (_args, ctx) => {
    // The request's own capabilities (2026-07-28 _meta), else the handshake's.
    const own = ctx?.mcpReq?.envelope?.["io.modelcontextprotocol/clientCapabilities"];
    const declared = getUiCapability(own ?? server.server.getClientCapabilities());
    const drawn = declared?.mimeTypes?.includes(RESOURCE_MIME_TYPE) ? "view" : "text";
    return { content: [{ type: "text", text: drawn }] };
  },
);

registerAppTool(
  server,
  "tick",
  {
    description: "For the view's button",
    inputSchema: {},
    _meta: { ui: { resourceUri: "ui://get-time/view.html", visibility: ["app"] } },
  },
  async () => ({ content: [{ type: "text", text: "tick" }] }),
);

registerAppResource(
  server,
  "Clock view",
  "ui://get-time/view.html",
  { _meta: { ui: { csp: { connectDomains: ["https://time.example"] }, prefersBorder: true } } },
  async () => ({
    contents: [
      {
        uri: "ui://get-time/view.html",
        mimeType: RESOURCE_MIME_TYPE,
        text: VIEW,
        _meta: { ui: { csp: { connectDomains: ["https://time.example"] }, prefersBorder: true } },
      },
    ],
  }),
);

return server;
}

// Both eras on one stdio connection: serveStdio pins an initialize opening to a
// 2025-era instance, and serves server/discover and 2026-07-28 requests too.
serveStdio(build);
