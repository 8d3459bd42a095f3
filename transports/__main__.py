"""``python -m transports``: the ``mcp-core`` command line."""

from transports.cli import main

raise SystemExit(main())
