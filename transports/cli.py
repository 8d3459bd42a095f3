"""The ``mcp-core`` command line.

Every subcommand is one entry in COMMANDS: a name, a help line, a function that
adds its arguments, and a handler that returns the exit status. Handlers import
what they need when they run, so ``mcp-core --version`` loads nothing heavy.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from mcp_core import __version__

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
        "--quick", action="store_true", help="5 short runs per figure instead of 15 longer ones"
    )
    parser.add_argument(
        "--only",
        action="append",
        choices=list(LAYERS),
        metavar="LAYER",
        help=f"run only this layer (repeatable). Layers: {layer_help}",
    )
    parser.add_argument(
        "--json", type=Path, metavar="FILE", help="also write every figure, as JSON, to FILE"
    )
    # For tests: tiny, fixed workloads whose figures mean nothing.
    parser.add_argument("--runs", type=_positive_int, help=argparse.SUPPRESS)
    parser.add_argument("--iterations", type=_positive_int, help=argparse.SUPPRESS)


def _run_bench(args: argparse.Namespace) -> int:
    from benchmarks.runner import run_bench

    return run_bench(
        only=args.only or (),
        quick=args.quick,
        json_path=args.json,
        runs=args.runs,
        iterations=args.iterations,
        command=args.command_line,
    )


COMMANDS: list[Command] = [
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
    for command in COMMANDS:
        sub = subparsers.add_parser(command.name, help=command.help, description=command.help)
        command.configure(sub)
        sub.set_defaults(handler=command.handler)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    args = parser.parse_args(args_list)
    handler: Callable[[argparse.Namespace], int] | None = getattr(args, "handler", None)
    if handler is None:
        parser.print_help(sys.stderr)
        return 2
    args.command_line = shlex.join(["mcp-core", *args_list])
    return handler(args)


if __name__ == "__main__":
    raise SystemExit(main())
