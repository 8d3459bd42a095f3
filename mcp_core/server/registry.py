# The registry of a server application: tools, resources and templates, prompts,
# the completion handler and the advanced handlers, and what they make us offer.
#
# Registration reads each function once (_schema.inspect_function) and builds the
# MCP definition (Tool, Resource, ResourceTemplate, Prompt) that the list methods
# return, in registration order. Changes made after the server started serving are
# recorded as pending list-changed notifications (see Server).

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Final, Literal, TypeVar, overload

import msgspec
from msgspec import UNSET

from ..http.headers import header_param_paths
from ..types.base import (
    Icon,
    ListChangedCapability,
    ResourcesCapability,
    ServerCapabilities,
    TasksCapability,
)
from ..types.content import Annotations, Resource
from ..types.server import (
    Prompt,
    PromptArgument,
    ResourceTemplate,
    ResourceUpdatedNotificationParams,
    Tool,
    ToolAnnotations,
)
from ..types.tasks import ToolExecution
from .context import Context
from .signatures import FunctionInfo, inspect_function
from .signatures import output_schema as _output_schema
from .tool_pages import ToolPages
from .uri_template import UriTemplate, is_template

if TYPE_CHECKING:
    from ..extensions import Extension

__all__ = ["Registry", "ResourceEntry", "AdvancedHandler", "opt"]

F = TypeVar("F", bound=Callable[..., Any])

#: An advanced handler: (params Struct, Context) -> result Struct, maybe async.
AdvancedHandler = Callable[[Any, Context], Any]

_NO_HEADER_PATHS: Final[Mapping[str, tuple[str, ...]]] = {}

_LIST_CHANGED: Final = {
    "tools": "notifications/tools/list_changed",
    "resources": "notifications/resources/list_changed",
    "prompts": "notifications/prompts/list_changed",
}
_FEATURE_METHODS: Final = {
    "tools": ("tools/list", "tools/call"),
    "resources": ("resources/list", "resources/templates/list", "resources/read"),
    "prompts": ("prompts/list", "prompts/get"),
}
_DECLARABLE: Final = frozenset({"tools", "resources", "prompts", "completions", "tasks"})


class _ToolEntry:
    __slots__ = ("ask_first", "info", "structured", "task", "tool", "wrap")

    def __init__(
        self,
        tool: Tool,
        info: FunctionInfo,
        structured: bool,
        wrap: bool,
        task: str | None = None,
        ask_first: bool = False,
    ) -> None:
        self.tool, self.info, self.structured, self.wrap = tool, info, structured, wrap
        #: "optional", "required", or None: whether a call may or must be a task.
        self.task = task
        #: Questions before `Context.detach` are asked in the request (2026-07-28).
        self.ask_first = ask_first


class ResourceEntry:
    __slots__ = ("definition", "info", "matcher", "mime_type")

    def __init__(
        self,
        definition: Resource | ResourceTemplate,
        info: FunctionInfo,
        mime_type: str | None,
        matcher: UriTemplate | None = None,
    ) -> None:
        self.definition, self.info, self.mime_type, self.matcher = (
            definition,
            info,
            mime_type,
            matcher,
        )


class _PromptEntry:
    __slots__ = ("info", "prompt")

    def __init__(self, prompt: Prompt, info: FunctionInfo) -> None:
        self.prompt, self.info = prompt, info


def opt(value: Any) -> Any:
    """None as UNSET, for optional Struct fields."""
    return UNSET if value is None else value


