"""The conformance fixtures server: examples/everything.py on HTTP, port 3001, with
the tasks fixtures of tests/servers/task_fixtures.py.

examples/everything.py exposes exactly the fixtures of the official suite's server
scenarios (see scripts/README.md); this wrapper keeps the
command CI runs working:

    python tests/servers/conformance_server.py --port N [--host H] [--backend trio]

serves ``http://127.0.0.1:N/mcp`` until interrupted.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "examples"))

import everything
from task_fixtures import add_task_fixtures

# The tasks-* scenarios of conformance 0.2.0-alpha.12 need their own tools.
add_task_fixtures(everything.server)

if __name__ == "__main__":
    everything.main(["--transport", "http", "--port", "3001", *sys.argv[1:]])
