"""The wire format: JSON-RPC 2.0 messages and how they travel as bytes.

- `jsonrpc`: the envelope (`Request`, `Notification`, `Response`, `ErrorResponse`), the
  codec with its size and nesting limits, batches;
- `errors`: `LocalProtocolError` / `RemoteProtocolError`, the JSON-RPC error codes and the
  one table from a code to an HTTP status;
- `nesting`: how deep a JSON text nests, decided from its bytes before msgspec parses it;
- `framing`: newline-delimited JSON for stdio;
- `sse`: Server-Sent Events, an incremental parser and an encoder.

Nothing here knows an MCP method: these are the layers below the sessions.
"""
