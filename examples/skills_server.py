"""Skills: serve a directory of Agent Skills, and one skill written in code (SEP-2640).

Every folder under the directory that holds a ``SKILL.md`` is a skill, served as
``skill://<its path>/...`` resources with the ``io.modelcontextprotocol/skills``
extension: ``skills/list`` and ``skills/get`` give each skill's frontmatter and
the sha256 digest and size of each of its files, ``resources/read`` reads them,
and ``resources/directory/read`` lists a folder (``directory_read=True``).

Run it:

    python examples/skills_server.py [DIRECTORY]         # stdio
    mcp-core serve examples/skills_server.py --http 127.0.0.1:8000

DIRECTORY defaults to $SKILLS_DIR, else tests/servers/skills of this repository.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from mcp_core import Server
from mcp_core.skills import Skills
from transports import run_stdio
from transports.skills import SkillDirectory

HERE = Path(__file__).resolve().parent
DIRECTORY = Path(os.environ.get("SKILLS_DIR", HERE.parent / "tests" / "servers" / "skills"))

skills = Skills(SkillDirectory(DIRECTORY), directory_read=True)
skills.add(
    "git-workflow",
    {
        "SKILL.md": (
            "---\n"
            "name: git-workflow\n"
            "description: Follow this team's Git conventions for branching and commits\n"
            "---\n\n"
            "Branch from main as `topic/<name>`; see references/commits.md.\n"
        ),
        "references/commits.md": "One change per commit; imperative subject, 72 columns.\n",
    },
)
server = Server("skills", "1.0.0", extensions=[skills])

if __name__ == "__main__":
    if len(sys.argv) > 1:
        server = Server("skills", "1.0.0")
        mine = Skills(SkillDirectory(sys.argv[1]), directory_read=True)
        server.extend(mine)
    run_stdio(server)
