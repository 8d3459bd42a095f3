"""A server of skills (SEP-2640) for the command line's tests: the skills of
tests/servers/skills/, and one more ``refunds`` registered in code, so that the name
``refunds`` belongs to two skills.

    mcp-core skills tests/servers/skills_server.py [NAME]
"""

from pathlib import Path

from mcp_core import Server
from mcp_core.skills import Skills
from transports.skills import SkillDirectory

skills = Skills(SkillDirectory(Path(__file__).resolve().parent / "skills"))
skills.add(
    "support/refunds",
    {"SKILL.md": "---\nname: refunds\ndescription: Answer refund questions\n---\n\nBe kind.\n"},
)
server = Server("skills", "1.0", extensions=[skills])
