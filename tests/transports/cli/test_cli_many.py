"""``mcp-core list / call / status --config FILE``: many servers from an mcpServers
file, on real processes."""

from __future__ import annotations

import json
from pathlib import Path

import paths
import pytest
from test_cli_servers import run_cli

EXAMPLES = paths.EXAMPLES


def servers_file(tmp_path: Path, **extra: object) -> str:
    servers = {
        "hello": {"command": "python", "args": [str(EXAMPLES / "hello.py")]},
        "weather": {"command": "python", "args": [str(EXAMPLES / "weather.py")]},
        **extra,
    }
    path = tmp_path / "servers.json"
    path.write_text(json.dumps({"mcpServers": servers}))
    return str(path)


def test_list_the_union_and_one_server(tmp_path: Path) -> None:
    config = servers_file(tmp_path)
    done = run_cli("list", "--config", config)
    assert done.returncode == 0, done.stderr
    names = [line.split()[0] for line in done.stdout.splitlines()]
    assert names == ["hello.HelloTool", "weather.getCurrentWeather", "weather.getWeatherForecast"]
    assert "[hello] Say hello" in done.stdout
    done = run_cli("list", "--config", config, "weather", "--json")
    assert done.returncode == 0, done.stderr
    assert [t["name"] for t in json.loads(done.stdout)] == names[1:]
    done = run_cli("list", "--config", config, "nobody")
    assert done.returncode == 2 and "no server 'nobody'" in done.stderr


def test_call_by_union_name_with_the_trace(tmp_path: Path) -> None:
    config = servers_file(tmp_path)
    done = run_cli("call", "--config", config, "hello.HelloTool", "--arg", "value=many", "--trace")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "Hello-bonjour many!\n"
    trace = done.stderr.splitlines()
    assert any(" hello -> request tools/call " in line for line in trace)
    assert any(" hello <- response tools/call " in line for line in trace)
    assert any(" hello ** event connected" in line for line in trace)
    # Only the server named was started.
    assert not any(" weather " in line for line in trace)


def test_an_unknown_key_is_named_and_the_file_still_used(tmp_path: Path) -> None:
    # Issue 30 item 10: "transprt" silently meant "auto"; a desktop client's own
    # keys must not stop the file from working either.
    entry = {"command": "python", "args": [str(EXAMPLES / "hello.py")], "transprt": "stdio"}
    config = servers_file(tmp_path, typo={**entry, "alwaysAllow": ["HelloTool"]})
    done = run_cli("list", "--config", config, "typo")
    assert done.returncode == 0, done.stderr
    assert done.stdout.split()[0] == "typo.HelloTool"
    assert "server 'typo': unknown key 'transprt' ignored (did you mean 'transport'?)" in (
        done.stderr
    )
    assert "unknown key 'alwaysAllow' ignored" in done.stderr
    assert "'hello'" not in done.stderr


def test_a_server_that_cannot_start_is_reported_and_the_rest_listed(tmp_path: Path) -> None:
    config = servers_file(tmp_path, broken={"command": str(tmp_path / "missing")})
    done = run_cli("status", "--config", config)
    assert done.returncode == 1
    lines = done.stdout.splitlines()
    assert lines[0].split()[:4] == ["SERVER", "STATE", "TRANSPORT", "REVISION"]
    rows = {line.split()[0]: line.split()[1:3] for line in lines[1:]}
    assert rows == {
        "hello": ["connected", "stdio"],
        "weather": ["connected", "stdio"],
        "broken": ["failed", "-"],
    }
    assert "No such file" in lines[3]
    done = run_cli("list", "--config", config)
    assert done.returncode == 1
    assert "server 'broken' is not available" in done.stderr
    assert "hello.HelloTool" in done.stdout
    done = run_cli("call", "--config", config, "broken.anything")
    assert done.returncode == 1 and "server 'broken' is not connected" in done.stderr


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["call", "--config", "{file}", "hello", "HelloTool"], "server.tool"),
        (["list", "--config", "{missing}"], "cannot read"),
        (["status", "--config", "{bad}"], "either a url or a command"),
        (["list"], "name a SERVER"),
        (["call", "examples/hello.py"], "name a TOOL"),
    ],
)
def test_usage_errors(tmp_path: Path, args: list[str], says: str) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"mcpServers": {"x": {}}}')
    names = {"file": servers_file(tmp_path), "missing": str(tmp_path / "no.json"), "bad": str(bad)}
    done = run_cli(*(arg.format(**names) for arg in args))
    assert done.returncode == 2
    assert says in done.stderr


def test_the_example_file_from_another_folder(tmp_path: Path) -> None:
    # Relative paths in the file count from its folder.
    done = run_cli("list", "--config", str(EXAMPLES / "many_servers.json"), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert [line.split()[0] for line in done.stdout.splitlines()] == [
        "hello.HelloTool",
        "weather.getCurrentWeather",
        "weather.getWeatherForecast",
        "files.readFile",
    ]
