# Which scopes an MCP operation needs, and whether a token grants them.
#
# 2026-07-28 basic/authorization/index.mdx "Scope Challenge Handling": the scopes
# an operation needs may depend on the request ("determined dynamically based on
# the specific request arguments"); once determined, all of them go in one
# challenge. "Servers MUST account for scope hierarchies, where a broader scope
# implies narrower ones": `implies` names them, and a grant is closed under it
# before the comparison.
#
# The operation is the JSON-RPC method and, for `tools/call`, the tool's name:
# known from the 2026-07-28 `Mcp-Method` / `Mcp-Name` headers before the body is
# read, else from the body.

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

__all__ = ["ScopePolicy"]

_TOOLS_CALL = "tools/call"


@dataclass(frozen=True, slots=True)
class ScopePolicy:
    """The scopes each operation needs.

    Attributes:
        required: needed by every request.
        methods: more scopes per JSON-RPC method (``"tools/call"``,
            ``"resources/read"``...).
        tools: more scopes per tool, for ``tools/call`` of that tool.
        implies: a scope -> the narrower scopes it grants too (``"files"`` ->
            ``("files:read", "files:write")``); followed transitively.
    """

    required: tuple[str, ...] = ()
    methods: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    tools: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    implies: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    def needed(self, method: str | None = None, name: str | None = None) -> tuple[str, ...]:
        """Every scope an operation needs, in a stable order, each once.

        Args:
            method: its JSON-RPC method, or None when not known yet.
            name: the tool it calls (``tools/call``), or None.
        """
        found = list(self.required)
        if method is not None:
            found += self.methods.get(method, ())
            if method == _TOOLS_CALL and name is not None:
                found += self.tools.get(name, ())
        return tuple(dict.fromkeys(found))

    def grant(self, scopes: Iterable[str]) -> frozenset[str]:
        """The scopes a token holds, with every scope they imply."""
        held = set(scopes)
        todo = list(held)
        while todo:
            for narrower in self.implies.get(todo.pop(), ()):
                if narrower not in held:
                    held.add(narrower)
                    todo.append(narrower)
        return frozenset(held)

    def allows(self, needed: Iterable[str], scopes: Iterable[str]) -> bool:
        """Whether a token holding ``scopes`` may do what needs ``needed``."""
        held = self.grant(scopes)
        return all(scope in held for scope in needed)
