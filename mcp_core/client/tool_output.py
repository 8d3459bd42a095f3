"""Checking a tool's result against the ``outputSchema`` it was listed with.

2025-11-25 server/tools.mdx "Output Schema": a tool with an output schema "MUST
provide structured results that conform to this schema", and "Clients SHOULD
validate structured results against this schema". The official SDK's client
fails the call when they do not; so does ours: a result whose
``structuredContent`` is missing or does not match is a `ToolOutputError` the
caller sees.

The schemas come from the ``tools/list`` pages the client already fetched: a
client never lists tools just to check a call (2026-07-28 clients must not
prefetch). A tool never listed is not checked, and an ``isError`` result is not
checked (its content is the error).
"""

from __future__ import annotations

from typing import Any

from msgspec import UNSET

from ..types import CallToolResult, ListToolsResult
from .json_schema import schema_errors

__all__ = ["OutputSchemas", "ToolOutputError"]


class ToolOutputError(Exception):
    """A tool's result does not match its ``outputSchema``.

    Attributes:
        tool: the tool's name.
        errors: what is wrong, one message per problem.
        result: the result as the server sent it.
    """

    def __init__(self, tool: str, errors: list[str], result: CallToolResult) -> None:
        super().__init__(f"tool {tool!r} returned invalid structured content: {'; '.join(errors)}")
        self.tool = tool
        self.errors = errors
        self.result = result


class OutputSchemas:
    """The output schemas of the tools listed so far, by tool name."""

    def __init__(self) -> None:
        self._schemas: dict[str, dict[str, Any]] = {}

    def learn(self, page: ListToolsResult) -> None:
        """Remember the output schemas of a ``tools/list`` page (a tool listed
        again without one forgets its old one)."""
        for tool in page.tools:
            if tool.output_schema is UNSET:
                self._schemas.pop(tool.name, None)
            else:
                self._schemas[tool.name] = tool.output_schema

    def check(self, tool: str, result: CallToolResult) -> CallToolResult:
        """Return ``result`` if it fits ``tool``'s output schema.

        Raises:
            ToolOutputError: the tool has an output schema and the result (not an
                error result) has no ``structuredContent``, or one that does not
                match it.
        """
        schema = self._schemas.get(tool)
        if schema is None or result.is_error is True:
            return result
        if result.structured_content is UNSET:
            raise ToolOutputError(
                tool, ["the tool has an outputSchema but no structuredContent came"], result
            )
        errors = schema_errors(schema, result.structured_content)
        if errors:
            raise ToolOutputError(tool, errors, result)
        return result
