"""What the command line tells a newcomer: the install hints name the distribution
(``mcp-sansio``), and each error is one clear message.

Run in this process through `main` (output captured) where nothing is spawned by
the test itself, and as ``python -m transports`` where the process matters.
"""

from __future__ import annotations

import json
import os
import pty
import selectors
import shlex
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from typing import Any

import anyio
import anyio.from_thread
import paths
import pytest

from mcp_core import Server
from transports.cli import main
from transports.cli.targets import load_target
from transports.http.server import serve_http
from transports.stdio import connect_stdio

ROOT = paths.ROOT
SHOP = str(ROOT / "tests" / "servers" / "shop.py")
TIMEOUT_S = 60


@contextmanager
def http_server(server: Server, backend: str) -> Iterator[str]:
    """``server`` on HTTP, on an event loop of its own in a thread."""
    with anyio.from_thread.start_blocking_portal(backend) as portal:
        future, port = portal.start_task(partial(serve_http, server, port=0))
        try:
            yield f"http://127.0.0.1:{port}/mcp"
        finally:
            future.cancel()


def run_main(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = main(list(args))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


# --- the distribution's name ----------------------------------------------------------------


def test_redis_without_the_extra_names_the_distribution(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "transports.redis", None)  # as if not installed
    found = run_main(
        capsys, "serve", SHOP, "--transport", "http", "--port", "0", "--redis", "redis://x"
    )
    assert found == (
        2,
        "",
        "mcp-core: error: --redis needs the redis extra: pip install 'mcp-sansio[redis]'\n",
    )


def test_auth_without_the_extra_names_the_distribution(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "transports.auth.jwt", None)
    status, out, err = run_main(
        capsys,
        "serve",
        SHOP,
        "--transport",
        "http",
        "--port",
        "8123",
        "--auth-jwks",
        "http://127.0.0.1:1/jwks",
        "--auth-issuer",
        "http://127.0.0.1:1",
    )
    assert (status, out) == (2, "")
    assert err == (
        "mcp-core: error: --auth-jwks needs the 'auth' extra: pip install 'mcp-sansio[auth]'\n"
    )


# --- call SERVER TOOL name=value --------------------------------------------------------------

BACKENDS = ["asyncio", "trio"]


def run_cli(*args: str, **options: Any) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "transports", *args],
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        cwd=ROOT,
        **options,
    )


def shop_on(backend: str) -> str:
    """The shop served by a spawned ``serve`` on this event loop."""
    return shlex.join([sys.executable, "-m", "transports", "serve", SHOP, "--backend", backend])


@pytest.mark.parametrize("backend", BACKENDS)
def test_arguments_after_the_tool_as_fastmcp_takes_them(
    capsys: pytest.CaptureFixture[str], backend: str
) -> None:
    server = shop_on(backend)
    assert run_main(capsys, "call", server, "add", "a=1", "b=2") == (0, "3\n", "")
    # Anywhere among the options, and beside --arg.
    assert run_main(capsys, "call", server, "add", "a=1", "--timeout", "30", "b=2") == (
        0,
        "3\n",
        "",
    )
    assert run_main(capsys, "call", server, "add", "a=1", "--arg", "b=5") == (0, "6\n", "")
    found = run_main(capsys, "call", server, "greet", "name=Ada Lovelace", 'punctuation="?"')
    assert found == (0, "Hello, Ada Lovelace?\n", "")


def test_a_word_that_is_no_argument_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_main(capsys, "call", SHOP, "add", "1", "2") == (
        2,
        "",
        "mcp-core: error: arguments after the name are NAME=VALUE (as in a=1), not '1'\n",
    )
    with pytest.raises(SystemExit) as exited:
        main(["call", SHOP, "add", "a=1", "--bogus"])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: mcp-core call ")  # the subcommand's usage, not the top's
    assert err.endswith("mcp-core call: error: unrecognized arguments: --bogus\n")


def test_arguments_after_a_tool_of_an_mcpservers_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "servers.json"
    entry = {
        "command": "python",
        "args": ["-m", "transports", "serve", SHOP],
        "env": {"PYTHONPATH": str(ROOT)},  # a launched server gets a short environment
    }
    config.write_text(json.dumps({"mcpServers": {"shop": entry}}), encoding="utf-8")
    found = run_main(capsys, "call", "--config", str(config), "shop.add", "a=1", "b=2")
    assert found == (0, "3\n", "")


