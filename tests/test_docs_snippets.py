"""Every code block of README.md and docs/ runs here, so no example can rot.

One test per page; its ``python`` blocks run in order in one namespace (a page
builds a server in one block and calls it in the next), with the page's own
temporary directory as the working directory and on ``sys.path``:

- a block with a top-level ``await`` / ``async with`` runs under anyio on asyncio;
- a block that defines ``test_*`` functions has them called (``async`` ones under
  anyio), as pytest would;
- every `Server` a page builds is served and called in memory at the end (it is
  listed, and its tools, resources and prompts too);
- ``if __name__ == "__main__":`` parts do not run (the namespace is not ``__main__``).

An HTML comment right above a block (invisible on the rendered page) changes that:

- ``<!-- doc-test: file NAME -->``: also write the block to NAME, for the shell
  commands and imports that follow;
- ``<!-- doc-test: shell -->`` on a ``sh`` block: run each command (in the page's
  directory, or the repository's with ``shell: repository``, with this repository's
  code and ``mcp-core`` first on the path); it must exit 0. Other shell blocks
  (installs, servers that run until stopped, the benchmarks) are not run;
- ``<!-- doc-test: skip: REASON -->``: compile the block only; the reason is required;
- ``<!-- doc-test: setup`` ... ``-->``: hidden code run before the next block (a fake
  database, a peer to talk to).

Why a collector of our own: sybil and pytest-examples run each block with ``exec``,
where a top-level ``await`` is a syntax error, and neither serves a page's server in
memory; this is about a hundred lines.
"""

from __future__ import annotations

import ast
import inspect
import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import paths
import pytest

from mcp_core import Server
from transports import connect_in_memory

PAGES = [paths.ROOT / "README.md", *sorted((paths.ROOT / "docs").rglob("*.md"))]
FENCE = re.compile(r"^```(\w*)")
MARK = re.compile(r"^<!-- doc-test: (file|shell|skip|setup)\b:?\s*(.*?)\s*(-->)?$")
SHELL_TIMEOUT = 60.0
"""Seconds one shell command may take (it may spawn a server process)."""


@dataclass
class Block:
    language: str
    code: str
    line: int
    mark: str = ""
    argument: str = ""


def blocks_of(page: Path) -> list[Block]:
    """The fenced blocks of a page, with the marker above each, and hidden setups."""
    lines = page.read_text().split("\n")
    found: list[Block] = []
    mark, argument = "", ""
    index = 0
    while index < len(lines):
        line = lines[index]
        marked = MARK.match(line)
        fence = FENCE.match(line)
        if marked and marked.group(1) == "setup":
            end = lines.index("-->", index)
            found.append(Block("python", "\n".join(lines[index + 1 : end]), index + 2, "setup"))
            index = end
        elif marked:
            mark, argument = marked.group(1), marked.group(2)
        elif fence:
            end = next(i for i in range(index + 1, len(lines)) if lines[i].startswith("```"))
            code = "\n".join(lines[index + 1 : end])
            found.append(Block(fence.group(1), code, index + 2, mark, argument))
            mark, argument = "", ""
            index = end
        elif line.strip():
            mark, argument = "", ""
        index += 1
    return found


def run_python(block: Block, where: str, namespace: dict[str, Any]) -> None:
    code = compile(
        block.code, where, "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT, dont_inherit=True
    )
    if block.mark == "skip":
        return
    before = set(namespace)
    if code.co_flags & inspect.CO_COROUTINE:

        async def run() -> None:
            await eval(code, namespace)

        anyio.run(run, backend="asyncio")
    else:
        exec(code, namespace)
    for name in sorted(set(namespace) - before):
        test = namespace[name]
        if name.startswith("test_") and callable(test):
            if inspect.iscoroutinefunction(test):
                anyio.run(test, backend="asyncio")
            else:
                test()


def run_shell(block: Block, where: str, directory: Path) -> None:
    env = dict(os.environ)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(paths.ROOT), env.get("PYTHONPATH")]))
    for command in block.code.split("\n"):
        command = command.split(" #")[0].strip()
        if not command or command.startswith("#"):
            continue
        done = subprocess.run(
            shlex.split(command),
            cwd=directory,
            env=env,
            capture_output=True,
            timeout=SHELL_TIMEOUT,
            check=False,
        )
        assert done.returncode == 0, f"{where}: {command}\n{done.stdout!r}\n{done.stderr!r}"


async def call_in_memory(server: Server) -> None:
    """Serve a page's server in memory and list what it offers."""
    async with connect_in_memory(server) as client:
        capabilities = client.server_capabilities
        assert capabilities is not None
        if capabilities.tools:  # UNSET when not declared
            await client.list_tools()
        if capabilities.resources:
            await client.list_resources()
            await client.list_resource_templates()
        if capabilities.prompts:
            await client.list_prompts()


def page_id(page: Path) -> str:
    return str(page.relative_to(paths.ROOT))


def test_the_pages_have_code() -> None:
    assert sum(len(blocks_of(page)) for page in PAGES) > 25


@pytest.mark.parametrize("page", PAGES, ids=page_id)
def test_every_block_runs(
    page: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    namespace: dict[str, Any] = {"__name__": "doc_snippets"}
    written: list[str] = []
    for block in blocks_of(page):
        where = f"{page_id(page)}:{block.line}"
        if block.mark == "skip":
            assert block.argument, f"{where}: a skipped block says why"
        if block.mark == "file":
            (tmp_path / block.argument).write_text(block.code + "\n")
            written.append(Path(block.argument).stem)
        if block.language == "python":
            run_python(block, where, namespace)
        elif block.mark == "shell":
            run_shell(block, where, paths.ROOT if block.argument == "repository" else tmp_path)
    servers = {id(value): value for value in namespace.values() if isinstance(value, Server)}
    for server in servers.values():
        anyio.run(call_in_memory, server, backend="asyncio")
    for module in written:
        sys.modules.pop(module, None)
