"""Skills (SEP-2640, ``io.modelcontextprotocol/skills``), server side, sans I/O.

`Skills` is the extension a server offers (``Server(..., extensions=[Skills()])``);
skills come from code (`Skills.add`) or from sources such as a directory read by
the runtime (``transports.skills.SkillDirectory``). `Catalog` and `Skill` are the
data (catalog.py); frontmatter.py reads SKILL.md's YAML frontmatter. The SEP text
followed is tests/spec/extensions/sep-2640-skills-extension.md.
"""

from ..types.skills import DIRECTORY_MIME_TYPE, SKILLS_EXTENSION
from .catalog import (
    MAX_FILES,
    MAX_TOTAL_BYTES,
    SCHEME,
    SKILL_FILE,
    Catalog,
    Skill,
    SkillError,
    SkillFile,
    check_name,
    check_relative,
    digest_of,
    make_skill,
    mime_type_of,
    over_limits,
    skill_frontmatter,
)
from .frontmatter import FrontmatterError, FrontmatterParser, parse_yaml, split_frontmatter
from .serving import MemorySkills, Skills, SkillSource, SkillUnavailable

__all__ = [
    "DIRECTORY_MIME_TYPE",
    "MAX_FILES",
    "MAX_TOTAL_BYTES",
    "SCHEME",
    "SKILLS_EXTENSION",
    "SKILL_FILE",
    "Catalog",
    "FrontmatterError",
    "FrontmatterParser",
    "MemorySkills",
    "Skill",
    "SkillError",
    "SkillFile",
    "SkillSource",
    "SkillUnavailable",
    "Skills",
    "check_name",
    "check_relative",
    "digest_of",
    "make_skill",
    "mime_type_of",
    "over_limits",
    "parse_yaml",
    "skill_frontmatter",
    "split_frontmatter",
]
