// A host's side of MCP Apps with @modelcontextprotocol/ext-apps 2.0.4's app-bridge
// helpers on the TypeScript SDK 2.4 client: connect to the MCP server at argv[2]
// (streamable HTTP), list its tools, find each tool's view and visibility with the
// package's own readers, read the views, and print what it found as one JSON line.
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import {
  buildAllowAttribute,
  getToolUiResourceUri,
  isToolVisibilityAppOnly,
  RESOURCE_MIME_TYPE,
} from "@modelcontextprotocol/ext-apps/app-bridge";

const client = new Client(
  { name: "ext-apps-host", version: "1.0.0" },
  { capabilities: { extensions: { "io.modelcontextprotocol/ui": { mimeTypes: [RESOURCE_MIME_TYPE] } } } },
);
await client.connect(new StreamableHTTPClientTransport(new URL(process.argv[2])));
const { tools } = await client.listTools();
const found = { tools: {}, views: {} };
for (const tool of tools) {
  const uri = getToolUiResourceUri(tool);
  found.tools[tool.name] = { view: uri ?? null, appOnly: isToolVisibilityAppOnly(tool) };
  if (uri && !(uri in found.views)) {
    const { contents } = await client.readResource({ uri });
    const [view] = contents;
    found.views[uri] = {
      mimeType: view.mimeType,
      text: view.text,
      csp: view._meta?.ui?.csp ?? null,
      allow: buildAllowAttribute(view._meta?.ui?.permissions),
    };
  }
}
const call = await client.callTool({ name: "sales", arguments: { region: "north" } });
found.sales = call.content[0].text;
found.protocolVersion = client.getNegotiatedProtocolVersion?.() ?? null;
console.log(JSON.stringify(found));
await client.close();