@pytest.mark.parametrize("backend", BACKENDS)
def test_unknown_missing_and_extra_arguments(
    capsys: pytest.CaptureFixture[str], backend: str
) -> None:
    server = shop_on(backend)
    assert run_main(capsys, "call", server, "add", "a=1", "b=2", "c=4") == (
        1,
        "",
        "error -32602: Unknown argument for tool 'add': c; it takes add(a: int, b: int)\n",
    )
    assert run_main(capsys, "call", server, "add", "a=1") == (
        1,
        "",
        "Invalid arguments for tool 'add': Object missing required field `b`; "
        "it takes add(a: int, b: int)\n",
    )
    found = run_main(capsys, "call", server, "order", "item=tea", "size=L", "sugar=2")
    assert found == (0, "ordered tea (size=L, sugar=2)\n", "")


@pytest.mark.parametrize("backend", BACKENDS)
def test_unknown_arguments_are_refused_over_http(
    capsys: pytest.CaptureFixture[str], backend: str
) -> None:
    with http_server(load_target(SHOP).server, backend) as url:
        found = run_main(capsys, "call", url, "add", "a=1", "b=2", "c=4", "d=5")
    assert found == (
        1,
        "",
        "error -32602: Unknown arguments for tool 'add': c, d; it takes add(a: int, b: int)\n",
    )


# --- a server file that does not load ---------------------------------------------------------

BROKEN = """\
from mcp_core import Server
server = Server("broken", "1")


@server.tool
def add(a: int b: int) -> int:
    return a + b
"""

SYNTAX_ERROR = (
    "broken.py:6: SyntaxError: invalid syntax. Perhaps you forgot a comma?\n"
    "    def add(a: int b: int) -> int:\n"
    "               ^^^^^\n"
)


def test_a_syntax_error_is_one_line_and_the_caret(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "broken.py").write_text(BROKEN, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert run_main(capsys, "serve", "broken.py") == (1, "", f"mcp-core: error: {SYNTAX_ERROR}")
    # Spawned by call: the same lines, from the server's own stderr.
    assert run_main(capsys, "call", "broken.py", "add") == (
        1,
        "",
        f"mcp-core: error: {SYNTAX_ERROR}",
    )
    status, _, err = run_main(capsys, "call", "broken.py", "add", "--verbose")
    assert status == 1 and "Traceback (most recent call last)" in err
    assert err.endswith("mcp-core: error: the server exited with status 1\n")


def test_a_failure_in_a_module_it_imports_names_both(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "app.py").write_text("import settings\n", encoding="utf-8")
    (tmp_path / "settings.py").write_text("LIMIT = int(MAXIMUM) + 1\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert run_main(capsys, "config", "app.py") == (
        1,
        "",
        "mcp-core: error: cannot load app.py: settings.py:1: NameError: "
        "name 'MAXIMUM' is not defined\n"
        "    LIMIT = int(MAXIMUM) + 1\n"
        "                ^^^^^^^\n",
    )


# --- a spawned server's end and its stderr ------------------------------------------------------


@pytest.mark.parametrize(
    ("source", "said"),
    [
        (
            "import sys\nsys.exit(3)\n",
            "the server exited with status 3, and wrote nothing on stderr",
        ),
        (
            "import sys\nprint('no database', file=sys.stderr)\nsys.exit(3)\n",
            "the server exited with status 3; its stderr:\n  no database",
        ),
        (
            "import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n",
            "the server was ended by SIGKILL, and wrote nothing on stderr",
        ),
    ],
)
def test_a_server_that_exits_says_so_with_its_status(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], source: str, said: str
) -> None:
    program = tmp_path / "server.py"
    program.write_text(source, encoding="utf-8")
    server = shlex.join(["python", str(program)])
    assert run_main(capsys, "call", server, "add") == (1, "", f"mcp-core: error: {said}\n")


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_tools_traceback_shows_only_with_verbose(
    capsys: pytest.CaptureFixture[str], backend: str
) -> None:
    server = shop_on(backend)
    cart = 'cart=["bread"]'
    assert run_main(capsys, "call", server, "checkout", cart) == (
        1,
        "",
        "the till is closed (1 items left)\n",
    )
    status, out, err = run_main(capsys, "call", server, "checkout", cart, "--verbose")
    assert (status, out) == (1, "")
    assert "Traceback (most recent call last)" in err
    assert err.endswith(
        "RuntimeError: the till is closed (1 items left)\nthe till is closed (1 items left)\n"
    )


