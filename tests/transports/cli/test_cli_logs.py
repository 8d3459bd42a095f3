"""``--log-level`` and ``--log-format`` of ``mcp-core serve`` and ``gateway``, on real
processes: the application's own records on stderr (never stdout, the stdio
wire), as text or one JSON object a line; and the manager's line per change of a
link's state. Every wait is bounded."""

from __future__ import annotations

import json
import os
import re
import selectors
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import IO, Any, Final

import paths
import pytest

from transports.cli import main
from transports.cli.logs import JsonFormatter

TIMEOUT_S: Final = 60.0
TIME: Final = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")
APP: Final = """
    import logging

    from mcp_core import Server

    log = logging.getLogger("app.tools")
    server = Server("logs", "1")


    @server.tool
    def hello(name: str) -> str:
        \"\"\"Greet.\"\"\"
        log.info("greeting %s", name, extra={"who": name})
        log.debug("not at info")
        return f"hi {name}"
"""


def app(tmp_path: Path) -> str:
    path = tmp_path / "app.py"
    path.write_text(textwrap.dedent(APP))
    return str(path)


def spawn(*args: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "transports", *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(paths.ROOT)},
    )


class Lines:
    """The lines of a child's pipe, read as they come (each wait within TIMEOUT_S)."""

    def __init__(self, stream: IO[bytes] | None) -> None:
        assert stream is not None
        self.fd = stream.fileno()
        self.seen: list[str] = []
        self.left = b""

    def until(self, done: Any) -> list[str]:
        """Read until ``done(lines so far)``."""
        deadline = time.monotonic() + TIMEOUT_S
        with selectors.DefaultSelector() as selector:
            selector.register(self.fd, selectors.EVENT_READ)
            while not done(self.seen):
                left = deadline - time.monotonic()
                assert left > 0 and selector.select(left), f"timed out; seen: {self.seen}"
                chunk = os.read(self.fd, 65536)
                assert chunk, f"the pipe ended; seen: {self.seen}"
                *lines, self.left = (self.left + chunk).split(b"\n")
                self.seen += [line.decode() for line in lines]
        return self.seen


def message(payload: dict[str, Any]) -> bytes:
    return json.dumps({"jsonrpc": "2.0", **payload}).encode() + b"\n"


HELLO: Final = [
    message(
        {
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"},
            },
        }
    ),
    message({"method": "notifications/initialized"}),
    message(
        {"id": 2, "method": "tools/call", "params": {"name": "hello", "arguments": {"name": "Ada"}}}
    ),
]


def serve_stdio(tmp_path: Path, *options: str) -> tuple[list[str], str]:
    """stdout lines and stderr of one tools/call to the app served on stdio."""
    process = spawn("serve", app(tmp_path), *options)
    assert process.stdin is not None and process.stdout is not None
    try:
        process.stdin.write(b"".join(HELLO))
        process.stdin.flush()
        out = Lines(process.stdout).until(lambda seen: any('"id":2' in x for x in seen))
        _, err = process.communicate(timeout=TIMEOUT_S)
    finally:
        process.kill()
    return out, err.decode()


def test_stdio_json_logs_go_to_stderr_with_the_applications_own(tmp_path: Path) -> None:
    out, err = serve_stdio(tmp_path, "--log-level", "info", "--log-format", "json")
    assert all(json.loads(line)["jsonrpc"] == "2.0" for line in out)  # the wire only
    assert "hi Ada" in out[-1]
    records = [json.loads(line) for line in err.splitlines()]
    (mine,) = [r for r in records if r["logger"] == "app.tools"]
    assert mine["level"] == "INFO" and mine["message"] == "greeting Ada"
    assert mine["who"] == "Ada" and TIME.match(mine["time"])


def test_without_the_options_logging_is_left_alone(tmp_path: Path) -> None:
    # Python's last resort: warnings and up, bare; no INFO of the application.
    out, err = serve_stdio(tmp_path)
    assert "hi Ada" in out[-1] and "greeting" not in err


def test_debug_shows_debug(tmp_path: Path) -> None:
    _, err = serve_stdio(tmp_path, "--log-level", "debug")
    assert re.search(r"^\S+Z DEBUG app.tools: not at info$", err, re.MULTILINE), err


def test_http_text_logs_and_the_shutdown(tmp_path: Path) -> None:
    process = spawn("serve", app(tmp_path), "--transport", "http", "--port", "0",
                    "--log-level", "info", "--shutdown-grace", "1")  # fmt: skip
    assert process.stderr is not None
    try:
        err = Lines(process.stderr)
        seen = err.until(lambda lines: any(" on http" in x for x in lines))
        url = seen[-1].rsplit(" on ", 1)[1]
        body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
            "name": "hello", "arguments": {"name": "Bo"}, "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {}}}}  # fmt: skip
        reply = post(url, body)
        assert reply["result"]["content"][0]["text"] == "hi Bo"
        err.until(lambda lines: "greeting Bo" in lines[-1])
        assert re.match(r"^\S+Z INFO app.tools: greeting Bo$", seen[-1])
        process.send_signal(signal.SIGTERM)
        _, rest = process.communicate(timeout=TIMEOUT_S)
    finally:
        process.kill()
    assert process.returncode == 0
    said = (err.left + rest).decode()
    assert re.search(r"Z WARNING mcp_core.http: SIGTERM: shutting down", said)


