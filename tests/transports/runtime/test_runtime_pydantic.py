"""A tool on pydantic models, called by our client over the in-memory pipe (bytes
mode: what a wire carries), in both eras, on asyncio and trio."""

from __future__ import annotations

import pydantic
import pytest
from runtime_helpers import BOTH_ERAS, connected

from mcp_core import Server

pytestmark = pytest.mark.anyio


class Order(pydantic.BaseModel):
    item: str
    quantity: int = pydantic.Field(gt=0)


class Receipt(pydantic.BaseModel):
    total: float
    lines: list[Order]


def make_server() -> Server:
    server = Server("shop", "1")

    @server.tool
    async def checkout(orders: list[Order]) -> Receipt:
        """Price a basket."""
        return Receipt(total=sum(2.5 * o.quantity for o in orders), lines=orders)

    return server


@BOTH_ERAS
async def test_models_in_and_out_over_the_wire(anyio_backend: str, era: str) -> None:
    async with connected(make_server(), era) as client:
        tools = await client.list_tools()
        (tool,) = tools.tools
        assert tool.input_schema["properties"]["orders"]["items"] == {"$ref": "#/$defs/Order"}
        assert tool.output_schema is not None and tool.output_schema["required"]
        result = await client.call_tool("checkout", {"orders": [{"item": "tea", "quantity": 2}]})
        assert not result.is_error
        assert result.structured_content == {
            "total": 5.0,
            "lines": [{"item": "tea", "quantity": 2}],
        }
        refused = await client.call_tool("checkout", {"orders": [{"item": "tea", "quantity": 0}]})
        assert refused.is_error
        assert "greater than 0" in refused.content[0].text  # type: ignore[union-attr]
