"""``python -m benchmarks.shared [OPTIONS]``: an alias of ``mcp-core bench --only
workers [OPTIONS]`` (the many-process layer, `benchmarks.workers`), with the
options of ``mcp-core bench`` (``--quick``, ``--json FILE``, ``--plot FILE.png``)."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    from transports.cli import main as cli

    options = sys.argv[1:] if argv is None else argv
    return cli(["bench", "--only", "workers", *options])


if __name__ == "__main__":
    sys.exit(main())