# --- no exception group in any message ----------------------------------------------------------


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_failed_task_is_one_message(capsys: pytest.CaptureFixture[str], backend: str) -> None:
    status, out, err = run_main(capsys, "call", shop_on(backend), "restock", "count=30", "--task")
    assert (status, out) == (1, "")
    assert err.splitlines()[-1] == "error -32000: the store room holds 10, not 30"
    assert "Group" not in err and "Traceback" not in err


@pytest.mark.parametrize("backend", BACKENDS)
def test_redis_down_at_start_is_one_message(
    capsys: pytest.CaptureFixture[str], backend: str
) -> None:
    args = ["--transport", "http", "--port", "0", "--backend", backend]
    status, out, err = run_main(capsys, "serve", SHOP, *args, "--redis", "redis://127.0.0.1:1")
    assert (status, out) == (1, "")
    assert err.startswith(
        "mcp-core: the lifespan of server 'shop' failed to start: SharedStateUnavailable: "
        "the shared state store (Redis at redis://127.0.0.1:1) is unreachable"
    )
    assert err.count("\n") == 1 and "Group" not in err


# --- HTTP: one URL per message, and /mcp ------------------------------------------------------


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("path", ["/", "/api", "/mcp/"])
def test_a_404_names_the_url_once_and_suggests_mcp(
    capsys: pytest.CaptureFixture[str], backend: str, path: str
) -> None:
    with http_server(load_target(SHOP).server, backend) as url:
        wrong = url.removesuffix("/mcp") + path
        status, out, err = run_main(capsys, "call", wrong, "add", "a=1", "b=2")
    assert (status, out) == (1, "")
    assert err == (
        f"mcp-core: error: {wrong} answered HTTP 404 Not Found; "
        f"MCP endpoints are usually at /mcp: try {url}\n"
    )


def test_a_refused_connection_names_the_url_once(capsys: pytest.CaptureFixture[str]) -> None:
    url = "http://127.0.0.1:1/mcp"
    status, out, err = run_main(capsys, "list", url)
    assert (status, out) == (1, "")
    assert err.startswith(f"mcp-core: error: cannot reach {url}: the connection was refused")
    assert err.count("127.0.0.1:1") == 1


# --- python means this Python -------------------------------------------------------------------


@pytest.mark.anyio
async def test_connect_stdio_runs_python_as_this_interpreter(tmp_path: Path) -> None:
    # No python on the server's PATH: only the mapping can find one.
    env = {"PATH": str(tmp_path), "PYTHONPATH": str(ROOT)}
    argv = ["python", "-m", "transports", "serve", SHOP]
    with anyio.fail_after(TIMEOUT_S):
        async with connect_stdio(argv, env=env) as client:
            result = await client.call_tool("add", {"a": 2, "b": 3})
    assert result.structured_content == {"result": 5}


# --- serve on a terminal ----------------------------------------------------------------------


def _read_until(fd: int, ending: bytes, deadline_s: float) -> bytes:
    seen = b""
    with selectors.DefaultSelector() as selector:
        selector.register(fd, selectors.EVENT_READ)
        while not seen.endswith(ending):
            if not selector.select(deadline_s):
                break
            chunk = os.read(fd, 4096)
            if not chunk:
                break
            seen += chunk
    return seen


def test_serve_on_a_terminal_says_it_waits_for_a_client() -> None:
    controller, terminal = pty.openpty()
    try:
        process = subprocess.Popen(
            [sys.executable, "-m", "transports", "serve", SHOP],
            stdin=terminal,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=ROOT,
        )
        os.close(terminal)
        assert process.stderr is not None
        said = _read_until(process.stderr.fileno(), b"\n", TIMEOUT_S)
        os.write(controller, b"\x04")  # Ctrl-D: end of input, the client is gone
        process.wait(TIMEOUT_S)
    finally:
        os.close(controller)
    assert said.decode() == (
        "mcp-core: serving shop on stdio; waiting for an MCP client on stdin (clients start "
        "this command themselves; Ctrl-D to stop; try it with `mcp-core call`, or serve "
        "with --transport http)\n"
    )
    assert process.returncode == 0


def test_serve_on_a_pipe_says_nothing() -> None:
    done = run_cli("serve", SHOP, input="")
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
