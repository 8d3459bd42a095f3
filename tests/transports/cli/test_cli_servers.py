"""``mcp-core call / list / read / prompt / inspect / dev``: the SERVER forms and the
commands that take one, on real processes (the command line run as ``python -m
transports``) and the example servers."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import textwrap
from pathlib import Path

import paths
import pytest

from mcp_core.types import LoggingMessageNotificationParams
from transports.cli.connect import UsageError, server_argv
from transports.cli.develop import inspector_argv
from transports.cli.feedback import log_line, progress_bar, progress_line
from transports.cli.targets import is_target

ROOT = paths.ROOT
EXAMPLES = paths.EXAMPLES
TIMEOUT_S = 60


def run_cli(
    *args: str, cwd: Path = ROOT, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "transports", *args],
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        cwd=cwd,
        env=env,
    )


def write_program(directory: Path, name: str, source: str) -> Path:
    """An executable Python script ``directory/name``."""
    path = directory / name
    path.write_text(f"#!{sys.executable}\n" + textwrap.dedent(source), encoding="utf-8")
    path.chmod(0o755)
    return path


# --- SERVER forms -------------------------------------------------------------------------


def test_call_a_file_as_serve_takes_it() -> None:
    done = run_cli("call", "examples/hello.py", "HelloTool", "--arg", "value=file")
    assert (done.returncode, done.stdout, done.stderr) == (0, "Hello-bonjour file!\n", "")
    done = run_cli("list", "examples/weather.py:server")
    assert done.returncode == 0, done.stderr
    assert done.stdout.split()[0] == "getCurrentWeather"


def test_call_a_module_attribute(tmp_path: Path) -> None:
    (tmp_path / "greeter.py").write_text(
        textwrap.dedent(
            """
            from mcp_core import Server

            app = Server("greeter", "1")

            @app.tool
            def greet(name: str) -> str:
                return f"hi {name}"
            """
        ),
        encoding="utf-8",
    )
    done = run_cli("call", "greeter:app", "greet", "--arg", "name=mod", cwd=tmp_path)
    assert (done.returncode, done.stdout) == (0, "hi mod\n"), done.stderr


def test_a_missing_server_file_is_a_usage_error() -> None:
    done = run_cli("call", "examples/nothere.py", "HelloTool")
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == "mcp-core: error: examples/nothere.py: no such file\n"


def test_python_in_a_command_is_this_python(tmp_path: Path) -> None:
    # A `python` first on PATH that is not ours, and would fail.
    write_program(tmp_path, "python", "import sys\nsys.exit('the wrong python')\n")
    env = {**os.environ, "PATH": f"{tmp_path}{os.pathsep}{os.environ['PATH']}"}
    done = run_cli("call", "python examples/hello.py", "HelloTool", "--arg", "value=py", env=env)
    assert (done.returncode, done.stdout) == (0, "Hello-bonjour py!\n"), done.stderr


def test_server_forms() -> None:
    serve = [sys.executable, "-m", "transports", "serve"]
    assert server_argv("examples/hello.py") == [*serve, "examples/hello.py"]
    assert server_argv("pkg.mod:app") == [*serve, "pkg.mod:app"]
    assert server_argv("python3 x.py -v") == [sys.executable, "x.py", "-v"]
    assert server_argv("python3.9 x.py") == ["python3.9", "x.py"]
    assert server_argv("my-server --flag") == ["my-server", "--flag"]
    assert not is_target("my-server") and not is_target("python x.py")
    assert is_target("x.py:app") and is_target("a.b:c") and not is_target("a b:c")
    with pytest.raises(UsageError, match=r"gone\.py: no such file"):
        server_argv("gone.py:server")


def test_json_is_a_flag_before_the_server() -> None:
    done = run_cli("call", "--json", "python examples/hello.py", "HelloTool", "--arg", "value=j")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["content"] == [{"type": "text", "text": "Hello-bonjour j!"}]
    done = run_cli("list", "--json", "examples/hello.py")
    assert [tool["name"] for tool in json.loads(done.stdout)["tools"]] == ["HelloTool"]


# --- progress and log messages ------------------------------------------------------------


def test_call_shows_progress_and_logs_on_stderr() -> None:
    done = run_cli("call", "examples/everything.py", "test_tool_with_progress")
    assert (done.returncode, done.stdout) == (0, "Progress test completed\n")
    assert done.stderr.splitlines() == ["progress 0/100", "progress 50/100", "progress 100/100"]
    done = run_cli("call", "examples/everything.py", "test_tool_with_logging")
    assert (done.returncode, done.stdout) == (0, "Logging test completed\n")
    assert done.stderr.splitlines() == [
        "[info] Tool execution started",
        "[info] Tool processing data",
        "[info] Tool execution completed",
    ]
    done = run_cli("call", "examples/everything.py", "test_tool_with_logging", "--log-level", "off")
    assert (done.returncode, done.stderr) == (0, "")


def test_progress_is_a_bar_on_a_terminal() -> None:
    leader, follower = os.openpty()
    try:
        call = ["call", "examples/everything.py", "test_tool_with_progress"]
        process = subprocess.Popen(
            [sys.executable, "-m", "transports", *call],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=follower,
        )
        os.close(follower)
        out, _ = process.communicate(timeout=TIMEOUT_S)
        seen = b""
        while True:
            try:
                chunk = os.read(leader, 4096)
            except OSError:  # EIO: the terminal's other side is closed
                break
            if not chunk:
                break
            seen += chunk
    finally:
        os.close(leader)
    assert (process.returncode, out) == (0, b"Progress test completed\n")
    text = seen.decode()
    assert f"\r\x1b[K[{'#' * 12}{'.' * 12}]  50%" in text
    assert f"\r\x1b[K[{'#' * 24}] 100%" in text
    assert text.endswith("\r\x1b[K")  # the bar is gone before the result


def test_feedback_lines() -> None:
    assert progress_line(3, None, None) == "progress 3"
    assert progress_line(1.5, 4, "copying") == "progress 1.5/4 copying"
    assert progress_bar(1, 4, "x") == f"[{'#' * 6}{'.' * 18}]  25% x"
    assert progress_bar(9, 4, None) == f"[{'#' * 24}] 100%"
    assert progress_bar(2, None, None) == "progress 2"
    params = LoggingMessageNotificationParams(level="warning", data={"a": 1}, logger="db")
    assert log_line(params) == '[warning] db: {"a": 1}'


# --- read, prompt, inspect ----------------------------------------------------------------


def test_read() -> None:
    done = run_cli("read", "examples/everything.py", "test://static-text")
    assert (done.returncode, done.stdout, done.stderr) == (
        0,
        "This is the content of the static text resource.\n",
        "",
    )
    done = run_cli("read", "examples/everything.py", "test://static-binary")
    assert done.stdout == "[binary test://static-binary, image/png, 70 bytes]\n"
    done = run_cli("read", "examples/everything.py", "test://template/7/data", "--json")
    assert done.returncode == 0, done.stderr
    (contents,) = json.loads(done.stdout)["contents"]
    assert contents["uri"] == "test://template/7/data" and "7" in contents["text"]
    done = run_cli("read", "examples/everything.py", "test://nothing")
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr.startswith("error -32")


def test_prompt() -> None:
    args = ["--arg", "arg1=one", "--arg", "arg2=2"]
    done = run_cli("prompt", "examples/everything.py", "test_prompt_with_arguments", *args)
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout == "user: Prompt with arguments: arg1='one', arg2='2'\n"
    done = run_cli("prompt", "examples/everything.py", "test_prompt_with_image", "--json")
    messages = json.loads(done.stdout)["messages"]
    assert messages[0]["content"]["type"] == "image"
    done = run_cli("prompt", "examples/everything.py", "test_simple_prompt", "--arg", "x")
    assert (done.returncode, done.stdout) == (2, "")
    assert "--arg takes key=value" in done.stderr


def test_inspect() -> None:
    done = run_cli("inspect", "examples/everything.py")
    assert (done.returncode, done.stderr) == (0, ""), done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "everything 1.0.0 (Everything)"
    assert lines[1].startswith("protocol: ") and lines[1].endswith(" era)")
    assert "resources (subscribe, listChanged)" in lines[2]
    assert lines[3] == "instructions: A demonstration server: try any tool, resource or prompt."
    assert "tools (28):" in lines
    sampling = lines.index(next(line for line in lines if line.startswith("  test_sampling ")))
    assert lines[sampling + 1].startswith('    input: {"type": "object", "properties": {"prompt"')
    assert "resources (3):" in lines and "resource templates (1):" in lines
    assert "    arguments: arg1 (required), arg2 (required)" in lines

    done = run_cli("inspect", "--json", "examples/hello.py")
    found = json.loads(done.stdout)
    assert found["serverInfo"] == {"name": "hello", "version": "1.0.0"}
    assert found["era"] in ("legacy", "modern") and found["protocolVersion"]
    assert found["capabilities"]["tools"] is not None
    assert found["instructions"] == "Greets whoever you name, in two languages."
    (tool,) = found["tools"]
    assert tool["name"] == "HelloTool"
    assert tool["inputSchema"]["required"] == ["value"]
    assert (found["resources"], found["resourceTemplates"], found["prompts"]) == ([], [], [])


# --- dev ----------------------------------------------------------------------------------


def node_says(directory: Path, version: str) -> None:
    """A stand-in node that only knows its version."""
    write_program(directory, "node", f"print({version!r})\n")


def test_dev_runs_the_inspector_with_the_server_command(tmp_path: Path) -> None:
    # A stand-in npx that shows what it was given, so nothing is downloaded.
    write_program(tmp_path, "npx", "import json, sys\nprint(json.dumps(sys.argv[1:]))\n")
    node_says(tmp_path, "v22.19.0")
    env = {
        **os.environ,
        "PATH": f"{tmp_path}{os.pathsep}{os.environ['PATH']}",
        "PYTHONPATH": str(ROOT),
    }
    done = run_cli("dev", "examples/hello.py", env=env)
    assert done.returncode == 0, done.stderr
    serve = [sys.executable, "-m", "transports", "serve", "examples/hello.py"]
    expected = ["@modelcontextprotocol/inspector", "-e", f"PYTHONPATH={ROOT}", "--", *serve]
    assert json.loads(done.stdout) == expected
    said = done.stderr.splitlines()
    assert said[0] == (
        "mcp-core: npx fetches @modelcontextprotocol/inspector (the MCP Inspector, from npm) "
        "unless it is cached, and asks before downloading it"
    )
    assert said[1].startswith(f"mcp-core: running {tmp_path / 'npx'} @modelcontextprotocol/")
    url = "http://127.0.0.1:8000/mcp"
    assert inspector_argv("npx", url) == [
        "npx",
        "@modelcontextprotocol/inspector",
        "--server-url",
        url,
    ]


def test_dev_without_node_says_so(tmp_path: Path) -> None:
    env = {**os.environ, "PATH": str(tmp_path)}  # no npx there
    done = run_cli("dev", "examples/hello.py", env=env)
    assert (done.returncode, done.stdout) == (1, "")
    assert "npx is not on PATH" in done.stderr and "Node.js" in done.stderr


@pytest.mark.parametrize("version", ["v20.20.2", "v22.18.1", "not a version"])
def test_dev_on_an_old_node_says_what_it_needs(tmp_path: Path, version: str) -> None:
    write_program(tmp_path, "npx", "raise SystemExit('should not run')\n")
    node_says(tmp_path, version)
    env = {**os.environ, "PATH": f"{tmp_path}{os.pathsep}{os.environ['PATH']}"}
    done = run_cli("dev", "examples/hello.py", env=env)
    assert (done.returncode, done.stdout) == (1, "")
    said = version[1:6] if version[0] == "v" else "an unknown version"
    assert done.stderr == (
        "mcp-core: error: the MCP Inspector needs Node.js 22.19 or newer, and "
        f"{tmp_path / 'node'} is {said}; install a newer one (https://nodejs.org), "
        "or try the server with `mcp-core inspect` and `mcp-core call`\n"
    )


def test_dev_with_a_missing_file(tmp_path: Path) -> None:
    write_program(tmp_path, "npx", "raise SystemExit('should not run')\n")
    node_says(tmp_path, "v24.1.0")
    env = {**os.environ, "PATH": f"{tmp_path}{os.pathsep}{os.environ['PATH']}"}
    done = run_cli("dev", shlex.quote("nothere.py"), env=env)
    assert (done.returncode, done.stderr) == (2, "mcp-core: error: nothere.py: no such file\n")
