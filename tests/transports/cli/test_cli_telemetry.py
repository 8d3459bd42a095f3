"""``mcp-core serve --otel --metrics``, on a real process: a scrape of its endpoint,
parsed by Prometheus's own text-format parser, has the conventions' metrics and
ours while calls are in flight; the console exporter writes the spans to stderr
(never stdout); the OTEL_* variables choose the exporters. Both event loops."""

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
import urllib.request
from pathlib import Path
from typing import Any, Final

import anyio
import paths
import pytest

pytest.importorskip("opentelemetry.exporter.prometheus")

from prometheus_client.parser import text_string_to_metric_families

from transports import Client

TIMEOUT_S: Final = 60.0
APP: Final = """
    from mcp_core import Server

    server = Server("observed", "1")


    @server.tool
    async def hello(name: str) -> str:
        \"\"\"Greet.\"\"\"
        return f"hi {name}"
"""
SECRET: Final = "s3cret-name"


class Child:
    """``mcp-core serve`` in a child process, its stderr read as it comes."""

    def __init__(self, args: list[str], env: dict[str, str]) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "transports", *args],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env={**os.environ, "PYTHONPATH": str(paths.ROOT), **env},
        )
        self.err = ""

    def wait_for(self, pattern: str) -> re.Match[str]:
        assert self.process.stderr is not None
        fd = self.process.stderr.fileno()
        deadline = time.monotonic() + TIMEOUT_S
        with selectors.DefaultSelector() as selector:
            selector.register(fd, selectors.EVENT_READ)
            while (found := re.search(pattern, self.err)) is None:
                left = deadline - time.monotonic()
                assert left > 0 and selector.select(left), f"timed out; stderr: {self.err}"
                chunk = os.read(fd, 65536)
                assert chunk, f"stderr ended; stderr: {self.err}"
                self.err += chunk.decode()
        return found

    def stop(self) -> bytes:
        self.process.send_signal(signal.SIGTERM)
        out, _ = self.process.communicate(timeout=TIMEOUT_S)
        return out


def scrape(url: str) -> dict[str, Any]:
    with urllib.request.urlopen(url, timeout=TIMEOUT_S) as answer:
        assert answer.headers["Content-Type"].startswith("text/plain")
        text = answer.read().decode()
    return {family.name: family for family in text_string_to_metric_families(text)}


@pytest.mark.parametrize("backend", ["asyncio", "trio"])
def test_a_scrape_and_the_console_spans(tmp_path: Path, backend: str) -> None:
    path = tmp_path / "app.py"
    path.write_text(textwrap.dedent(APP))
    env = {
        "OTEL_TRACES_EXPORTER": "console",
        "OTEL_METRICS_EXPORTER": "none",
        "OTEL_BSP_SCHEDULE_DELAY": "50",
        "OTEL_SERVICE_NAME": "observed-test",
    }
    args = ["serve", str(path), "--transport", "http", "--port", "0", "--backend", backend]
    child = Child([*args, "--otel", "--metrics", "127.0.0.1:0"], env)
    try:
        metrics_url = child.wait_for(r"metrics on (http://\S+/metrics)").group(1)
        mcp_url = child.wait_for(r"serving observed on (http://\S+)").group(1)

        async def calls() -> dict[str, Any]:
            # 20 calls in flight at once, scraped while they run, then once more.
            async with Client(mcp_url) as client, anyio.create_task_group() as tg:
                for n in range(20):
                    tg.start_soon(client.call_tool, "hello", {"name": f"{SECRET}{n}"})
                during = await anyio.to_thread.run_sync(scrape, metrics_url)
                assert "mcp_core_threads_queued" in during  # answered, parsed
            return scrape(metrics_url)

        families = anyio.run(calls, backend=backend)
        child.wait_for(r'"name": "tools/call hello"')
    finally:
        out = child.stop()
    assert out == b""  # the console exporter never writes to stdout
    duration = families["mcp_server_operation_duration_seconds"]
    assert duration.type == "histogram"
    counts = [
        s
        for s in duration.samples
        if s.name.endswith("_count") and s.labels["mcp_method_name"] == "tools/call"
    ]
    assert [s.labels["gen_ai_tool_name"] for s in counts] == ["hello"]
    assert counts[0].value == 20
    assert counts[0].labels["network_transport"] == "tcp"
    active = families["mcp_core_server_requests_active"]
    assert all(s.value == 0 for s in active.samples)
    assert "mcp_core_threads_queued" in families
    for family in families.values():
        for sample in family.samples:
            assert SECRET not in repr(sample.labels)
    assert SECRET not in child.err
    assert '"service.name": "observed-test"' in child.err


