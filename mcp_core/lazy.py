"""A package's names, imported on first use (PEP 562).

A process started for one session, a stdio server above all, pays for every
module it imports. So `mcp_core`, `mcp_core.http` and `transports` name what they
offer in a table, module by module, and import a module when one of its names is
first asked for: ``import mcp_core.server`` does not load the HTTP rules, and a
stdio server does not load the HTTP client.
"""

from __future__ import annotations

from collections.abc import Mapping, MutableMapping, Sequence
from importlib import import_module

__all__ = ["export"]


def export(
    package: str,
    name: str,
    where: Mapping[str, Sequence[str]],
    namespace: MutableMapping[str, object],
) -> object:
    """``package``'s ``name``, imported from the module of ``where`` that lists it
    and kept in ``namespace`` (the package's globals), so that the next lookup
    finds it there.

    Raises:
        AttributeError: no module of ``where`` lists ``name``.
    """
    for module, names in where.items():
        if name in names:
            value = getattr(import_module(module, package), name)
            namespace[name] = value
            return value
    raise AttributeError(f"module {package!r} has no attribute {name!r}")