class Registry:
    """What a server offers. `Server` adds the answering; use that.

    Args:
        subscribe: offer ``resources.subscribe``.
    """

    def __init__(self, *, subscribe: bool = False, threaded: bool = True) -> None:
        self.subscribe = subscribe
        #: The extensions offered, by identifier (see `Server.extend`).
        self._extensions: dict[str, Extension] = {}
        #: Those that serve resources of their own schemes (Skills: skill://).
        self._resource_extensions: tuple[Extension, ...] = ()
        #: Whether plain functions run in worker threads unless registered with
        #: ``threaded=`` (see `add_tool`).
        self.threaded = threaded
        self._tools: dict[str, _ToolEntry] = {}
        self._resources: dict[str, ResourceEntry] = {}
        self._templates: dict[str, ResourceEntry] = {}
        self._prompts: dict[str, _PromptEntry] = {}
        self._completion: FunctionInfo | None = None
        self._handlers: dict[str, AdvancedHandler] = {}
        self._declared: set[str] = set()
        self._changes: dict[str, None] = {}
        self._updates: dict[str, None] = {}
        # By registration (a key of its own each): removing one is O(1) however
        # many connections watch, and a modern HTTP request watches briefly.
        self._watchers: dict[object, Callable[[str, Any], None]] = {}
        self._started = False
        # Tool name -> its x-mcp-header parameters, made when first asked for.
        self._header_paths: dict[str, dict[str, tuple[str, ...]]] | None = None
        # tools/list pages while the tools stay the same (tool_pages.py).
        self._tool_pages = ToolPages()
        self._capabilities: dict[tuple[bool | bytes | None, ...], ServerCapabilities] = {}
        # Bumped by every change that capabilities() reads (but `subscribe`, a
        # public attribute, which it reads each time): its last answer stands
        # while this and `subscribe` stay the same.
        self._generation = 0
        self._last_capabilities: tuple[int, bool, ServerCapabilities] | None = None

    def _threaded(self, threaded: bool | None) -> bool | None:
        # None lets inspect_function decide by the function (plain: a thread).
        return threaded if threaded is not None or self.threaded else False

    # --- tools -------------------------------------------------------------------------

    @overload
    def tool(self, fn: F, /) -> F: ...

    @overload
    def tool(
        self,
        fn: None = None,
        /,
        *,
        name: str | None = None,
        title: str | None = None,
        description: str | None = None,
        annotations: ToolAnnotations | None = None,
        output_schema: dict[str, Any] | None = None,
        structured: bool | None = None,
        icons: list[Icon] | None = None,
        meta: dict[str, Any] | None = None,
        threaded: bool | None = None,
        task: bool | Literal["optional", "required"] = False,
        ask_first: bool = False,
    ) -> Callable[[F], F]: ...

    def tool(self, fn: F | None = None, /, **options: Any) -> F | Callable[[F], F]:
        """Register a function as a tool: ``@server.tool`` or ``@server.tool(...)``.

        The options are those of `add_tool`. Returns the function unchanged.
        """

        def register(function: F) -> F:
            self.add_tool(function, **options)
            return function

        return register if fn is None else register(fn)

    def add_tool(
        self,
        fn: Callable[..., Any],
        *,
        name: str | None = None,
        title: str | None = None,
        description: str | None = None,
        annotations: ToolAnnotations | None = None,
        output_schema: dict[str, Any] | None = None,
        structured: bool | None = None,
        icons: list[Icon] | None = None,
        meta: dict[str, Any] | None = None,
        threaded: bool | None = None,
        task: bool | Literal["optional", "required"] = False,
        ask_first: bool = False,
    ) -> Tool:
        """Register a tool.

        Args:
            fn: the function; its parameters are the tool's arguments.
            name: the tool name; default the function's name.
            title: a display name.
            description: default the docstring's description part.
            annotations: behaviour hints.
            output_schema: an explicit output schema; the return value is then used
                as ``structuredContent`` as is.
            structured: None (default) decides from the return annotation (see
                ``_schema.output_schema``); True requires structured output; False
                never produces it.
            icons, meta: as in the Tool definition.
            threaded: run the function in a worker thread (see `FunctionInfo`);
                by default plain functions do and ``async def`` ones do not.
                False for a plain function known never to block (no I/O, no
                sleep, no lock, well under a millisecond): it then runs inline
                on the event loop and costs what an ``async def`` does, but
                while it runs no other request of the process is served.
            task: True (or "optional"): a call may run as a task, in the
                background, when the client can take one (2026-07-28: it
                declares the tasks extension; 2025-11-25: it sends
                ``params.task``); "required": only as a task. The function is
                the same; see mcp_core/tasks.
            ask_first: with ``task``, a 2026-07-28 call runs in the request
                until the function awaits `Context.detach`, asking its
                questions by multi round-trip, and becomes a task there.

        Returns:
            The Tool definition, as listed.

        Raises:
            ValueError: the name is taken, or ``structured=False`` with an
                ``output_schema``.
            TypeError: the signature or return type cannot be described.
        """
        info = inspect_function(fn, threaded=self._threaded(threaded))
        tool_name = name or info.name
        info.kind, info.label = "tool", tool_name
        if tool_name in self._tools:
            raise ValueError(f"a tool named {tool_name!r} is already registered")
        schema: dict[str, Any] | None
        wrap = False
        if output_schema is not None:
            if structured is False:
                raise ValueError("output_schema given with structured=False")
            schema = output_schema
        elif structured is False:
            schema = None
        else:
            found = _output_schema(info.return_annotation, force=structured is True)
            schema, wrap = found if found is not None else (None, False)
        support = "optional" if task is True else (task or None)
        if support not in (None, "optional", "required"):
            raise ValueError(f"task must be True, False, 'optional' or 'required', not {task!r}")
        tool = Tool(
            name=tool_name,
            input_schema=info.input_schema,
            # 2025-11-25 server/tools.mdx: execution.taskSupport.
            execution=ToolExecution(task_support=support) if support else UNSET,
            output_schema=opt(schema),
            title=opt(title),
            description=opt(description or info.description),
            annotations=opt(annotations),
            icons=opt(icons),
            meta=opt(meta),
        )
        self._tools[tool_name] = _ToolEntry(
            tool, info, schema is not None, wrap, support, ask_first and support is not None
        )
        self._changed("tools")
        return tool

    def remove_tool(self, name: str) -> None:
        """Unregister a tool. Raises KeyError if there is none by that name."""
        del self._tools[name]
        self._changed("tools")

    @property
    def tools(self) -> list[Tool]:
        """The registered tools, in registration order."""
        return [entry.tool for entry in self._tools.values()]

    def tool_header_paths(self, name: str) -> Mapping[str, tuple[str, ...]]:
        """The ``x-mcp-header`` parameters of tool ``name``: lower-case header name
        (without ``Mcp-Param-``) -> path in its arguments (2026-07-28
        basic/transports/streamable-http.mdx, "Custom Headers from Tool
        Parameters"); empty for a tool we do not list. What an HTTP endpoint
        checks ``Mcp-Param-*`` headers against.
        """
        paths = self._header_paths
        if paths is None:
            paths = self._header_paths = {
                entry.tool.name: header_param_paths(entry.tool.input_schema)
                for entry in self._tools.values()
            }
        return paths.get(name, _NO_HEADER_PATHS)

    # --- resources ---------------------------------------------------------------------

    def resource(
        self,
        uri: str,
        *,
        name: str | None = None,
        title: str | None = None,
        description: str | None = None,
        mime_type: str | None = None,
        annotations: Annotations | None = None,
        icons: list[Icon] | None = None,
        meta: dict[str, Any] | None = None,
        threaded: bool | None = None,
    ) -> Callable[[F], F]:
        """Register a function as a resource, or as a resource template when ``uri``
        has RFC 6570 expressions (``"users://{id}/profile"``). See `add_resource`."""

        def register(function: F) -> F:
            self.add_resource(
                function,
                uri,
                name=name,
                title=title,
                description=description,
                mime_type=mime_type,
                annotations=annotations,
                icons=icons,
                meta=meta,
                threaded=threaded,
            )
            return function

        return register

    def add_resource(
        self,
        fn: Callable[..., Any],
        uri: str,
        *,
        name: str | None = None,
        title: str | None = None,
        description: str | None = None,
        mime_type: str | None = None,
        annotations: Annotations | None = None,
        icons: list[Icon] | None = None,
        meta: dict[str, Any] | None = None,
        threaded: bool | None = None,
    ) -> Resource | ResourceTemplate:
        """Register a resource or resource template.

        A template's variables are passed to ``fn`` by name, converted to the
        parameter types from their string form (``{id}`` to ``id: int``); a URI
        whose variables do not convert does not match. A plain resource's function
        takes no arguments (besides an optional Context).

        The return value becomes the contents (see ``_server_results.read_result``):
        str is text, bytes a blob, other values JSON. Raise ResourceNotFoundError
        when the URI names nothing.

        ``threaded`` is as in `add_tool`.

        Raises:
            ValueError: the URI is taken, or the template is malformed.
            TypeError: the parameters do not match the template variables.
        """
        info = inspect_function(fn, threaded=self._threaded(threaded))
        common: dict[str, Any] = {
            "name": name or info.name,
            "title": opt(title),
            "description": opt(description or info.description),
            "mime_type": opt(mime_type),
            "annotations": opt(annotations),
            "icons": opt(icons),
            "meta": opt(meta),
        }
        if uri in self._resources or uri in self._templates:
            raise ValueError(f"a resource {uri!r} is already registered")
        params = {p.name for p in info.parameters}
        if is_template(uri):
            matcher = UriTemplate(uri)
            variables = set(matcher.variables)
            if variables - params or set(info.required) - variables:
                raise TypeError(
                    f"{info.name!r}: parameters {sorted(params)} do not match the "
                    f"variables {sorted(variables)} of {uri!r}"
                )
            template = ResourceTemplate(uri_template=uri, **common)
            self._templates[uri] = ResourceEntry(template, info, mime_type, matcher)
            self._changed("resources")
            return template
        if info.required:
            raise TypeError(f"{info.name!r}: a resource without URI variables takes no arguments")
        resource = Resource(uri=uri, **common)
        self._resources[uri] = ResourceEntry(resource, info, mime_type)
        self._changed("resources")
        return resource

    def remove_resource(self, uri: str) -> None:
        """Unregister a resource or template by its URI or template text.

        Raises KeyError if there is none.
        """
        if self._resources.pop(uri, None) is None:
            del self._templates[uri]
        self._changed("resources")

    @property
    def resources(self) -> list[Resource]:
        """The registered resources, in registration order."""
        return [e.definition for e in self._resources.values()]  # type: ignore[misc]

    @property
    def resource_templates(self) -> list[ResourceTemplate]:
        """The registered resource templates, in registration order."""
        return [e.definition for e in self._templates.values()]  # type: ignore[misc]

    def resource_updated(self, uri: str) -> None:
        """Report that a resource changed.

        Watchers (`watch`) hear it at once; it is also recorded for
        ``take_resource_updates``.
        """
        self._updates[uri] = None
        if self._watchers:
            params = ResourceUpdatedNotificationParams(uri=uri)
            for watcher in list(self._watchers.values()):
                watcher("notifications/resources/updated", params)

    def take_resource_updates(self) -> list[str]:
        """URIs changed since the last call, for ``notifications/resources/updated``."""
        updates = list(self._updates)
        self._updates.clear()
        return updates

    # --- prompts -----------------------------------------------------------------------

    @overload
    def prompt(self, fn: F, /) -> F: ...

    @overload
    def prompt(
        self,
        fn: None = None,
        /,
        *,
        name: str | None = None,
        title: str | None = None,
        description: str | None = None,
        icons: list[Icon] | None = None,
        meta: dict[str, Any] | None = None,
        threaded: bool | None = None,
        task: bool | Literal["optional", "required"] = False,
        ask_first: bool = False,
    ) -> Callable[[F], F]: ...

    def prompt(self, fn: F | None = None, /, **options: Any) -> F | Callable[[F], F]:
        """Register a function as a prompt: ``@server.prompt`` or ``@server.prompt(...)``.

        The options are those of `add_prompt`.
        """

        def register(function: F) -> F:
            self.add_prompt(function, **options)
            return function

        return register if fn is None else register(fn)

    def add_prompt(
        self,
        fn: Callable[..., Any],
        *,
        name: str | None = None,
        title: str | None = None,
        description: str | None = None,
        icons: list[Icon] | None = None,
        meta: dict[str, Any] | None = None,
        threaded: bool | None = None,
    ) -> Prompt:
        """Register a prompt. Its parameters are the prompt's arguments.

        Arguments arrive as strings and are converted to the parameter types. The
        function returns a str, a PromptMessage, a content block, a list of those,
        or a GetPromptResult (see ``_server_results.prompt_result``).

        ``threaded`` is as in `add_tool`.

        Raises:
            ValueError: the name is taken.
            TypeError: the signature cannot be described.
        """
        info = inspect_function(fn, threaded=self._threaded(threaded))
        prompt_name = name or info.name
        info.kind, info.label = "prompt", prompt_name
        if prompt_name in self._prompts:
            raise ValueError(f"a prompt named {prompt_name!r} is already registered")
        arguments = [
            PromptArgument(
                name=p.name,
                description=opt(info.descriptions.get(p.name)),
                required=p.name in info.required,
            )
            for p in info.parameters
        ]
        prompt = Prompt(
            name=prompt_name,
            title=opt(title),
            description=opt(description or info.description),
            arguments=arguments or UNSET,
            icons=opt(icons),
            meta=opt(meta),
        )
        self._prompts[prompt_name] = _PromptEntry(prompt, info)
        self._changed("prompts")
        return prompt

    def remove_prompt(self, name: str) -> None:
        """Unregister a prompt. Raises KeyError if there is none by that name."""
        del self._prompts[name]
        self._changed("prompts")

    @property
    def prompts(self) -> list[Prompt]:
        """The registered prompts, in registration order."""
        return [entry.prompt for entry in self._prompts.values()]

    # --- completion --------------------------------------------------------------------

    def completion(self, fn: F) -> F:
        """Register the ``completion/complete`` handler (decorator).

        It is called as ``fn(ref, argument, context)``: the PromptReference or
        ResourceTemplateReference, the CompletionArgument (``name``, ``value``)
        and a dict of already-resolved arguments; plus the Context if a parameter
        asks for it. It returns a list of str (cut to 100), a Completion, a
        CompleteResult, or None.
        """
        info = inspect_function(fn, threaded=self._threaded(None))
        if len(info.parameters) < 3:
            raise TypeError("a completion handler takes (ref, argument, context)")
        self._completion = info
        self._generation += 1
        return fn

    # --- advanced handlers -------------------------------------------------------------

    def _on(self, method: str, fn: F) -> F:
        self._handlers[method] = fn
        self._generation += 1
        return fn

    def on_list_tools(self, fn: F) -> F:
        """Answer ``tools/list`` with ``fn(params, ctx) -> ListToolsResult``."""
        return self._on("tools/list", fn)

    def on_call_tool(self, fn: F) -> F:
        """Answer ``tools/call`` with ``fn(params, ctx) -> CallToolResult``."""
        return self._on("tools/call", fn)

    def on_list_resources(self, fn: F) -> F:
        """Answer ``resources/list`` with ``fn(params, ctx) -> ListResourcesResult``."""
        return self._on("resources/list", fn)

    def on_list_resource_templates(self, fn: F) -> F:
        """Answer ``resources/templates/list`` with ``fn(params, ctx)``."""
        return self._on("resources/templates/list", fn)

    def on_read_resource(self, fn: F) -> F:
        """Answer ``resources/read`` with ``fn(params, ctx) -> ReadResourceResult``."""
        return self._on("resources/read", fn)

    def on_list_prompts(self, fn: F) -> F:
        """Answer ``prompts/list`` with ``fn(params, ctx) -> ListPromptsResult``."""
        return self._on("prompts/list", fn)

    def on_get_prompt(self, fn: F) -> F:
        """Answer ``prompts/get`` with ``fn(params, ctx) -> GetPromptResult``."""
        return self._on("prompts/get", fn)

    # --- what we offer -----------------------------------------------------------------

    def declare(self, *features: str) -> None:
        """Offer features before anything is registered for them.

        Capabilities are fixed when a session starts; declare a feature whose
        tools, resources or prompts will only be added later.

        Args:
            features: any of "tools", "resources", "prompts", "completions",
                "tasks" (an advanced ``tools/call`` handler some of whose tools
                run as tasks: see `Server.task_support`).
        """
        unknown = set(features) - _DECLARABLE
        if unknown:
            raise ValueError(f"unknown features {sorted(unknown)}")
        self._declared.update(features)
        self._generation += 1

    def offers_tasks(self) -> bool:
        """Whether some tool may run as a task (registered with ``task=``, or
        "tasks" declared)."""
        return "tasks" in self._declared or any(entry.task for entry in self._tools.values())

    def _offers(self, feature: str) -> bool:
        if feature == "tools":
            registry: Any = self._tools
        elif feature == "prompts":
            registry = self._prompts
        else:
            registry = self._resources or self._templates
        if registry or feature in self._declared:
            return True
        handlers = self._handlers
        return bool(handlers) and any(m in handlers for m in _FEATURE_METHODS[feature])

    def capabilities(self) -> ServerCapabilities:
        """What this server offers, from what is registered.

        ``logging`` always (see below), ``listChanged`` on every list feature (the
        registry can change at run time), ``resources.subscribe`` when enabled,
        ``completions`` with a handler.
        """
        subscribe = bool(self.subscribe)
        last = self._last_capabilities
        # Asked once per 2026-07-28 HTTP request (each has a session of its own).
        if last is not None and last[0] == self._generation and last[1] == subscribe:
            return last[2]
        capabilities = self._capabilities_now(subscribe)
        self._last_capabilities = (self._generation, subscribe, capabilities)
        return capabilities

    def _capabilities_now(self, subscribe: bool) -> ServerCapabilities:
        tools = self._offers("tools")
        prompts = self._offers("prompts")
        resources = self._offers("resources") or subscribe
        completions = self._completion is not None or "completions" in self._declared
        tasks = self.offers_tasks()
        extensions = self._extension_settings()
        # The same answer for the same registry: every session of an HTTP server
        # asks (once per 2026-07-28 request), and the answer is a few Structs.
        key = (
            tools,
            prompts,
            resources,
            subscribe,
            completions,
            tasks,
            None if extensions is UNSET else msgspec.json.encode(extensions),
        )
        known = self._capabilities.get(key)
        if known is not None:
            return known
        listed = ListChangedCapability(list_changed=True)
        capabilities = ServerCapabilities(
            # Always, even with nothing registered. 2025-11-25 (and 2026-07-28)
            # server/utilities/logging.mdx: servers that emit log message
            # notifications MUST declare the logging capability. Any handler may
            # log through its Context, handlers can be added after a session has
            # fixed its capabilities, and whether a handler logs is not knowable
            # from its signature (the Context also carries progress and
            # sampling), so declaring it always is the only way never to emit
            # undeclared. It is also always honoured: the core answers
            # logging/setLevel (legacy) and reads the per-request logLevel
            # (2026-07-28) for every server.
            logging={},
            tools=listed if tools else UNSET,
            prompts=listed if prompts else UNSET,
            resources=(
                ResourcesCapability(subscribe=True if subscribe else UNSET, list_changed=True)
                if resources
                else UNSET
            ),
            completions={} if completions else UNSET,
            # A task-capable tool: 2025-11-25 basic/utilities/tasks.mdx "Server
            # Capabilities" (tasks/list, tasks/cancel, task-augmented tools/call);
            # 2026-07-28 the extension instead (tasks extension "Capability
            # Negotiation"). server/discover leaves out the 2025-11-25 slot.
            tasks=(
                TasksCapability(list_={}, cancel={}, requests={"tools": {"call": {}}})
                if tasks
                else UNSET
            ),
            extensions=extensions,
        )
        self._capabilities[key] = capabilities
        return capabilities

    def _extension_settings(self) -> Any:
        # capabilities.extensions (SEP-2133 "Negotiation"): each extension's
        # settings object under its identifier, None leaving it out.
        declared = {}
        for name, extension in self._extensions.items():
            settings = extension.settings()
            if settings is not None:
                declared[name] = settings
        return declared or UNSET

    def _changed(self, feature: str) -> None:
        self._generation += 1
        if feature == "tools":
            self._header_paths = None
            self._tool_pages.clear()
        if self._started:
            method = _LIST_CHANGED[feature]
            self._changes[method] = None
            for watcher in list(self._watchers.values()):
                watcher(method, UNSET)

    def watch(self, watcher: Callable[[str, Any], None]) -> Callable[[], None]:
        """Call ``watcher(method, params)`` for every change notification to publish.

        A runtime serving this application on several connections watches once
        (or once per connection) and hands each call to ``ServerSession.publish``
        of every connection, which sends it where the client asked for it.
        Called synchronously, from whatever changed the registry.

        Returns:
            A function that stops the watching.
        """
        key = object()
        self._watchers[key] = watcher

        def unwatch() -> None:
            self._watchers.pop(key, None)

        return unwatch

    def relay(self, method: str, params: Any = UNSET) -> None:
        """Hand a change notification another replica made to every watcher here
        (the runtime got it from the replicas' bus); nothing is recorded."""
        for watcher in list(self._watchers.values()):
            watcher(method, params)

    def relay_missed(self) -> None:
        """The replicas' bus was out of reach for a while: changes made on other
        replicas meanwhile may never come. Every watcher here gets one
        list-changed notification per list (tools, resources, prompts), so that
        clients list again (2025-11-25 server/tools.mdx "List Changed
        Notification"; sessions send only what they declared); nothing is
        recorded."""
        for method in _LIST_CHANGED.values():
            self.relay(method)

    def take_list_changes(self) -> list[str]:
        """Pending list-changed notification methods, oldest first; clears them.

        The runtime publishes each with ``ServerSession.publish(method)``.
        """
        changes = list(self._changes)
        self._changes.clear()
        return changes