def test_a_wrong_exporter_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "app.py"
    path.write_text(textwrap.dedent(APP))
    done = subprocess.run(
        [sys.executable, "-m", "transports", "serve", str(path), "--otel"],
        env={**os.environ, "PYTHONPATH": str(paths.ROOT), "OTEL_TRACES_EXPORTER": "zipkin"},
        capture_output=True,
        timeout=TIMEOUT_S,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 2
    assert b"OTEL_TRACES_EXPORTER='zipkin': expected one of otlp, console, none" in done.stderr


TRACE_ID: Final = "4bf92f3577b34da6a3ce929d0e0e4736"
PARENT_ID: Final = "00f067aa0ba902b7"


@pytest.mark.parametrize("record", [(), ("--otel-record-arguments=12",)], ids=["", "arguments"])
@pytest.mark.parametrize("backend", ["asyncio", "trio"])
def test_stdio_takes_the_trace_context_from_meta(
    tmp_path: Path, backend: str, record: tuple[str, ...]
) -> None:
    # Bytes in on stdin: a 2025-11-25 handshake, then a call whose _meta carries a
    # W3C traceparent (the conventions' example); the answer on stdout, the
    # server span on stderr, a child of that parent, on the "pipe" transport.
    # Its arguments only when asked for, cut to the bytes asked.
    path = tmp_path / "app.py"
    path.write_text(textwrap.dedent(APP))
    call = (
        '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"hello",'
        f'"arguments":{{"name":"{SECRET}"}},"_meta":{{"traceparent":'
        f'"00-{TRACE_ID}-{PARENT_ID}-01"}}}}}}'
    )
    handshake = (
        '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":'
        '"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}\n'
        '{"jsonrpc":"2.0","method":"notifications/initialized"}\n'
    )
    command = ["serve", str(path), "--otel", *record, "--backend", backend]
    done = subprocess.run(
        [sys.executable, "-m", "transports", *command],
        input=(handshake + call + "\n").encode(),
        env={
            **os.environ,
            "PYTHONPATH": str(paths.ROOT),
            "OTEL_TRACES_EXPORTER": "console",
            "OTEL_METRICS_EXPORTER": "none",
        },
        capture_output=True,
        timeout=TIMEOUT_S,
    )
    assert done.returncode == 0, done.stderr
    answers = [line for line in done.stdout.decode().splitlines() if '"id":1' in line]
    assert len(answers) == 1 and f"hi {SECRET}" in answers[0]
    err = done.stderr.decode()
    span = err[err.index('"name": "tools/call hello"') :]
    assert f'"trace_id": "0x{TRACE_ID}"' in span
    assert f'"parent_id": "0x{PARENT_ID}"' in span
    assert '"kind": "SpanKind.SERVER"' in span
    assert '"network.transport": "pipe"' in span
    if record:  # 12 bytes: {"name":"s3c
        assert '"gen_ai.tool.call.arguments": "{\\"name\\":\\"s3c"' in span
    else:
        assert "gen_ai.tool.call.arguments" not in err
    assert SECRET not in err


ASKING: Final = """
    from mcp_core import Context, Server

    server = Server("asking", "1")


    @server.tool
    async def ask(ctx: Context) -> str:
        \"\"\"Ask the client's model.\"\"\"
        answer = await ctx.sample("a secret question", max_tokens=10)
        return answer.content.text
"""


def console_spans(text: str) -> list[dict[str, Any]]:
    """The spans the console exporter wrote (each a JSON object) among other lines."""
    decoder = json.JSONDecoder()
    spans: list[dict[str, Any]] = []
    at = text.find("{")
    while at != -1:
        try:
            found, end = decoder.raw_decode(text, at)
        except ValueError:
            at = text.find("{", at + 1)
            continue
        if isinstance(found, dict) and "context" in found:
            spans.append(found)
        at = text.find("{", end)
    return spans


@pytest.mark.parametrize("backend", ["asyncio", "trio"])
def test_over_stdio_a_tools_sampling_is_one_trace(tmp_path: Path, backend: str) -> None:
    # Our Client spawns `mcp-core serve --otel` on stdio; the tool samples the
    # client's model. The child's spans (console, on its stderr) and ours (the
    # SDK in memory) make one trace: our tools/call > its tools/call > its
    # sampling/createMessage (CLIENT, on the pipe) > ours (SERVER) > our model's.
    from otel_helpers import parent_of, recorded

    from transports import connect_stdio

    path = tmp_path / "app.py"
    path.write_text(textwrap.dedent(ASKING))
    env = {
        "PYTHONPATH": str(paths.ROOT),
        "OTEL_TRACES_EXPORTER": "console",
        "OTEL_METRICS_EXPORTER": "none",
    }
    command = [sys.executable, "-m", "transports", "serve", str(path), "--otel"]
    lines: list[bytes] = []

    async def call(record: Any) -> str:
        async def sampling(params: Any) -> dict[str, Any]:
            with record.tracer_provider.get_tracer("app").start_as_current_span("model"):
                return {
                    "role": "assistant",
                    "content": {"type": "text", "text": "hi"},
                    "model": "m",
                }

        with anyio.fail_after(TIMEOUT_S):
            async with connect_stdio(
                command, env=env, stderr=lines.append, revisions=("2025-11-25",), sampling=sampling
            ) as client:
                result = await client.call_tool("ask", {})
        return result.content[0].text  # type: ignore[union-attr,no-any-return]

    with recorded() as record:
        assert anyio.run(call, record, backend=backend) == "hi"
        ours = record.spans()
    theirs = {span["name"]: span for span in console_spans(b"\n".join(lines).decode())}
    called = next(s for s in ours if s.name == "tools/call ask")
    answered = next(s for s in ours if s.name == "sampling/createMessage")
    (model,) = [s for s in ours if s.name == "model"]
    served, asked = theirs["tools/call ask"], theirs["sampling/createMessage"]
    trace_id = f"0x{called.context.trace_id:032x}"
    assert served["context"]["trace_id"] == asked["context"]["trace_id"] == trace_id
    assert served["parent_id"] == f"0x{called.context.span_id:016x}"
    assert asked["parent_id"] == served["context"]["span_id"]
    assert asked["kind"] == "SpanKind.CLIENT"
    assert asked["attributes"]["network.transport"] == "pipe"
    assert answered.kind.name == "SERVER"
    assert f"0x{answered.parent.span_id:016x}" == asked["context"]["span_id"]  # type: ignore[union-attr]
    assert dict(answered.attributes or {})["network.transport"] == "pipe"
    assert (
        asked["attributes"]["jsonrpc.request.id"]
        == dict(answered.attributes or {})["jsonrpc.request.id"]
    )
    assert parent_of(model, ours) is answered
    assert "secret" not in b"\n".join(lines).decode()
