"""MCP over HTTP on anyio: the h11 server, the ASGI app and the h11 client.

- `server`: `serve_http` / `run_http`, an h11 server (accepting, limits, binding);
- `connection`: one client connection of that server, read with h11;
- `asgi`: `asgi_app`, the same service as an ASGI 3 application;
- `service`: what both do besides reading and writing HTTP (sessions, streams, handlers);
  `answers` its part that writes each answer (JSON or SSE);
- `responder`, `timeouts`, `admission`: what an adapter and the service share (how a
  response is written, how long clients may take, who a request comes from);
- `streams`: which HTTP answer each outgoing message goes on;
- `client` / `pool`: the client side (`connect_http`) and its keep-alive pool, which
  goes through the proxies the environment names (CONNECT tunnels for https);
- `head_lines`: header lines checked once and reused (never a credential).

The HTTP rules themselves are `mcp_core.http`; these modules carry them out.
"""
