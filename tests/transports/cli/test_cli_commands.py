"""``mcp-core serve / call / list / config``.

The contract is checked on real processes: the command line run as
``python -m transports``, and the example servers it spawns. Error paths and
output formatting run `main` in this process (still spawning real servers where
one is needed), which is several times faster than starting a Python each time.
"""

from __future__ import annotations

import contextlib
import json
import shlex
import signal
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import paths
import pytest
from runtime_helpers import LIMIT, only_text

from mcp_core import Server
from mcp_core.types import (
    AudioContent,
    BlobResourceContents,
    CallToolResult,
    EmbeddedResource,
    ImageContent,
    ResourceLink,
    TextContent,
    TextResourceContents,
)
from transports.cli import main
from transports.cli.client import describe_block, parse_arguments, render_call
from transports.cli.connect import UsageError
from transports.cli.targets import TargetError, load_target
from transports.stdio import connect_stdio

ROOT = paths.ROOT
EXAMPLES = ROOT / "examples"
TIMEOUT_S = 60


def example(name: str) -> str:
    """The command line that starts an example server."""
    return shlex.join([sys.executable, str(EXAMPLES / f"{name}.py")])


def run_cli(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "transports", *args],
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        cwd=cwd,
    )


def run_main(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = main(list(args))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


# --- real processes -----------------------------------------------------------------------


def test_call_hello() -> None:
    # Relative to the working directory, as a person would type it.
    server = shlex.join([sys.executable, "examples/hello.py"])
    done = run_cli("call", server, "HelloTool", "--arg", "value=Yann")
    assert (done.returncode, done.stdout, done.stderr) == (0, "Hello-bonjour Yann!\n", "")


def test_list_tools() -> None:
    done = run_cli("list", example("weather"))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines == [
        "getCurrentWeather   Get the current weather in a city.",
        "getWeatherForecast  Get the forecast for the coming days.",
    ]


def test_call_json_output_parses() -> None:
    done = run_cli("call", example("weather"), "getCurrentWeather", "--arg", "city=Paris", "--json")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["structuredContent"]["city"] == "Paris"
    assert result["structuredContent"]["country"] == "France"
    assert result["content"][0]["type"] == "text"


def test_unknown_tool_fails_with_the_protocol_error() -> None:
    done = run_cli("call", example("hello"), "Nope")
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr.strip() == "error -32602: Unknown tool: Nope"


def test_a_bad_target_is_a_clear_usage_error() -> None:
    done = run_cli("serve", "examples/nothere.py")
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.strip() == "mcp-core: error: examples/nothere.py: no such file"


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_serve_a_file_answers_over_stdio(anyio_backend: str) -> None:
    argv = [sys.executable, "-m", "transports", "serve", "examples/hello.py"]
    with anyio.fail_after(LIMIT * 2):
        async with connect_stdio(argv, cwd=ROOT) as client:
            assert client.server_info is not None and client.server_info.name == "hello"
            result = await client.call_tool("HelloTool", {"value": "stdio"})
            assert only_text(result) == "Hello-bonjour stdio!"


async def _listening_url(stderr: Any) -> str:
    """The URL of the "serving NAME on URL" line the server prints once it listens."""
    seen = b""
    while b"\n" not in seen:
        seen += await stderr.receive()
    line = seen.split(b"\n", 1)[0].decode()
    assert line.startswith("mcp-core: serving everything on http://127.0.0.1:"), seen
    return line.rsplit(" ", 1)[1]


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_serve_over_http_answers_initialize(anyio_backend: str) -> None:
    argv = [sys.executable, "-m", "transports", "serve", "examples/everything.py"]
    argv += ["--transport", "http", "--port", "0"]  # a free port, named in the line above
    process = await anyio.open_process(
        argv, cwd=ROOT, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL
    )
    try:
        with anyio.fail_after(LIMIT * 2):
            assert process.stderr is not None
            url = await _listening_url(process.stderr)
            authority = url.removeprefix("http://").removesuffix("/mcp")
            port = int(authority.rsplit(":", 1)[1])
            body = json.dumps(
                {
                    "jsonrpc": "2.0",
                    "id": 1,
                    "method": "initialize",
                    "params": {
                        "protocolVersion": "2025-06-18",
                        "capabilities": {},
                        "clientInfo": {"name": "raw", "version": "1"},
                    },
                }
            ).encode()
            head = (
                f"POST /mcp HTTP/1.1\r\nHost: {authority}\r\n"
                "Content-Type: application/json\r\n"
                "Accept: application/json, text/event-stream\r\n"
                f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
            )
            async with await anyio.connect_tcp("127.0.0.1", port) as sock:
                await sock.send(head.encode() + body)
                answer = b""
                with contextlib.suppress(anyio.EndOfStream):
                    while True:
                        answer += await sock.receive()
        status_line, _, rest = answer.partition(b"\r\n")
        headers, _, payload = rest.partition(b"\r\n\r\n")
        assert status_line.startswith(b"HTTP/1.1 200"), answer
        assert b"content-type: application/json" in headers.lower()
        assert b"mcp-session-id: " in headers.lower()
        result = json.loads(payload)["result"]
        assert result["protocolVersion"] == "2025-06-18"
        assert result["serverInfo"]["name"] == "everything"
    finally:
        if process.returncode is None:
            process.send_signal(signal.SIGINT)  # Ctrl-C
        with anyio.move_on_after(LIMIT):
            await process.wait()
        if process.returncode is None:
            process.kill()
        await process.aclose()
    assert process.returncode == 130


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_config_launches_the_server_from_anywhere(anyio_backend: str, tmp_path: Path) -> None:
    done = run_cli("config", "examples/everything.py", "--name", "all")
    assert done.returncode == 0, done.stderr
    entry = json.loads(done.stdout)["mcpServers"]["all"]
    assert entry["command"] == sys.executable
    assert entry["args"] == [
        "-m",
        "transports",
        "serve",
        str(EXAMPLES / "everything.py"),
    ]
    # What a desktop client would do: run it from some other directory.
    with anyio.fail_after(LIMIT * 2):
        async with connect_stdio([entry["command"], *entry["args"]], cwd=tmp_path) as client:
            result = await client.call_tool("test_simple_text")
            assert only_text(result) == "This is a simple text response for testing."


# --- call and list, in this process -------------------------------------------------------


def test_call_outputs(capsys: pytest.CaptureFixture[str]) -> None:
    everything = example("everything")
    assert run_main(capsys, "call", everything, "test_image_content") == (
        0,
        "[image image/png, 70 bytes]\n",
        "",
    )
    # --arg overrides --json-args; structured output is printed as JSON.
    status, out, err = run_main(
        capsys,
        "call",
        example("weather"),
        "getCurrentWeather",
        "--json-args",
        '{"city": "Oslo", "country": "NO"}',
        "--arg",
        "city=Paris",
    )
    assert (status, err) == (0, "")
    assert (json.loads(out)["city"], json.loads(out)["country"]) == ("Paris", "NO")
    # A failing tool: its text on stderr, status 1; with --json the result on stdout.
    assert run_main(capsys, "call", everything, "test_error_handling") == (
        1,
        "",
        "This tool intentionally returns an error for testing\n",
    )
    status, out, _ = run_main(capsys, "call", everything, "test_error_handling", "--json")
    assert status == 1 and json.loads(out)["isError"] is True


def test_list_kinds(capsys: pytest.CaptureFixture[str]) -> None:
    everything = example("everything")
    status, out, _ = run_main(capsys, "list", everything, "resources")
    lines = out.splitlines()
    assert status == 0 and len(lines) == 4
    assert lines[0].split() == [
        "test://static-text",
        "static-text:",
        "A",
        "static",
        "text",
        "resource.",
    ]
    assert lines[3].startswith("test://template/{id}/data  template: ")
    status, out, _ = run_main(capsys, "list", everything, "prompts", "--json")
    assert status == 0
    assert [p["name"] for p in json.loads(out)["prompts"]] == [
        "test_simple_prompt",
        "test_prompt_with_arguments",
        "test_prompt_with_embedded_resource",
        "test_prompt_with_image",
        "test_input_required_result_prompt",
    ]
    # Nothing of that kind: no lines, a note on stderr; as JSON, an empty list.
    assert run_main(capsys, "list", example("hello"), "resources") == (
        0,
        "",
        "(the server offers no resources)\n",
    )
    status, out, _ = run_main(capsys, "list", example("hello"), "prompts", "--json")
    assert (status, json.loads(out)) == (0, {"prompts": []})


def test_files_example_reads_under_its_root(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The server command inherits our environment, MCP_FILES_ROOT included.
    (tmp_path / "note.txt").write_text("a note\n", encoding="utf-8")
    monkeypatch.setenv("MCP_FILES_ROOT", str(tmp_path))
    files = example("files")
    assert run_main(capsys, "call", files, "readFile", "--arg", "path=note.txt") == (
        0,
        "a note\n",
        "",
    )
    assert run_main(capsys, "call", files, "readFile", "--arg", "path=../x") == (
        1,
        "",
        "../x: outside the root directory\n",
    )


@pytest.mark.parametrize(
    ("args", "status", "message"),
    [
        (["call", "", "t"], 2, "the server command is empty"),
        (["call", "'open", "t"], 2, "No closing quotation"),
        (["call", "server", "t", "--json-args", "[1]"], 2, "JSON object"),
        (["call", "server", "t", "--json-args", "{"], 2, "not valid JSON"),
        (["call", "server", "t", "--arg", "novalue"], 2, "key=value"),
        (["call", "no-such-command-for-mcp-core", "t"], 1, "cannot start the server"),
        (["call", f"{shlex.quote(sys.executable)} -c pass", "t"], 1, "exited with status 0"),
        (["list", f"{shlex.quote(sys.executable)} -c pass"], 1, "exited with status 0"),
    ],
)
def test_call_and_list_failures(
    capsys: pytest.CaptureFixture[str], args: list[str], status: int, message: str
) -> None:
    got, out, err = run_main(capsys, *args)
    assert (got, out) == (status, "")
    assert message in err


def test_call_timeout(capsys: pytest.CaptureFixture[str]) -> None:
    slow = shlex.join([sys.executable, str(ROOT / "tests" / "servers" / "stdio_echo.py")])
    args = ["--arg", "seconds=10", "--timeout", "0.2"]
    status, _, err = run_main(capsys, "call", slow, "slow", *args)
    assert status == 1 and "no answer in time" in err


def test_arguments() -> None:
    arguments = parse_arguments(
        ['{"a": 1, "b": "x"}', '{"c": [1]}'],
        ["b=2", "t=true", "n=null", "s=hello world", 'q="7"', 'o={"k": 1}', "e=", "eq=a=b"],
    )
    assert arguments == {
        "a": 1,
        "b": 2,
        "c": [1],
        "t": True,
        "n": None,
        "s": "hello world",
        "q": "7",
        "o": {"k": 1},
        "e": "",
        "eq": "a=b",
    }
    with pytest.raises(UsageError):
        parse_arguments([], ["=1"])


def test_rendering() -> None:
    image = ImageContent(data="AAAA", mime_type="image/gif")
    audio = AudioContent(data="AAAAAA==", mime_type="audio/ogg")
    link = ResourceLink(uri="file:///a.md", name="a", mime_type="text/markdown")
    bare_link = ResourceLink(uri="file:///b", name="b")
    text = EmbeddedResource(resource=TextResourceContents(uri="file:///c", text="héllo"))
    blob = EmbeddedResource(resource=BlobResourceContents(uri="file:///d", blob="AAAA"))
    assert [describe_block(b) for b in (image, audio, link, bare_link, text, blob)] == [
        "[image image/gif, 3 bytes]",
        "[audio audio/ogg, 4 bytes]",
        "[resource link file:///a.md, text/markdown]",
        "[resource link file:///b]",
        "[resource file:///c, text, 6 bytes]",
        "[resource file:///d, binary, 3 bytes]",
    ]
    assert describe_block(ImageContent(data="not base64!", mime_type="image/png")).startswith(
        "[image image/png, "
    )
    # Structured content is shown when no block is text, and only then.
    data: dict[str, Any] = {"a": [1, 2]}
    assert render_call(CallToolResult(content=[image], structured_content=data)) == (
        '[image image/gif, 3 bytes]\n{\n  "a": [\n    1,\n    2\n  ]\n}'
    )
    with_text = CallToolResult(content=[TextContent(text="x\n")], structured_content=data)
    assert render_call(with_text) == "x"
    assert render_call(CallToolResult(content=[])) == ""


# --- serve and config, in this process ----------------------------------------------------


@pytest.fixture(autouse=True)
def forget_targets(tmp_path: Path) -> Iterator[None]:
    """Undo what loading targets from tmp_path did to sys.path and sys.modules."""
    path = list(sys.path)
    yield
    sys.path[:] = path
    for name, module in list(sys.modules.items()):
        if str(getattr(module, "__file__", None) or "").startswith(str(tmp_path)):
            del sys.modules[name]


def write(tmp_path: Path, name: str, source: str) -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(source), encoding="utf-8")
    return path


SEVERAL = """\
from mcp_core import Server
alpha = Server("alpha", "1")
beta = Server("beta", "1")
"""


@pytest.mark.parametrize(
    ("source", "suffix", "message"),
    [
        ("x = 1\n", "", "no mcp_core.Server at the top level"),
        ("app = 'not a server'\n", "", ":app is a str, not an mcp_core.Server"),
        (SEVERAL, "", "several servers (alpha, beta); name one"),
        (SEVERAL, ":gamma", "has no attribute 'gamma'"),
        (SEVERAL, ":alpha.info", "is a mcp_core.types.base.Implementation, not"),
        (SEVERAL, ":9x", "is not an attribute name"),
    ],
)
def test_targets_that_name_no_server(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    source: str,
    suffix: str,
    message: str,
) -> None:
    path = write(tmp_path, "target.py", source)
    status, out, err = run_main(capsys, "serve", f"{path}{suffix}")
    assert (status, out) == (2, "")
    assert err.startswith("mcp-core: error: ") and message in err


def test_target_forms(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    several = write(tmp_path, "several.py", SEVERAL + 'server = beta\nprint("loud")\n')
    write(tmp_path, "helper.py", "NAME = 'from a neighbour'\n")
    write(
        tmp_path,
        "main_guard.py",
        """
        import helper
        from mcp_core import Server
        mcp = Server(helper.NAME, "1")
        if __name__ == "__main__":
            raise SystemExit("the main block ran")
        """,
    )
    # Several servers, one of them also called `server`: that one.
    assert load_target(str(several)).server.info.name == "beta"
    assert load_target(f"{several}:alpha").spec == f"{several}:alpha"
    # A file loads beside its neighbours, and its main block stays quiet.
    guarded = load_target(str(tmp_path / "main_guard.py"))
    assert guarded.server.info.name == "from a neighbour"
    assert guarded.spec == str(tmp_path / "main_guard.py") and guarded.pythonpath is None
    # A module is looked for in the current directory too.
    monkeypatch.chdir(tmp_path)
    as_module = load_target("main_guard:mcp")
    assert as_module.spec == "main_guard:mcp"
    assert as_module.pythonpath == str(tmp_path.resolve())
    assert isinstance(load_target("main_guard").server, Server)
    with pytest.raises(TargetError, match="no module named 'nothing_here_at_all'"):
        load_target("nothing_here_at_all.sub:app")
    with pytest.raises(TargetError, match="neither a Python file"):
        load_target("not a module")
    with pytest.raises(TargetError, match="a directory"):
        load_target(f"{tmp_path}/")
    with pytest.raises(TargetError, match="before the ':'"):
        load_target(":server")


def test_a_target_that_raises_shows_its_traceback_with_verbose(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = write(tmp_path, "broken.py", "import json\nraise RuntimeError('kaput')\n")
    status, out, err = run_main(capsys, "config", str(broken), "--verbose")
    assert (status, out) == (1, "")
    assert "Traceback" in err and "RuntimeError: kaput" in err
    assert "loading" in err and "failed" in err
    status, out, err = run_main(capsys, "config", str(broken))
    assert (status, out) == (1, "")
    assert err == (
        f"mcp-core: error: {broken}:2: RuntimeError: kaput\n    raise RuntimeError('kaput')\n"
    )
    missing_dependency = write(tmp_path, "needs.py", "import nothing_here_at_all\n")
    status, _, err = run_main(capsys, "config", str(missing_dependency))
    assert status == 1 and "ModuleNotFoundError" in err


def test_config_entries(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, "srv.py", SEVERAL + "print('to stderr, not into the JSON')\n")
    status, out, err = run_main(capsys, "config", f"{path}:beta")
    assert status == 0 and "to stderr" in err
    assert json.loads(out) == {
        "mcpServers": {
            "beta": {
                "command": sys.executable,
                "args": ["-m", "transports", "serve", f"{path}:beta"],
            }
        }
    }


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--transport", "http", "--path", "mcp"], "--path must start with '/'"),
        (["--transport", "http", "--port", "70000"], "--port must be from 0 to 65535"),
        (["--port", "8000"], "--port only applies to --transport http"),
        (["--host", "h", "--path", "/p"], "--host, --path only apply to --transport http"),
    ],
)
def test_serve_options(capsys: pytest.CaptureFixture[str], args: list[str], message: str) -> None:
    status, out, err = run_main(capsys, "serve", str(EXAMPLES / "hello.py"), *args)
    assert (status, out) == (2, "")
    assert message in err


def test_help_lists_every_command(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    for name in ("serve", "call", "list", "read", "prompt", "inspect", "dev", "config", "bench"):
        assert name in out


def test_examples_say_how_to_run_them() -> None:
    for path in sorted(EXAMPLES.glob("[!_]*.py")):  # _name.py: a part of an example
        source = path.read_text(encoding="utf-8")
        assert source.startswith('"""'), path
        assert "Run it:" in source and f"python examples/{path.name}" in source, path
        assert 'if __name__ == "__main__":\n' in source, path
        if "Server(" in source and "from transports" in source:
            # A server on our runtime serves itself on stdio when run; the
            # stdlib-only example runs its own loop instead (docs/sans-io.md).
            assert "run_stdio(server" in source, path
