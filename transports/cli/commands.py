"""The ``mcp-core`` command line.

    mcp-core serve TARGET                  serve a Server (file.py[:obj] or module:obj) on stdio
                                           (or --transport http [--host] [--port] [--path]
                                           [--allowed-host NAME ... | --any-host]
                                           [--auth-jwks URL --auth-issuer URL]); --reload
                                           restarts it when a .py file changes
    mcp-core call SERVER TOOL [k=v ...]    call a tool of a server (URL, TARGET or command)
    mcp-core list SERVER [KIND]            list its tools, resources or prompts
    mcp-core list --config FILE [SERVER]   the same for the servers of an mcpServers file
    mcp-core call --config FILE server.tool  call a tool of one of those servers
    mcp-core status --config FILE          how the connection to each of them goes
    mcp-core gateway --config FILE         serve all of them as one server (stdio or http)
    mcp-core read SERVER URI               read a resource
    mcp-core prompt SERVER NAME [k=v ...]  get a prompt
    mcp-core skills SERVER [NAME]          list its skills, or fetch one (verified)
    mcp-core skills --config FILE [NAME]   the same over the servers of an mcpServers file
    mcp-core inspect SERVER                everything the server offers, schemas included
    mcp-core dev SERVER                    open the server in the MCP Inspector (needs npx)
    mcp-core config TARGET                 the mcpServers entry desktop clients take
    mcp-core bench                         run the benchmarks

Every subcommand is one entry in COMMANDS: a name, a help line, a function that
adds its arguments, and a handler that returns the exit status. Handlers import
what they need when they run, so ``mcp-core --version`` loads nothing heavy.

Exit statuses: 0 done; 1 something failed (the tool, the server, loading the
target); 2 the command line asked for something impossible (a usage error, a target
that names no Server, a transport that is not available yet); 130 interrupted
(Ctrl-C); 128 + N ended by signal N (143: SIGTERM), once a spawned server is down.
``serve --transport http`` stops gracefully on SIGTERM (then 0) and Ctrl-C (130).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shlex
import signal
import sys
import threading
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mcp_core import __version__
from mcp_core.server import LifespanError
from mcp_core.session import LOG_LEVELS

from ..backend import available
from .logs import add_log_arguments, configure_logging
from .serve_auth import add_auth_arguments, bearer_auth
from .telemetry import add_telemetry_arguments, telemetry

if TYPE_CHECKING:
    from mcp_core import Server

    from .targets import Target

__all__ = ["COMMANDS", "Command", "build_parser", "main"]


@dataclass(frozen=True)
class Command:
    """A subcommand: ``configure`` adds its arguments, ``handler`` runs it."""

    name: str
    help: str
    configure: Callable[[argparse.ArgumentParser], None]
    handler: Callable[[argparse.Namespace], int]


# --- bench ----------------------------------------------------------------------------------------


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def _configure_bench(parser: argparse.ArgumentParser) -> None:
    from benchmarks.layers import LAYERS

    layer_help = "; ".join(f"{layer.name}: {layer.summary}" for layer in LAYERS.values())
    parser.add_argument(
        "--quick",
        action="store_true",
        help="5 short runs per figure instead of 15 longer ones; leaves the workers "
        "layer out unless --only names it",
    )
    parser.add_argument(
        "--only",
        action="append",
        choices=list(LAYERS),
        metavar="LAYER",
        help=f"run only this layer (repeatable). Layers: {layer_help}",
    )
    parser.add_argument(
        "--backend",
        action="append",
        choices=("asyncio", "trio"),
        help="run the async layers on this event loop only (repeatable; default both)",
    )
    parser.add_argument(
        "--json", type=Path, metavar="FILE", help="also write every figure, as JSON, to FILE"
    )
    parser.add_argument(
        "--plot",
        type=Path,
        metavar="FILE.png",
        help="also draw the figures into FILE.png (needs matplotlib); --quick draws them "
        "into ./mcp-core-bench.png unless told where, or --no-plot",
    )
    parser.add_argument("--no-plot", action="store_true", help="draw no picture (with --quick)")
    # For tests: tiny, fixed workloads whose figures mean nothing.
    parser.add_argument("--runs", type=_positive_int, help=argparse.SUPPRESS)
    parser.add_argument("--iterations", type=_positive_int, help=argparse.SUPPRESS)


def _run_bench(args: argparse.Namespace) -> int:
    from benchmarks.runner import run_bench

    return run_bench(
        only=args.only or (),
        quick=args.quick,
        json_path=args.json,
        plot_path=args.plot,
        picture=args.quick and not args.no_plot,
        backends=tuple(args.backend or ()),
        runs=args.runs,
        iterations=args.iterations,
        command=args.command_line,
    )


def _error(message: str) -> None:
    print(f"mcp-core: error: {message}", file=sys.stderr)


def _positive_float(text: str) -> float:
    value = float(text)
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be more than 0, got {text}")
    return value


# --- serve and config -----------------------------------------------------------------------------

_TARGET_HELP = (
    "the server: a file (app.py), a file and the attribute holding the Server (app.py:server), "
    "or an importable module and attribute (package.module:server). Without an attribute, "
    "the one Server at the module's top level"
)


def _add_verbose(parser: argparse.ArgumentParser, help: str) -> None:
    parser.add_argument("-v", "--verbose", action="store_true", help=help)


def _load(target: str, verbose: bool = False) -> tuple[int, Target | None]:
    """Load a TARGET, or say why not: (0, target), or (exit status, None). A failure
    of the loaded code is one line and its source (the traceback with ``verbose``)."""
    from .targets import TargetError, describe_failure, load_target, target_file

    try:
        # Whatever the module prints while loading must not reach a stdio wire or
        # the JSON that `config` prints.
        with contextlib.redirect_stdout(sys.stderr):
            return 0, load_target(target)
    except TargetError as exc:
        _error(str(exc))
        return 2, None
    except Exception as exc:
        if verbose:
            traceback.print_exc()
            _error(f"loading {target} failed: see the traceback above")
        else:
            text = describe_failure(exc)
            # Where the fault is in the target's own file, its place says it all.
            file = target_file(target)
            own = file is not None and text.startswith(f"{file}:")
            _error(text if own else f"cannot load {target}: {text}")
        return 1, None


def _configure_serve(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("target", metavar="TARGET", help=_TARGET_HELP)
    parser.add_argument(
        "--transport",
        choices=("stdio", "http"),
        default="stdio",
        help="stdio (default): this process's stdin and stdout; "
        "http: streamable HTTP at http://HOST:PORT/PATH (and the deprecated "
        "HTTP+SSE transport at /sse)",
    )
    parser.add_argument(
        "--backend",
        choices=("asyncio", "trio"),
        default="asyncio",
        help="the event loop to run on (default asyncio)",
    )
    parser.add_argument("--host", help="HTTP: the address to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, help="HTTP: the port to listen on (default 8000)")
    parser.add_argument("--path", help="HTTP: the endpoint's path (default /mcp)")
    parser.add_argument(
        "--allowed-host",
        action="append",
        metavar="NAME",
        help="HTTP: a Host name to answer to (repeatable); needed with a --host that "
        "is not a loopback address (default: the loopback names)",
    )
    parser.add_argument(
        "--any-host",
        action="store_true",
        help="HTTP: answer to any Host name (turns DNS-rebinding protection off)",
    )
    parser.add_argument(
        "--shutdown-grace",
        type=float,
        metavar="SECONDS",
        help="HTTP: on SIGTERM or SIGINT, how long requests in flight may take to "
        "finish (default 10); a second signal stops at once",
    )
    parser.add_argument(
        "--trusted-proxy",
        action="append",
        metavar="ADDRESS",
        help="HTTP: a reverse proxy or load balancer (address or network, repeatable) "
        "whose Forwarded or X-Forwarded-For header names the client, so that sessions "
        "are counted per client behind it (see docs/limits.md)",
    )
    parser.add_argument(
        "--server-card",
        action="store_true",
        help="HTTP: serve the server's MCP Server Card (SEP-2127) at "
        "/.well-known/mcp/server-card.json",
    )
    parser.add_argument(
        "--redis",
        metavar="URL",
        help="HTTP: keep shared state (sessions, events, tasks, single-use requestState) "
        "on the Redis at URL, so that several workers serve as one (needs the redis extra; "
        "give every worker the same MCP_CORE_STATE_KEY)",
    )
    parser.add_argument(
        "--workers",
        type=_positive_int,
        metavar="N",
        help="HTTP, with --redis: run N worker processes on PORT, PORT+1, ... "
        "(put a load balancer in front: examples/redis/haproxy.cfg)",
    )
    parser.add_argument(
        "--restart-delay",
        type=float,
        metavar="SECONDS",
        help="with --workers: seconds before a worker that exited is started again "
        "(default 1; doubled, up to 16 times, while it keeps dying within 30 s of "
        "starting; after 5 such exits in a row it stays down)",
    )
    parser.add_argument(
        "--reload",
        action="store_true",
        help="HTTP: restart the server whenever a .py file under the target's directory "
        "changes (for development)",
    )
    add_auth_arguments(parser)
    add_log_arguments(parser)
    add_telemetry_arguments(parser)
    _add_verbose(parser, "if the target fails to load, show the traceback")


def _run_serve(args: argparse.Namespace) -> int:
    configure_logging(args)
    if args.reload:
        return _serve_reloading(args)
    if args.transport == "http":
        return _serve_http(args)
    http_only = [
        f"--{name.replace('_', '-')}"
        for name in (
            "host",
            "port",
            "path",
            "allowed_host",
            "shutdown_grace",
            "auth_jwks",
            "trusted_proxy",
        )
        if getattr(args, name) is not None
    ]
    if args.any_host:
        http_only.append("--any-host")
    if http_only:
        verb = "applies" if len(http_only) == 1 else "apply"
        _error(f"{', '.join(http_only)} only {verb} to --transport http")
        return 2
    status, target = _load(args.target, args.verbose)
    if target is None:
        return status
    from ..stdio import run_stdio

    if sys.stdin.isatty():
        # Typed by hand: a stdio server says nothing until a client speaks.
        print(
            f"mcp-core: serving {target.server.info.name} on stdio; waiting for an MCP "
            "client on stdin (clients start this command themselves; Ctrl-D to stop; "
            "try it with `mcp-core call`, or serve with --transport http)",
            file=sys.stderr,
            flush=True,
        )
    with telemetry(args, target.server.info.name):
        run_stdio(target.server, backend=args.backend)
    return 0


def _serve_reloading(args: argparse.Namespace) -> int:
    # A stdio client cannot follow a restart: its session and pipes die with the child.
    if args.transport != "http":
        _error("--reload only applies to --transport http (a stdio client cannot reconnect)")
        return 2
    from .develop import run_reload, watched_directory

    child = [sys.executable, "-m", "transports", *(a for a in args.arguments if a != "--reload")]
    return run_reload(child, watched_directory(args.target))


def _serve_http(args: argparse.Namespace) -> int:
    port = 8000 if args.port is None else args.port
    if not 0 <= port <= 65535:
        _error(f"--port must be from 0 to 65535, got {port}")
        return 2
    path = "/mcp" if args.path is None else args.path
    if not path.startswith("/"):
        _error(f"--path must start with '/', got {path!r}")
        return 2
    if args.workers is not None and args.redis is None:
        _error("--workers needs --redis (the workers share their state there)")
        return 2
    if args.workers is not None and args.workers > 1:
        from .workers import run_workers, without

        arguments = without(args.arguments, "--workers", "--port", "--restart-delay", "--metrics")
        delay = 1.0 if args.restart_delay is None else args.restart_delay
        return run_workers(arguments, args.workers, port, restart_delay=delay, metrics=args.metrics)
    status, target = _load(args.target, args.verbose)
    if target is None:
        return status
    if args.redis is not None:
        shared = _share(target.server, args.redis)
        if shared:
            return shared
    from ..http.server import UnsafeBindError, run_http

    name = target.server.info.name
    options: dict[str, object] = {}
    if args.any_host and args.allowed_host:
        _error("--any-host and --allowed-host exclude each other")
        return 2
    if args.any_host:
        options["allowed_hosts"] = None
    elif args.allowed_host:
        options["allowed_hosts"] = tuple(args.allowed_host)
    if args.shutdown_grace is not None:
        if not args.shutdown_grace >= 0:
            _error(f"--shutdown-grace must be 0 or more seconds, got {args.shutdown_grace}")
            return 2
        options["shutdown_grace"] = args.shutdown_grace
    rules: dict[str, object] = {"server_card": True} if args.server_card else {}
    if args.trusted_proxy:
        rules["trusted_proxies"] = tuple(args.trusted_proxy)
    if rules:
        from ..http.server import default_config

        hosts = (
            {"allowed_hosts": options.pop("allowed_hosts")} if "allowed_hosts" in options else {}
        )
        try:
            options["config"] = default_config(args.host or "127.0.0.1", path, **rules, **hosts)
        except UnsafeBindError as exc:
            _error(str(exc))
            return 2
        except ValueError as exc:
            _error(f"--trusted-proxy: {exc}")
            return 2
    try:
        options["authenticate"] = bearer_auth(args, args.host or "127.0.0.1", port, path)
    except ValueError as exc:
        _error(str(exc))
        return 2

    def listening(url: str) -> None:
        print(f"mcp-core: serving {name} on {url}", file=sys.stderr, flush=True)

    try:
        with telemetry(args, name):
            stopped_by = run_http(
                target.server,
                backend=args.backend,
                host=args.host or "127.0.0.1",
                port=port,
                path=path,
                on_listening=listening,
                **options,
            )
    except UnsafeBindError as exc:
        _error(str(exc))
        return 2
    except OSError as exc:
        # The address is taken, or not ours to bind.
        _error(f"cannot listen on {args.host or '127.0.0.1'}:{port}: {exc.strerror or exc}")
        return 1
    # Stopped gracefully: SIGTERM is how a service is stopped (0); Ctrl-C is 130.
    return 130 if stopped_by == signal.SIGINT else 0


def _share(server: Server, url: str) -> int:
    from .workers import state_keys_from_env

    try:
        keys = state_keys_from_env()
        from ..redis import share_on_redis
    except ValueError as exc:
        _error(str(exc))
        return 2
    except ImportError:
        _error("--redis needs the redis extra: pip install 'mcp-sansio[redis]'")
        return 2
    share_on_redis(server, url, state_keys=keys)
    return 0


def _configure_config(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("target", metavar="TARGET", help=_TARGET_HELP)
    parser.add_argument("--name", help="the entry's name (default: the server's name)")
    _add_verbose(parser, "if the target fails to load, show the traceback")


def _run_config(args: argparse.Namespace) -> int:
    status, target = _load(args.target, args.verbose)
    if target is None:
        return status
    entry: dict[str, Any] = {
        "command": os.path.abspath(sys.executable),
        "args": ["-m", "transports", "serve", target.spec],
    }
    if target.pythonpath is not None:
        entry["env"] = {"PYTHONPATH": target.pythonpath}
    name = args.name or target.server.info.name
    print(json.dumps({"mcpServers": {name: entry}}, indent=2, ensure_ascii=False))
    return 0


# --- call and list --------------------------------------------------------------------------------

_SERVER_HELP = (
    "the server: the http(s) URL of its MCP endpoint (e.g. http://127.0.0.1:8000/mcp), "
    "a TARGET as serve takes it (server.py, server.py:obj, module:obj), run with this "
    'Python, or the command that starts it, quoted as one argument (e.g. "python '
    'server.py"; python means this Python), which gets our environment'
)
_HEADER_HELP = "an HTTP header for every request, e.g. 'Authorization: Bearer T' (repeatable)"
_TIMEOUT_HELP = "give up after this many seconds, the handshake included (default: wait)"
_AUTH_HELP = (
    "OAuth for a server that asks for it: 'browser' opens the authorization page and waits "
    "on 127.0.0.1, 'headless' prints it and reads the URL you are sent back to; bare "
    "--auth picks browser when one can be opened. Credentials are kept in "
    "$MCP_CORE_OAUTH_DIR (default ~/.cache/mcp-core/oauth), one 0600 file per issuer"
)
_LIST_KINDS = ("tools", "resources", "prompts")


def _add_connection(parser: argparse.ArgumentParser, json_help: str) -> None:
    """The options of every command that talks to a SERVER."""
    parser.add_argument("--json", action="store_true", help=json_help)
    parser.add_argument("--timeout", type=_positive_float, metavar="SECONDS", help=_TIMEOUT_HELP)
    parser.add_argument("-H", "--header", action="append", metavar="HEADER", help=_HEADER_HELP)
    parser.add_argument(
        "--auth", nargs="?", const="auto", choices=("auto", "browser", "headless"), help=_AUTH_HELP
    )
    _add_verbose(
        parser,
        "show a spawned server's stderr as it comes (tracebacks included); by default it "
        "is shown only if the server exits before the work is done",
    )


def _configure_call(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("server", metavar="SERVER", help=_SERVER_HELP)
    parser.add_argument("tool", metavar="TOOL", nargs="?", help="the tool's name")
    parser.add_argument(
        "pairs",
        nargs="*",
        metavar="KEY=VALUE",
        help="the tool's arguments (add a=1 b=2); VALUE is JSON if it parses (3, true, [1], "
        '{"a": 1}, "quoted"), else the text as typed',
    )
    parser.add_argument(
        "--arg",
        action="append",
        metavar="KEY=VALUE",
        help="one argument (repeatable), as KEY=VALUE after the tool",
    )
    parser.add_argument(
        "--json-args",
        action="append",
        metavar="OBJECT",
        help="the tool's arguments as a JSON object (repeatable, merged before --arg)",
    )
    parser.add_argument(
        "--log-level",
        choices=(*LOG_LEVELS, "off"),
        default="info",
        help="show the server's log messages of this level and above on stderr while the "
        "tool runs (default info; off: ask for none)",
    )
    parser.add_argument(
        "--task",
        action="store_true",
        help="run the call as a task (when the tool supports it) and show its status on "
        "stderr until the result",
    )
    _add_connection(parser, "print the whole result as JSON")
    _add_many(parser)


def _run_call(args: argparse.Namespace) -> int:
    if args.config is not None:
        from .many import run_many_call

        # call --config FILE server.tool a=1 b=2: the words are arguments too.
        if args.tool is not None and "=" in args.tool:
            args.pairs.insert(0, args.tool)
            args.tool = None
        args.arg = [*(args.arg or []), *args.pairs]
        return run_many_call(args)
    if args.tool is None:
        _error("name a TOOL (or give --config FILE and server.tool)")
        return 2
    from .client import run_call

    return run_call(args)


def _configure_list(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("server", metavar="SERVER", nargs="?", help=_SERVER_HELP)
    parser.add_argument(
        "kind", nargs="?", choices=_LIST_KINDS, default="tools", help="what to list (default tools)"
    )
    _add_connection(parser, "print the whole list as JSON")
    _add_many(parser)


def _run_list(args: argparse.Namespace) -> int:
    if args.config is not None:
        from .many import run_many_list

        return run_many_list(args)
    if args.server is None:
        _error("name a SERVER (or give --config FILE)")
        return 2
    from .client import run_list

    return run_list(args)


_CONFIG_HELP = (
    "an mcpServers JSON file (as `mcp-core config` prints): talk to its servers at once, "
    "SERVER being one of its names (list) or TOOL being server.tool (call)"
)


def _add_many(parser: argparse.ArgumentParser) -> None:
    """The options of the commands that take many servers from a file."""
    parser.add_argument("--config", metavar="FILE", help=_CONFIG_HELP)
    parser.add_argument(
        "--trace",
        action="store_true",
        help="with --config: print every message and connection event on stderr",
    )


def _configure_status(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", metavar="FILE", required=True, help="an mcpServers JSON file")
    parser.add_argument("--json", action="store_true", help="print the states as JSON")
    parser.add_argument("--timeout", type=_positive_float, metavar="SECONDS", help=_TIMEOUT_HELP)


def _run_status(args: argparse.Namespace) -> int:
    from .many import run_status

    return run_status(args)


def _configure_gateway(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", metavar="FILE", required=True, help="an mcpServers JSON file")
    parser.add_argument(
        "--transport",
        choices=("stdio", "http"),
        default="stdio",
        help="stdio (default), or streamable HTTP at http://HOST:PORT/PATH",
    )
    parser.add_argument("--host", default="127.0.0.1", help="HTTP: the address (127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000, help="HTTP: the port (8000; 0: any)")
    parser.add_argument("--path", default="/mcp", help="HTTP: the endpoint's path (/mcp)")
    parser.add_argument(
        "--backend", choices=("asyncio", "trio"), default="asyncio", help="the event loop"
    )
    parser.add_argument("--timeout", type=_positive_float, metavar="SECONDS", help=_TIMEOUT_HELP)
    parser.add_argument(
        "--trace", action="store_true", help="print every upstream message on stderr"
    )
    parser.add_argument(
        "--parked-ttl",
        type=_positive_float,
        metavar="SECONDS",
        help="how long a call waits, parked, for a 2026-07-28 client's answers to an "
        "upstream's questions (default: the requestState's lifetime, 300)",
    )
    parser.add_argument(
        "--max-parked",
        type=_positive_int,
        default=1000,
        metavar="N",
        help="calls parked at once, at most (1000); past it an upstream's question is refused",
    )
    add_auth_arguments(parser)
    add_log_arguments(parser)
    add_telemetry_arguments(parser)


def _run_gateway(args: argparse.Namespace) -> int:
    configure_logging(args)
    from .many import run_gateway

    with telemetry(args, "mcp-core-gateway"):
        return run_gateway(args)


def _configure_read(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("server", metavar="SERVER", help=_SERVER_HELP)
    parser.add_argument("uri", metavar="URI", help="the resource's URI")
    _add_connection(parser, "print the whole result (base64 for binary contents) as JSON")


def _run_read(args: argparse.Namespace) -> int:
    from .client import run_read

    return run_read(args)


def _configure_prompt(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("server", metavar="SERVER", help=_SERVER_HELP)
    parser.add_argument("name", metavar="NAME", help="the prompt's name")
    parser.add_argument(
        "pairs",
        nargs="*",
        metavar="KEY=VALUE",
        help="the prompt's arguments (topic=tea); prompt arguments are text, taken as typed",
    )
    parser.add_argument(
        "--arg",
        action="append",
        metavar="KEY=VALUE",
        help="one argument (repeatable), as KEY=VALUE after the name",
    )
    _add_connection(parser, "print the whole result as JSON")


def _run_prompt(args: argparse.Namespace) -> int:
    from .client import run_prompt

    return run_prompt(args)


def _configure_skills(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("server", metavar="SERVER", nargs="?", help=_SERVER_HELP)
    parser.add_argument(
        "name",
        nargs="?",
        metavar="NAME",
        help="a skill's name, path (acme/billing/refunds) or SKILL.md URI: print its "
        "SKILL.md, verified against its entry; without NAME, list the skills",
    )
    parser.add_argument(
        "--file", metavar="PATH", help="print this file of the skill instead (verified)"
    )
    parser.add_argument("--files", action="store_true", help="list the skill's files")
    _add_connection(parser, "print the listing, or the skill's entry and SKILL.md, as JSON")
    _add_many(parser)


def _run_skills(args: argparse.Namespace) -> int:
    if args.config is not None:
        # `skills --config FILE [NAME]`: the one positional is the skill.
        if args.name is None:
            args.name = args.server
        elif args.server is not None:
            _error("with --config, give only the skill's NAME")
            return 2
        from .skills import run_many_skills

        return run_many_skills(args)
    if args.server is None:
        _error("name a SERVER (or give --config FILE)")
        return 2
    from .skills import run_skills

    return run_skills(args)


def _configure_inspect(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("server", metavar="SERVER", help=_SERVER_HELP)
    _add_connection(parser, "print it all as one JSON object")


def _run_inspect(args: argparse.Namespace) -> int:
    from .inspection import run_inspect

    return run_inspect(args)


def _configure_dev(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("server", metavar="SERVER", help=_SERVER_HELP)


def _run_dev(args: argparse.Namespace) -> int:
    from .develop import run_dev

    return run_dev(args.server)


COMMANDS: list[Command] = [
    Command(
        name="serve",
        help="serve an mcp_core.Server from a file or module (stdio or HTTP)",
        configure=_configure_serve,
        handler=_run_serve,
    ),
    Command(
        name="call",
        help="call a tool of a server and print the result",
        configure=_configure_call,
        handler=_run_call,
    ),
    Command(
        name="list",
        help="list the tools, resources or prompts of a server",
        configure=_configure_list,
        handler=_run_list,
    ),
    Command(
        name="status",
        help="connect to every server of an mcpServers file and show each connection's state",
        configure=_configure_status,
        handler=_run_status,
    ),
    Command(
        name="gateway",
        help="serve the servers of an mcpServers file as one server, tools named server.tool",
        configure=_configure_gateway,
        handler=_run_gateway,
    ),
    Command(
        name="read",
        help="read a resource of a server and print its contents",
        configure=_configure_read,
        handler=_run_read,
    ),
    Command(
        name="prompt",
        help="get a prompt of a server, its arguments filled in, and print its messages",
        configure=_configure_prompt,
        handler=_run_prompt,
    ),
    Command(
        name="skills",
        help="list the skills of a server (SEP-2640), or fetch one, verified",
        configure=_configure_skills,
        handler=_run_skills,
    ),
    Command(
        name="inspect",
        help="show everything a server offers: capabilities, tools with their schemas, "
        "resources, templates, prompts",
        configure=_configure_inspect,
        handler=_run_inspect,
    ),
    Command(
        name="dev",
        help="open a server in the MCP Inspector (npx @modelcontextprotocol/inspector)",
        configure=_configure_dev,
        handler=_run_dev,
    ),
    Command(
        name="config",
        help="print the mcpServers entry that desktop MCP clients take to launch a server",
        configure=_configure_config,
        handler=_run_config,
    ),
    Command(
        name="bench",
        help="run the benchmarks, side by side with the MCP SDK when it is installed",
        configure=_configure_bench,
        handler=_run_bench,
    ),
]
"""Every subcommand, in the order ``--help`` lists them."""


def build_parser() -> argparse.ArgumentParser:
    """The argument parser for ``mcp-core`` and all its subcommands."""
    parser = argparse.ArgumentParser(
        prog="mcp-core", description="mcp-core: the Model Context Protocol, sans-IO."
    )
    parser.add_argument("--version", action="version", version=f"mcp-core {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    parser.set_defaults(subparsers={})
    for command in COMMANDS:
        sub = subparsers.add_parser(command.name, help=command.help, description=command.help)
        command.configure(sub)
        sub.set_defaults(handler=command.handler)
        parser.get_default("subparsers")[command.name] = sub
    return parser


def _take_ctrl_c() -> None:
    # Ctrl-C (SIGINT) stops every command with status 130, however it was started.
    # A shell without job control starts a background job with SIGINT ignored, and
    # Python then leaves it ignored: `serve` on stdio, or on trio, would outlive
    # Ctrl-C and `kill -INT`, while `serve --transport http` on asyncio (whose
    # handlers replace the disposition) stopped. A server stops on SIGINT, as
    # uvicorn's does; the MCP client's own way to stop a stdio server (closing its
    # stdin, then SIGTERM) is unchanged.
    if threading.current_thread() is not threading.main_thread():
        return
    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    # KEY=VALUE words may follow options too (call app.py add a=1 --json b=2).
    args, unknown = parser.parse_known_args(args_list)
    if unknown:
        pairs: list[str] | None = getattr(args, "pairs", None)
        if pairs is None or any(word.startswith("-") for word in unknown):
            sub = args.subparsers.get(args.command, parser)
            sub.error(f"unrecognized arguments: {' '.join(unknown)}")
        else:
            pairs.extend(unknown)
    handler: Callable[[argparse.Namespace], int] | None = getattr(args, "handler", None)
    if handler is None:
        parser.print_help(sys.stderr)
        return 2
    backends = getattr(args, "backend", None)
    for name in [backends] if isinstance(backends, str) else backends or ():
        if not available(name):
            _error(f"--backend {name} needs {name}: pip install {name}")
            return 2
    args.command_line = shlex.join(["mcp-core", *args_list])
    args.arguments = args_list
    _take_ctrl_c()
    try:
        return handler(args)
    except KeyboardInterrupt:
        return 130
    except LifespanError as exc:
        print(f"mcp-core: {_lifespan_failure(exc)}", file=sys.stderr)
        return 1
    except BaseExceptionGroup as group:
        # Trio delivers Ctrl-C inside the task groups that were running, wrapped.
        _, rest = group.split(KeyboardInterrupt)
        if rest is None:
            return 130
        failed, _ = group.split(LifespanError)
        if failed is not None:
            from .connect import first_failure

            lifespan = first_failure(failed)
            assert isinstance(lifespan, LifespanError)
            print(f"mcp-core: {_lifespan_failure(lifespan)}", file=sys.stderr)
            return 1
        raise


def _lifespan_failure(exc: LifespanError) -> str:
    """The LifespanError's message, its cause said plainly: ``Error: message`` of the
    first failure in it, not the repr of the exception group the cause often is."""
    from .connect import first_failure

    text = str(exc)
    cause = exc.__cause__
    if cause is None or repr(cause) not in text:
        return text
    leaf = first_failure(cause)
    return text.replace(repr(cause), f"{type(leaf).__name__}: {leaf}")


if __name__ == "__main__":
    raise SystemExit(main())
