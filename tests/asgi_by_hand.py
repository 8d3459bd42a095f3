"""An ASGI app driven by hand, with no server: on any anyio backend (uvicorn runs
asyncio only, and no trio ASGI server is installed), one whole HTTP request in,
the whole response out, as an ASGI server would pass them (ASGI 3.0 HTTP scope,
``http.request`` then ``http.disconnect`` once the response has ended)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import anyio
from http_helpers import LIMIT


@dataclass
class AsgiAnswer:
    status: int = 0
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b""

    def json(self) -> Any:
        """The body as JSON, or the JSON of the first SSE ``data:`` line."""
        text = self.body.decode()
        for line in text.splitlines():
            if line.startswith("data:") and line[5:].strip():
                return json.loads(line[5:])
        return json.loads(text)


async def asgi_request(
    app: Any,
    method: str,
    target: str,
    body: bytes | dict[str, Any] = b"",
    client: tuple[str, int] = ("127.0.0.1", 50123),
    **headers: str,
) -> AsgiAnswer:
    """Send one request to ``app`` (whose lifespan runs: ``app.running()``);
    ``headers`` as keyword arguments, ``_`` for ``-``; a dict body goes as JSON
    with the Content-Type and Accept of an MCP POST."""
    data = json.dumps(body).encode() if isinstance(body, dict) else body
    fields = {"host": "127.0.0.1", "content-length": str(len(data))}
    if method == "POST":
        fields["content-type"] = "application/json"
        fields["accept"] = "application/json, text/event-stream"
    fields.update((key.replace("_", "-"), value) for key, value in headers.items())
    path, _, query = target.partition("?")
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path,
        "root_path": "",
        "query_string": query.encode(),
        "headers": [(k.encode(), v.encode()) for k, v in fields.items()],
        "client": client,
        "server": ("127.0.0.1", 8000),
    }
    answer = AsgiAnswer()
    chunks: list[bytes] = []
    ended = anyio.Event()
    sent = False

    async def receive() -> dict[str, Any]:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": data, "more_body": False}
        await ended.wait()
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            answer.status = message["status"]
            answer.headers = {k.decode(): v.decode() for k, v in message["headers"]}
        elif message["type"] == "http.response.body":
            chunks.append(message.get("body", b""))
            if not message.get("more_body", False):
                ended.set()

    with anyio.fail_after(LIMIT):
        await app(scope, receive, send)
    answer.body = b"".join(chunks)
    return answer
