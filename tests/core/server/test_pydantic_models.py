"""pydantic models as tool and prompt arguments and as tool results.

pydantic is not a dependency of mcp-core (the official SDK brings it into the test
environment); the core recognises a model by its methods and never imports it.
"""

from __future__ import annotations

from typing import Any

import pydantic
import pytest
from server_app_helpers import dispatch, wire

from mcp_core import McpError, Server
from mcp_core.types.server import CallToolResult
from mcp_core.wire import INVALID_PARAMS

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class Address(pydantic.BaseModel):
    street: str
    city: str


class Person(pydantic.BaseModel):
    """Someone to greet."""

    name: str = pydantic.Field(min_length=1)
    age: int = pydantic.Field(ge=0)
    address: Address | None = None


class Greeting(pydantic.BaseModel):
    text: str
    people: int


def make_server() -> Server:
    server = Server("models", "1")

    @server.tool
    def greet(person: Person, friends: list[Person] | None = None) -> Greeting:
        """Greet a person and their friends."""
        names = [person.name, *(f.name for f in friends or [])]
        return Greeting(text="Hello " + " and ".join(names), people=len(names))

    @server.tool
    def maybe(person: Person | None = None) -> list[Address]:
        return [] if person is None or person.address is None else [person.address]

    @server.tool
    def untyped(person: Person):  # type: ignore[no-untyped-def]
        return {"name": person.name, "age": person.age}

    @server.prompt
    def about(person: Person) -> str:
        return f"Tell me about {person.name}"

    return server


async def tools() -> dict[str, Any]:
    listed = wire(await dispatch(make_server(), "tools/list"))
    return {tool["name"]: tool for tool in listed["tools"]}


async def call(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    result = await dispatch(make_server(), "tools/call", {"name": name, "arguments": arguments})
    assert isinstance(result, CallToolResult)
    return wire(result)  # type: ignore[no-any-return]


async def test_the_input_schema_is_the_models() -> None:
    schema = (await tools())["greet"]["inputSchema"]
    assert schema["properties"]["person"] == {"$ref": "#/$defs/Person"}
    assert (
        schema["properties"]["friends"]["anyOf"][0]
        == {
            "type": "array",
            "items": {"$ref": "#/$defs/Person"},
        }
        or schema["properties"]["friends"]["anyOf"][0]["$ref"] == "#/$defs/Person"
    )
    assert schema["required"] == ["person"]
    person = schema["$defs"]["Person"]
    assert person["properties"]["name"]["minLength"] == 1
    assert person["properties"]["age"]["minimum"] == 0
    assert "Address" in schema["$defs"]


async def test_the_output_schema_is_the_models() -> None:
    listed = await tools()
    output = listed["greet"]["outputSchema"]
    assert output["type"] == "object"
    assert set(output["properties"]) == {"text", "people"}
    wrapped = listed["maybe"]["outputSchema"]
    assert wrapped["properties"]["result"]["items"] == {"$ref": "#/$defs/Address"}
    assert "outputSchema" not in listed["untyped"]


async def test_arguments_arrive_as_model_instances_and_results_leave_as_json() -> None:
    person = {
        "name": "Ada",
        "age": 36,
        "address": {"street": "St James's Square", "city": "London"},
    }
    result = await call("greet", {"person": person, "friends": [{"name": "Charles", "age": 41}]})
    assert result["structuredContent"] == {"text": "Hello Ada and Charles", "people": 2}
    assert "isError" not in result
    listed = await call("maybe", {"person": person})
    assert listed["structuredContent"] == {"result": [person["address"]]}
    assert (await call("maybe", {}))["structuredContent"] == {"result": []}


@pytest.mark.parametrize(
    ("arguments", "where"),
    [
        ({"person": {"name": "", "age": 3}}, "name"),
        ({"person": {"name": "Ada", "age": -1}}, "age"),
        ({"person": {"name": "Ada"}}, "age"),
        ({"person": "Ada"}, "person"),
        ({"person": {"name": "Ada", "age": 3}, "friends": [{"age": 3}]}, "name"),
    ],
)
async def test_the_model_refuses_bad_arguments_as_a_tool_error(
    arguments: dict[str, Any], where: str
) -> None:
    result = await call("greet", arguments)
    assert result["isError"] is True
    text = result["content"][0]["text"]
    assert text.startswith("Invalid arguments for tool 'greet'")
    assert where in text


async def test_an_object_from_an_untyped_tool_is_structured_content() -> None:
    result = await call("untyped", {"person": {"name": "Ada", "age": 36}})
    assert result["structuredContent"] == {"name": "Ada", "age": 36}
    assert result["content"][0]["text"] == '{"name":"Ada","age":36}'


async def test_a_prompt_takes_a_model_as_its_json() -> None:
    # Prompt arguments are strings (server/prompts.mdx): a model's is its JSON.
    person = '{"name": "Ada", "age": 36}'
    result = wire(
        await dispatch(
            make_server(), "prompts/get", {"name": "about", "arguments": {"person": person}}
        )
    )
    assert result["messages"][0]["content"]["text"] == "Tell me about Ada"
    with pytest.raises(McpError) as caught:
        await dispatch(
            make_server(), "prompts/get", {"name": "about", "arguments": {"person": '{"x": 1}'}}
        )
    assert caught.value.code == INVALID_PARAMS


def test_a_model_used_where_it_cannot_be_is_refused_at_registration() -> None:
    server = Server("models", "1")

    def nested(people: dict[str, Person]) -> str:
        return ""

    with pytest.raises(TypeError, match="pydantic model"):
        server.tool(nested)


def test_a_model_without_a_json_schema_is_refused_at_registration() -> None:
    class Opaque:
        pass

    class Holder(pydantic.BaseModel):
        model_config = pydantic.ConfigDict(arbitrary_types_allowed=True)
        thing: Opaque

    server = Server("models", "1")

    def takes(holder: Holder) -> str:
        return ""

    with pytest.raises(TypeError, match="Holder"):
        server.tool(takes)

    def gives() -> Holder:
        raise AssertionError

    with pytest.raises(TypeError, match="Holder"):
        server.tool(gives)