def post(url: str, body: dict[str, Any]) -> Any:
    import urllib.request

    request = urllib.request.Request(
        url,
        json.dumps(body).encode(),
        {
            "content-type": "application/json",
            "accept": "application/json, text/event-stream",
            "mcp-protocol-version": "2026-07-28",
            "mcp-method": "tools/call",
            "mcp-name": "hello",
        },
    )
    with urllib.request.urlopen(request, timeout=TIMEOUT_S) as answer:
        return json.loads(answer.read())


def test_the_gateway_logs_each_links_state(tmp_path: Path) -> None:
    config = tmp_path / "servers.json"
    good = {"command": sys.executable, "args": ["-m", "transports", "serve", app(tmp_path)]}
    gone = {"url": "http://127.0.0.1:1/mcp?key=secret", "maxReconnectAttempts": 0}
    config.write_text(json.dumps({"mcpServers": {"good": good, "gone": gone}}))
    process = spawn("gateway", "--config", str(config), "--log-level", "info",
                    "--log-format", "json")  # fmt: skip
    assert process.stderr is not None and process.stdin is not None
    try:

        def settled(lines: list[str]) -> bool:
            states = {(r["server"], r["state"]) for r in records(lines) if "state" in r}
            return {("good", "connected"), ("gone", "failed")} <= states

        seen = Lines(process.stderr).until(settled)
        process.communicate(timeout=TIMEOUT_S)
    finally:
        process.kill()
    links = [r for r in records(seen) if r["logger"] == "mcp_core.manager"]
    (failed,) = [r for r in links if r["state"] == "failed"]
    assert failed["level"] == "ERROR" and failed["reason"]
    assert failed["message"].startswith("server gone: failed: ")
    connecting = next(r for r in links if r["server"] == "gone")
    assert connecting["message"] == "server gone: connecting to http://127.0.0.1:1/mcp"
    assert connecting["level"] == "INFO" and "retry" not in connecting
    good_states = [r["state"] for r in links if r["server"] == "good"]
    assert good_states[-1] == "connected" and "connecting" in good_states


def records(lines: list[str]) -> list[dict[str, Any]]:
    # The log records among the lines (the gateway also prints what is unavailable).
    return [json.loads(line) for line in lines if line.startswith("{")]


def test_the_options_are_checked(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["serve", "app.py", "--log-format", "xml"])
    assert "--log-format" in capsys.readouterr().err


def test_json_lines_hold_what_json_cannot(tmp_path: Path) -> None:
    import logging

    try:
        raise ValueError("boom")
    except ValueError:
        record = logging.LogRecord("x", logging.ERROR, __file__, 1, "m %s", ("a",), sys.exc_info())
    record.path = tmp_path  # not JSON: given as text
    line = json.loads(JsonFormatter().format(record))
    assert line["message"] == "m a" and line["path"] == str(tmp_path)
    assert line["exception"].endswith("ValueError: boom")


def test_stdio_access_log_says_each_request_and_no_argument(tmp_path: Path) -> None:
    out, err = serve_stdio(tmp_path, "--access-log")
    assert "hi Ada" in out[-1]
    # Only the access log: the application's INFO stays below the default level.
    lines = err.splitlines()
    assert len(lines) == 2 and "Ada" not in err, err
    assert re.match(r"^\S+Z INFO mcp_core.access: initialize 2025-11-25 ok \S+ms ", lines[0])
    call = r"^\S+Z INFO mcp_core.access: tools/call tool=hello 2025-11-25 ok [\d.]+ms "
    assert re.match(call + "session=- principal=-$", lines[1]), lines[1]


def test_the_gateway_access_log_in_json(tmp_path: Path) -> None:
    config = tmp_path / "servers.json"
    good = {"command": sys.executable, "args": ["-m", "transports", "serve", app(tmp_path)]}
    config.write_text(json.dumps({"mcpServers": {"good": good}}))
    process = spawn("gateway", "--config", str(config), "--access-log", "--log-format", "json")
    assert process.stderr is not None and process.stdin is not None
    try:
        process.stdin.write(HELLO[0] + HELLO[1])
        process.stdin.write(message({"id": 2, "method": "tools/list"}))
        process.stdin.flush()

        def listed(lines: list[str]) -> bool:
            return any(r.get("method") == "tools/list" for r in records(lines))

        seen = Lines(process.stderr).until(listed)
        process.communicate(timeout=TIMEOUT_S)
    finally:
        process.kill()
    (listing,) = [r for r in records(seen) if r.get("method") == "tools/list"]
    assert listing["logger"] == "mcp_core.access" and listing["level"] == "INFO"
    assert (listing["status"], listing["code"], listing["revision"]) == ("ok", None, "2025-11-25")
    assert listing["duration_ms"] >= 0 and listing["principal"] == "-"
