// The official TypeScript SDK's server for `mcp-core bench --only servers`:
// node:http, StreamableHTTPServerTransport with sessions, one echo tool.
// node server.mjs PORT json|sse
import { randomUUID } from "node:crypto";
import http from "node:http";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { z } from "zod";

const port = Number(process.argv[2]);
const json = process.argv[3] === "json";
const transports = new Map();

function makeServer() {
  const server = new McpServer({ name: "bench", version: "1" });
  server.registerTool("echo", { inputSchema: { text: z.string() } }, async ({ text }) => ({
    content: [{ type: "text", text }],
  }));
  return server;
}

http
  .createServer(async (req, res) => {
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    const body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString()) : undefined;
    const sid = req.headers["mcp-session-id"];
    let transport = sid ? transports.get(sid) : undefined;
    if (!transport) {
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        enableJsonResponse: json,
        onsessioninitialized: (id) => transports.set(id, transport),
      });
      await makeServer().connect(transport);
    }
    await transport.handleRequest(req, res, body);
  })
  .listen(port, "127.0.0.1");
