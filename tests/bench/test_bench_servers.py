"""The server-only layer's raw clients: their HTTP/1.1 and line reading, and real
exchanges with our servers in both eras and the floors."""

from __future__ import annotations

import os
import sys
from functools import partial

import pytest
from bench_helpers import assert_kinds_in_pairs

from benchmarks import servers
from benchmarks.harness import Settings
from benchmarks.http_servers import spawn
from benchmarks.layers import LAYERS, LayerResult
from benchmarks.raw_client import RawHttpClient, RawLineClient, _Answer, server_cpu_seconds
from benchmarks.runner import selected_layers
from benchmarks.stdio import server_argv

JSON_ANSWER = (
    b'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 11\r\n\r\n{"a":"b c"}'
)
CHUNKED_ANSWER = (
    b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
    b"transfer-encoding: chunked\r\n\r\n"
    b"7;x=y\r\nevent: \r\n" + b"a\r\nmessage\ndd\r\n" + b"0\r\n\r\n"
)


@pytest.mark.parametrize(
    ("wire", "body"), [(JSON_ANSWER, b'{"a":"b c"}'), (CHUNKED_ANSWER, b"event: message\ndd")]
)
def test_an_answer_is_read_whole_however_it_is_split(wire: bytes, body: bytes) -> None:
    for cut in range(len(wire) + 1):
        for second in range(cut, len(wire) + 1):
            answer = _Answer()
            rest = b""
            for piece in (wire[:cut], wire[cut:second], wire[second:] + b"NEXT"):
                rest = rest + piece if answer.done else answer.feed(piece)
            assert answer.done and answer.status == 200 and answer.body == body
            assert rest == b"NEXT"


def test_an_answer_without_a_length_is_refused() -> None:
    with pytest.raises(RuntimeError, match="without a length"):
        _Answer().feed(b"HTTP/1.1 200 OK\r\nconnection: close\r\n\r\nbody")


@pytest.mark.parametrize("tool", ["echo_def", "echo"])
@pytest.mark.parametrize("answers", ["json", "sse"])
def test_our_http_server_answers_the_raw_client_in_both_eras(answers: str, tool: str) -> None:
    with spawn("ours", answers=answers) as (process, url):
        port = int(url.rsplit(":", 1)[1].split("/")[0])
        host = f"127.0.0.1:{port}"
        for setup in (
            partial(servers._legacy, tool=tool),
            lambda c, h: servers._modern(h, tool=tool),
        ):
            client = RawHttpClient("127.0.0.1", port, 3)
            try:
                request_for = setup(client, host)
                answer = client.exchange(client.sockets[1], request_for(0))
                assert answer.status == 200
                assert b'"text":"hello"' in answer.body, answer.body
                before = server_cpu_seconds(process.pid)
                client.run(30, request_for)
                assert server_cpu_seconds(process.pid) > before
            finally:
                client.close()


def test_a_refusal_stops_the_run() -> None:
    with spawn("ours", answers="json") as (_, url):
        port = int(url.rsplit(":", 1)[1].split("/")[0])
        client = RawHttpClient("127.0.0.1", port, 2)
        try:
            # No session, no _meta: the server refuses, and the run says so.
            with pytest.raises(RuntimeError, match="answered 400"):
                client.run(4, servers._floor(f"127.0.0.1:{port}"))
        finally:
            client.close()


@pytest.mark.parametrize("kind", ["ours", "lines"])
def test_the_line_writer_drives_a_stdio_server(kind: str) -> None:
    env = {**os.environ, "PYTHONPATH": servers._ROOT}
    client = RawLineClient(server_argv(kind), env=env)
    try:
        request_for = (
            servers._line_legacy(client) if kind == "ours" else servers._line_requester("}")
        )
        assert b'"id":1' in client.exchange(request_for(0))[0]
        client.run(50, 16, request_for)
        assert server_cpu_seconds(client.pid) > 0
    finally:
        client.close()
    assert client.process.returncode == 0, sys.executable


def test_the_stdio_tables_measure_every_server_in_every_round() -> None:
    settings = Settings(runs=3, target_batch_s=0.01, warmup_s=0.01, backends=("asyncio",))
    result = LayerResult(name="servers-stdio")
    servers.run_stdio(settings, lambda line: None, None, result, rounds=2, calls=20)
    labels = [label for label, _, _ in servers.stdio_jobs(settings, None)]
    # Ours and the SDK's with a def tool and an async def tool, the def row first.
    assert_kinds_in_pairs(labels, [f"{servers.LINE_FLOOR} asyncio"])
    assert f"{servers.SDK_STDIO} (def)" in labels
    assert [m.name for m in result.measurements] == ["server_cpu_stdio_1", "server_cpu_stdio_16"]
    for measurement in result.measurements:
        assert list(measurement.values) == labels
        for label, value in measurement.values.items():
            details = measurement.details[label]
            assert 0 < details["min"] <= value <= details["max"]
        ratios = measurement.ratio_values()
        assert "floor / ours 2025-11-25 asyncio (def)" in ratios
        assert "floor / ours 2025-11-25 asyncio (async def)" in ratios
        assert "def cost, ours 2026-07-28 asyncio" in ratios
        assert f"def cost, {servers.SDK_STDIO}" in ratios


def test_servers_stdio_runs_only_when_named() -> None:
    assert LAYERS["servers-stdio"].module == "benchmarks.servers_stdio"
    assert LAYERS["servers-stdio"] not in selected_layers([])
    assert LAYERS["servers"] in selected_layers([])
    assert selected_layers(["servers-stdio", "codec"]) == [
        LAYERS["codec"],
        LAYERS["servers-stdio"],
    ]
