"""Streamable HTTP as sans-IO rules, for servers and clients (both eras).

Server side: `server` (`HttpEndpoint`: given a request head and body, decide the answer),
`config`, `decisions` (what it decides), `headers` (media types, Origin and Host),
`request_checks` (the 2026-07-28 `Mcp-Method` / `Mcp-Name` / `Mcp-Param-*` checks),
`sessions` (legacy sessions and SSE event storage for resumption), `legacy_sse` (the
HTTP+SSE transport of 2024-11-05).

Client side: `client` (`HttpClientEndpoint`), `client_config`, `client_actions` (what it
asks the adapter to do), `client_exchange` (the records of requests in flight),
`client_answers` (reading JSON and SSE answers), `client_fallbacks` (a lost session,
refused headers, an older server), `tool_headers` (the `Mcp-Param-*` headers a tool's
schema asks for), `urls`.
"""
