"""The conformance fixtures server: examples/everything.py on HTTP, port 3001, with
the tasks fixtures of tests/servers/task_fixtures.py and the skills of
tests/servers/skills/ (the Skills extension, SEP-2640, with directoryRead).

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

from mcp_core.skills import Skills
from transports.skills import SkillDirectory

# The tasks-* scenarios of conformance 0.2.0-alpha.12 need their own tools.
add_task_fixtures(everything.server)
# The sep-2640-* scenarios of conformance 0.2.0-alpha.12: the Skills extension.
SKILLS = Path(__file__).resolve().parent / "skills"
everything.server.extend(Skills(SkillDirectory(SKILLS), directory_read=True))

if __name__ == "__main__":
    everything.main(["--transport", "http", "--port", "3001", *sys.argv[1:]])
