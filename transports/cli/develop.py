"""Commands for working on a server: ``mcp-core dev`` and ``mcp-core serve --reload``.

``dev SERVER`` hands the server to the MCP Inspector, the reference web UI for
trying a server by hand: it becomes ``npx @modelcontextprotocol/inspector [-e
PYTHONPATH=...] -- ARGV`` (``--server-url URL`` for a URL). The Inspector starts the
server with a short list of our environment variables, so PYTHONPATH, which a
source checkout needs to import ``transports``, is handed on explicitly. npx
downloads the Inspector on first use (after asking), and ``dev`` says so first.
The Inspector needs Node.js 22.19 or newer (`NODE_MINIMUM`); on an older one npx
quietly picks an old Inspector release, so ``dev`` checks ``node --version`` and
stops, exit status 1, without Node.js or with an older one.

``serve --reload`` runs the real ``serve`` in a child process and restarts it when
a ``.py`` file under the target's directory changes. Only the standard library is
used: modification times are polled every half second (a change is a file added,
removed, or with a new mtime). The child has a process group of its own, so
Ctrl-C reaches this parent only, which stops the child with SIGINT (SIGKILL if it
is still there 5 seconds later) before exiting 130. A child that exits on its own
(a syntax error in the file) is reported and started again at the next change.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from types import FrameType
from typing import Final

from .connect import UsageError, error, is_url, server_argv
from .targets import target_file

__all__ = [
    "INSPECTOR",
    "NODE_MINIMUM",
    "POLL_SECONDS",
    "inspector_argv",
    "node_version",
    "python_files",
    "run_dev",
    "run_reload",
    "watched_directory",
]

INSPECTOR: Final = "@modelcontextprotocol/inspector"
"""The npm package of the MCP Inspector."""

NODE_MINIMUM: Final = (22, 19)
"""The oldest Node.js the current MCP Inspector runs on (its package's ``engines``);
npx on an older Node falls back to an Inspector release from 2025."""

POLL_SECONDS: Final = 0.5
"""How often ``--reload`` looks at the files: a change shows within a second."""

STOP_GRACE_SECONDS: Final = 5.0
"""How long a reloaded server has to stop after SIGINT before it is killed."""

_SKIPPED_DIRECTORIES: Final = frozenset({"__pycache__", "node_modules", "site-packages"})


# --- dev ------------------------------------------------------------------------------------


def inspector_argv(npx: str, server: str) -> list[str]:
    """The command that opens ``server`` (a URL, TARGET or command) in the Inspector.

    Raises:
        UsageError: a server command that cannot be split, or a missing target file.
    """
    if is_url(server):
        return [npx, INSPECTOR, "--server-url", server]
    environment = []
    if pythonpath := os.environ.get("PYTHONPATH"):
        environment = ["-e", f"PYTHONPATH={pythonpath}"]
    return [npx, INSPECTOR, *environment, "--", *server_argv(server)]


def node_version(node: str) -> tuple[int, int] | None:
    """``node --version`` as (major, minor), or None if it does not say."""
    try:
        done = subprocess.run(
            [node, "--version"], capture_output=True, text=True, timeout=30, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    found = re.match(r"v?(\d+)\.(\d+)", done.stdout.strip())
    return None if found is None else (int(found[1]), int(found[2]))


_OTHERWISE = "or try the server with `mcp-core inspect` and `mcp-core call`"


def run_dev(server: str) -> int:
    """``mcp-core dev SERVER``: replace this process with the Inspector."""
    npx, node = shutil.which("npx"), shutil.which("node")
    if npx is None or node is None:
        missing = "npx" if npx is None else "node"
        error(
            f"the MCP Inspector runs on Node.js, and {missing} is not on PATH; install Node.js "
            f"{NODE_MINIMUM[0]}.{NODE_MINIMUM[1]} or newer (https://nodejs.org), {_OTHERWISE}"
        )
        return 1
    version = node_version(node)
    if version is None or version < NODE_MINIMUM:
        said = "an unknown version" if version is None else f"{version[0]}.{version[1]}"
        error(
            f"the MCP Inspector needs Node.js {NODE_MINIMUM[0]}.{NODE_MINIMUM[1]} or newer, "
            f"and {node} is {said}; install a newer one (https://nodejs.org), {_OTHERWISE}"
        )
        return 1
    try:
        argv = inspector_argv(npx, server)
    except UsageError as exc:
        error(str(exc))
        return 2
    print(
        f"mcp-core: npx fetches {INSPECTOR} (the MCP Inspector, from npm) unless it is "
        "cached, and asks before downloading it",
        file=sys.stderr,
    )
    print(f"mcp-core: running {' '.join(argv)}", file=sys.stderr, flush=True)
    sys.stdout.flush()
    os.execv(npx, argv)


# --- serve --reload ---------------------------------------------------------------------------


def watched_directory(target: str) -> Path:
    """The directory whose ``.py`` files a TARGET depends on: a file's directory, a
    package's directory, a module's directory; the current directory if the module
    cannot be found without running it."""
    path = target_file(target)
    if path is not None:
        return Path(path).resolve().parent
    top = target.partition(":")[0].split(".")[0]
    sys.path.insert(0, os.getcwd())
    try:
        spec = importlib.util.find_spec(top)
    except (ImportError, ValueError):
        spec = None
    finally:
        sys.path.pop(0)
    if spec is not None and spec.submodule_search_locations:
        return Path(next(iter(spec.submodule_search_locations))).resolve()
    if spec is not None and spec.origin is not None and os.path.isfile(spec.origin):
        return Path(spec.origin).resolve().parent
    return Path.cwd()


def python_files(directory: Path) -> dict[str, int]:
    """Every ``.py`` file under ``directory`` and its mtime (ns); hidden directories,
    caches and virtual environments left out."""
    found: dict[str, int] = {}
    for root, directories, files in os.walk(directory):
        directories[:] = [
            name
            for name in directories
            if not name.startswith(".")
            and name not in _SKIPPED_DIRECTORIES
            and not os.path.exists(os.path.join(root, name, "pyvenv.cfg"))
        ]
        for name in files:
            if name.endswith(".py"):
                path = os.path.join(root, name)
                try:
                    found[path] = os.stat(path).st_mtime_ns
                except FileNotFoundError:  # removed while we looked
                    continue
    return found


class _Stop(Exception):
    def __init__(self, signum: int) -> None:
        self.signum = signum


def _raise_stop(signum: int, frame: FrameType | None) -> None:
    raise _Stop(signum)


def _start(argv: Sequence[str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen(argv, process_group=0)


def _stop(child: subprocess.Popen[bytes]) -> None:
    if child.poll() is None:
        child.send_signal(signal.SIGINT)
        try:
            child.wait(STOP_GRACE_SECONDS)
        except subprocess.TimeoutExpired:
            child.kill()
    child.wait()


def _say(message: str) -> None:
    print(f"mcp-core: {message}", file=sys.stderr, flush=True)


def run_reload(argv: Sequence[str], directory: Path) -> int:
    """Run ``argv`` (a ``serve`` without ``--reload``), restarting it on every change
    to the ``.py`` files under ``directory``; returns when we are told to stop."""
    previous = {
        signum: signal.signal(signum, _raise_stop) for signum in (signal.SIGTERM, signal.SIGHUP)
    }
    child: subprocess.Popen[bytes] | None = None
    try:
        files = python_files(directory)
        _say(f"watching {directory} for changes to .py files")
        child = _start(argv)
        reported = False
        while True:
            time.sleep(POLL_SECONDS)
            now = python_files(directory)
            if now != files:
                changed = sorted(
                    path for path in now.keys() | files.keys() if now.get(path) != files.get(path)
                )
                _say(f"{os.path.relpath(changed[0], directory)} changed; restarting")
                files = now
                _stop(child)
                child = _start(argv)
                reported = False
            elif child.poll() is not None and not reported:
                _say(f"the server exited with status {child.returncode}; waiting for a change")
                reported = True
    except KeyboardInterrupt:
        return 130
    except _Stop as stop:
        return 128 + stop.signum
    finally:
        if child is not None:
            _stop(child)
        for signum, handler in previous.items():
            signal.signal(signum, handler)
