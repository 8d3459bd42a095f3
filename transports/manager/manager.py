"""The client manager: many MCP servers at once, their tools under one namespace.

    async with Manager(parse_servers(open("servers.json").read())) as manager:
        await manager.wait_ready()
        for tool in await manager.tools():
            print(tool.name)                       # weather.forecast, hello.HelloTool...
        result = await manager.call_tool("weather.forecast", {"city": "Paris"})

Each server is a `transports.manager.link.Link`: a task that connects it and
reconnects it with backoff, alone, so a server that is slow, broken or gone never
holds up the others. Listings are fetched from every connected server at once and
cached in a `mcp_core.manager.Catalog`. A request to a server that is not connected
fails at once (`ServerUnavailable`); one in flight when its connection breaks fails
with `CallInterrupted` and is not sent again.

Callbacks are routed per server: each is called with the server's name first
(``sampling(server, params)``, ``roots(server)``, ``on_log(server, params)``,
``on_notification(server, method, params)``...).
"""

from __future__ import annotations

import functools
import random as _random
import time
import weakref
from collections.abc import Callable, Coroutine, Iterable, Mapping
from types import TracebackType
from typing import Any

import anyio
from anyio.abc import TaskGroup

from mcp_core.client.skills import offers_skills
from mcp_core.manager import (
    DEFAULT_BACKOFF,
    Backoff,
    Catalog,
    Collision,
    Entry,
    Kind,
    ServerConfig,
    TraceEntry,
)
from mcp_core.manager.skills import prefixed_contents, prefixed_entry, unprefixed
from mcp_core.types import (
    CallToolResult,
    ClientCapabilities,
    GetPromptResult,
    ReadResourceResult,
)
from mcp_core.types.skills import SkillEntry

from ..client import Client, Connector
from ..driver import ProgressCallback
from .errors import CallInterrupted, ServerUnavailable, UnknownName, sent
from .link import Link, ServerStatus, describe
from .listing import fetch

__all__ = ["Manager"]

RUNNING: weakref.WeakSet[Manager] = weakref.WeakSet()
"""The managers running in this process (telemetry counts their links by state)."""

_REMOVE_GRACE = 5.0
"""Seconds a removed server's connection may take to close before it is cut."""


class Manager:
    """Connections to many servers, and their tools, resources and prompts as one.

    Use it with ``async with``: servers given or added before are connected on
    entry, servers added inside at once; leaving closes every connection.

    Args:
        servers: the servers to start with.
        sampling: ``fn(server, params)`` answers a server's sampling request.
        elicitation: ``fn(server, params)`` answers a form-mode elicitation.
        elicitation_url: ``fn(server, params)`` answers a URL-mode elicitation
            (declares ``elicitation.url``).
        on_elicitation_complete: ``fn(server, elicitation_id)`` when a server
            says a URL-mode elicitation it asked for is done.
        sampling_tools: ``sampling`` handles tools (declares ``sampling.tools``).
        roots: ``fn(server)`` lists the roots a server may see.
        on_log: ``fn(server, params)`` gets each log message.
        on_notification: ``fn(server, method, params)`` gets every other
            notification (list changes included, after the catalog saw them).
        on_status: ``fn(status)`` after every change of a connection's state.
        on_list_changed: ``fn(server, kind)`` when a server's list of ``kind``
            ("tools", "resources", "prompts") changed, or (kind None) it
            connected or went away, taking its lists in or out of the union.
        trace: keep a message trace of every server (each server's config can
            turn it on for that server alone).
        trace_capacity: entries each server's trace keeps.
        on_trace: ``fn(entry)`` gets every trace entry as it is recorded.
        backoff: the reconnection schedule (each server's
            ``max_reconnect_attempts`` sets its limit).
        random: the jitter's random source.
        safe_names: tool and prompt names of ``[a-zA-Z0-9_-]``, 64 at most.
        separator: between a server's name and a tool's (not in safe mode).
        list_timeout: seconds one server's listing may take before the union is
            given without it.
        skills: declare the skills extension (SEP-2640) to every server, whose
            skills `skills` then lists under the server's name.
        client_options: anything else `Client` takes (``name``, ``revisions``...).
    """

    def __init__(
        self,
        servers: Iterable[ServerConfig] = (),
        *,
        sampling: Callable[[str, Any], Any] | None = None,
        elicitation: Callable[[str, Any], Any] | None = None,
        elicitation_url: Callable[[str, Any], Any] | None = None,
        on_elicitation_complete: Callable[[str, str], Any] | None = None,
        sampling_tools: bool = False,
        roots: Callable[[str], Any] | None = None,
        on_log: Callable[[str, Any], Any] | None = None,
        on_notification: Callable[[str, str, Any], Any] | None = None,
        on_status: Callable[[ServerStatus], Any] | None = None,
        on_list_changed: Callable[[str, Kind | None], Any] | None = None,
        trace: bool = False,
        trace_capacity: int = 1000,
        on_trace: Callable[[TraceEntry], Any] | None = None,
        backoff: Backoff = DEFAULT_BACKOFF,
        random: Callable[[], float] = _random.random,
        safe_names: bool = False,
        separator: str = ".",
        list_timeout: float = 30.0,
        skills: bool = False,
        client_options: Mapping[str, Any] | None = None,
    ) -> None:
        self.catalog = Catalog(safe_names=safe_names, separator=separator)
        self._callbacks = {
            "sampling": sampling,
            "elicitation": elicitation,
            "elicitation_url": elicitation_url,
            "on_elicitation_complete": on_elicitation_complete,
            "roots": roots,
            "on_log": on_log,
        }
        self._sampling_tools = sampling_tools
        self._skills = skills
        self._on_notification = on_notification
        self._on_status = on_status
        #: ``fn(server, kind)`` after a list change or a reconnect (see the Args).
        self.on_list_changed = on_list_changed
        self._trace = trace
        self._trace_capacity = trace_capacity
        self._on_trace = on_trace
        self._backoff = backoff
        self._random = random
        self._list_timeout = list_timeout
        self._client_options = dict(client_options or {})
        self._extensions: dict[str, dict[str, Any]] = {}
        self._links: dict[str, Link] = {}
        self._options: dict[str, dict[str, Any]] = {}  # each Link's client options
        self._up: set[str] = set()  # the servers connected, as last seen
        self._scopes: dict[str, anyio.CancelScope] = {}
        self._tg: TaskGroup | None = None
        self._changed = anyio.Event()
        for config in servers:
            self.add(config)

    # --- lifetime -------------------------------------------------------------------------

    async def __aenter__(self) -> Manager:
        if self._tg is not None:
            raise RuntimeError("a Manager is entered once")
        self._tg = await anyio.create_task_group().__aenter__()
        RUNNING.add(self)
        for link in self._links.values():
            self._start(link)
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        assert self._tg is not None
        for link in self._links.values():
            link.remove()
        with anyio.move_on_after(_REMOVE_GRACE, shield=True):
            for link in self._links.values():
                await link.done.wait()
        RUNNING.discard(self)
        self._tg.cancel_scope.cancel()
        await self._tg.__aexit__(None, None, None)

    def links(self) -> list[Link]:
        """The servers' links (read only: telemetry counts them by state)."""
        return list(self._links.values())

    def start_soon(self, fn: Callable[..., Coroutine[Any, Any, Any]], *args: Any) -> None:
        """Run ``fn(*args)`` in a task of the manager's, cancelled when the manager
        closes (the gateway's calls that outlive the request that made them).

        Raises:
            RuntimeError: the manager is not running.
        """
        if self._tg is None:
            raise RuntimeError("the manager is not running")
        self._tg.start_soon(fn, *args)

    def _start(self, link: Link) -> None:
        assert self._tg is not None
        scope = self._scopes[link.name] = anyio.CancelScope()

        async def run() -> None:
            with scope:
                await link.run()

        self._tg.start_soon(run)

    # --- servers ----------------------------------------------------------------------------

    def add(self, config: ServerConfig, *, connector: Connector | None = None) -> str:
        """Add a server; it connects at once if the manager is running.

        Args:
            config: the server.
            connector: how to reach it instead of the config's url or command
                (whose ``command`` is then not run): a server in this process,
                ``transports.memory.pipe(server)``.

        Returns:
            Its id (its name, unique in the manager).

        Raises:
            ValueError: a server of that name is already here.
        """
        if config.name in self._links:
            raise ValueError(f"there is already a server called {config.name!r}")
        name = config.name
        options = self._options[name] = dict(self._client_options)
        self._bind(name)
        options["on_notification"] = functools.partial(self._notified, name)
        link = Link(
            config,
            backoff=self._backoff,
            random=self._random,
            client_options=options,
            changed=self._status_changed,
            connected=self._reconnected,
            trace=self._trace,
            trace_capacity=self._trace_capacity,
            on_trace=self._on_trace,
            connector=connector,
        )
        self._links[name] = link
        self.catalog.add_server(name)
        if self._tg is not None:
            self._start(link)
        return name

    def _bind(self, name: str) -> None:
        options = self._options[name]  # the Link's: read at each connection
        options["extensions"] = {**options.get("extensions", {}), **self._extensions}
        for key, callback in self._callbacks.items():
            if callback is None:
                options.pop(key, None)
            else:
                options[key] = functools.partial(callback, name)
        options["sampling_tools"] = self._sampling_tools and self._callbacks["sampling"] is not None
        options["skills"] = self._skills

    def set_callbacks(
        self,
        *,
        sampling_tools: bool | None = None,
        skills: bool | None = None,
        **callbacks: Callable[..., Any] | None,
    ) -> None:
        """Replace callbacks (``sampling``, ``elicitation``, ``elicitation_url``,
        ``on_elicitation_complete``, ``roots``, ``on_log``: see the Args), and
        ``sampling_tools`` and ``skills`` if given. The capabilities a server is told follow
        the callbacks: a server connected already sees the change at its next
        connection.

        Raises:
            TypeError: an unknown callback name.
        """
        unknown = set(callbacks) - set(self._callbacks)
        if unknown:
            raise TypeError(f"no callback called {', '.join(sorted(unknown))}")
        self._callbacks.update(callbacks)
        if sampling_tools is not None:
            self._sampling_tools = sampling_tools
        if skills is not None:
            self._skills = skills
        for name in self._links:
            self._bind(name)

    def declare_extensions(self, extensions: Mapping[str, Mapping[str, Any]]) -> None:
        """Declare ``extensions`` (identifier -> settings, SEP-2133) to every
        server too: a handshake-era one at its next ``initialize``, a 2026-07-28
        one in the requests that declare no capabilities of their own."""
        self._extensions.update({name: dict(settings) for name, settings in extensions.items()})
        for name in self._links:
            self._bind(name)

    async def remove(self, server: str) -> None:
        """Close a server's connection and forget it (and its tools)."""
        link = self._link(server)
        del self._links[server]
        del self._options[server]
        link.remove()
        with anyio.move_on_after(_REMOVE_GRACE, shield=True):
            await link.done.wait()
        scope = self._scopes.pop(server, None)
        if scope is not None:
            scope.cancel()
        self.catalog.forget(server)
        self._wake_waiters()

    def reconnect(self, server: str) -> None:
        """Connect a server again now (also after it was given up on), retries reset."""
        self._link(server).reconnect()

    @property
    def servers(self) -> list[str]:
        """The servers' names, in the order they were added."""
        return list(self._links)

    def _link(self, server: str) -> Link:
        link = self._links.get(server)
        if link is None:
            known = ", ".join(self._links) or "none"
            raise UnknownName(f"no server called {server!r} (servers: {known})", server)
        return link

    def client(self, server: str) -> Client:
        """The connected `Client` of a server, for anything else it can do.

        Raises:
            ServerUnavailable: it is not connected.
        """
        return self._link(server).usable()

    # --- status -------------------------------------------------------------------------

    def status(self) -> list[ServerStatus]:
        """Every server's connection, in order."""
        return [link.status() for link in self._links.values()]

    def status_of(self, server: str) -> ServerStatus:
        """One server's connection."""
        return self._link(server).status()

    def _status_changed(self, link: Link) -> None:
        # A server going away takes its tools out of the union: a list change too.
        if link.state == "connected":
            self._up.add(link.name)
        elif link.name in self._up:
            self._up.discard(link.name)
            if self.on_list_changed is not None:
                self.on_list_changed(link.name, None)
        self._wake_waiters()
        if self._on_status is not None:
            self._on_status(link.status())

    def _wake_waiters(self) -> None:
        self._changed.set()
        self._changed = anyio.Event()

    async def wait_until(self, check: Callable[[], bool], timeout: float | None = None) -> None:
        """Wait until ``check()`` holds; it is asked after every change of state.

        Raises:
            TimeoutError: not within ``timeout`` seconds.
        """
        with anyio.fail_after(timeout):
            while not check():
                await self._changed.wait()

    async def wait_ready(self, timeout: float | None = None) -> None:
        """Wait until every server has made its first attempt (connected or not)."""
        with anyio.fail_after(timeout):
            for link in list(self._links.values()):
                await link.settled.wait()

    async def wait_for(self, server: str, state: str, timeout: float | None = None) -> None:
        """Wait until a server's connection is in ``state``."""
        link = self._link(server)
        await self.wait_until(lambda: link.state == state, timeout)

    # --- trace --------------------------------------------------------------------------

    def set_trace(self, on: bool, server: str | None = None) -> None:
        """Switch the message trace on or off, for one server or for all."""
        if server is None:
            self._trace = on
        for link in self._links.values() if server is None else [self._link(server)]:
            link.set_tracing(on)

    def trace(self, server: str | None = None) -> list[TraceEntry]:
        """The trace entries kept (of one server, or all, by time)."""
        if server is not None:
            return self._link(server).trace.entries()
        entries = [entry for link in self._links.values() for entry in link.trace.entries()]
        return sorted(entries, key=lambda entry: entry.time)

    # --- notifications --------------------------------------------------------------------

    def roots_changed(self) -> list[str]:
        """Tell every connected server whose revision has it that the roots changed
        (``notifications/roots/list_changed``, up to 2025-11-25; a 2026-07-28 server
        asks for roots within each request, so it is told nothing). The gateway
        calls this when one of its clients says its roots changed.

        Returns:
            The servers told.
        """
        told = []
        for name, link in self._links.items():
            client = link.client
            if client is not None and client.roots_changed():
                told.append(name)
        return told

    def _notified(self, server: str, method: str, params: Any) -> Any:
        kind = self.catalog.notified(server, method)
        if kind is not None and self.on_list_changed is not None:
            self.on_list_changed(server, kind)
        if self._on_notification is not None:
            return self._on_notification(server, method, params)
        return None

    def _reconnected(self, link: Link) -> None:
        self.catalog.invalidate(link.name)
        if self.on_list_changed is not None:
            self.on_list_changed(link.name, None)

    # --- listings -------------------------------------------------------------------------

    def _connected(self, server: str | None) -> list[Link]:
        links = self._links.values() if server is None else [self._link(server)]
        return [link for link in links if link.state == "connected" and link.client is not None]

    async def refresh(self, kind: Kind, server: str | None = None) -> None:
        """Fetch the stale listings of ``kind`` of every connected server (or one),
        all at once; a server that fails or takes too long is left out."""
        now = time.monotonic()
        stale = [
            link for link in self._connected(server) if not self.catalog.fresh(link.name, kind, now)
        ]
        if not stale:
            return
        async with anyio.create_task_group() as tg:
            for link in stale:
                tg.start_soon(self._fetch, link, kind)

    async def _fetch(self, link: Link, kind: Kind) -> None:
        client = link.client
        if client is None:
            return
        try:
            with anyio.fail_after(self._list_timeout):
                items, ttl = await fetch(client, kind)
        except Exception as exc:
            if not link.failed_request(exc, client) and link.client is client:
                link.last_error = f"listing {kind} failed: {describe(exc)}"
            return
        if link.client is client:  # not lost meanwhile
            self.catalog.store(link.name, kind, items, time.monotonic(), ttl)

    async def _union(self, kind: Kind, server: str | None) -> list[Entry]:
        await self.refresh(kind, server)
        names = [link.name for link in self._connected(server)]
        if kind == "tools":
            return self.catalog.tools(names)
        if kind == "prompts":
            return self.catalog.prompts(names)
        return self.catalog.resources(names)

    async def tool_entries(self, server: str | None = None) -> list[Entry]:
        """The tools of every connected server (or one), with their servers."""
        return await self._union("tools", server)

    async def tools(self, server: str | None = None) -> list[Any]:
        """Every tool of every connected server (or one), named ``server.tool``."""
        return [entry.item for entry in await self._union("tools", server)]

    async def prompt_entries(self, server: str | None = None) -> list[Entry]:
        """The prompts of every connected server (or one), with their servers."""
        return await self._union("prompts", server)

    async def prompts(self, server: str | None = None) -> list[Any]:
        """Every prompt of every connected server (or one), named ``server.prompt``."""
        return [entry.item for entry in await self._union("prompts", server)]

    async def resource_entries(self, server: str | None = None) -> list[Entry]:
        """The resources and templates of every connected server, with their servers."""
        return await self._union("resources", server)

    async def resources(self, server: str | None = None) -> list[Any]:
        """Every resource and resource template of every connected server (or one)."""
        return [entry.item for entry in await self._union("resources", server)]

    async def skills(self, server: str | None = None) -> list[SkillEntry]:
        """The skills of every connected server that offers them (or one), each
        under its server's name (`mcp_core.manager.skills`); reads no file. A
        server that fails or takes too long is left out."""
        found: list[SkillEntry] = []
        for link in self._connected(server):
            client = link.client
            if client is None or not offers_skills(client.server_capabilities):
                continue
            try:
                with anyio.fail_after(self._list_timeout):
                    entries = await client.skills.list()
            except Exception as exc:
                if not link.failed_request(exc, client):
                    link.last_error = f"listing skills failed: {describe(exc)}"
                continue
            found.extend(prefixed_entry(link.name, entry) for entry in entries)
        return found

    def _skill_server(self, uri: str) -> tuple[str, str]:
        split = unprefixed(uri)
        if split is None or split[0] not in self._links:
            raise UnknownName(f"no server's skill is called {uri!r}")
        return split

    async def get_skill(self, uri: str) -> SkillEntry:
        """The entry of the skill at union URI ``uri`` (``skills/get`` of its server).

        Raises:
            UnknownName: ``uri`` names no server of this manager.
            McpError: the server does not know the skill (-32602).
        """
        server, own = self._skill_server(uri)
        entry: SkillEntry = await self._request(
            server, f"getting skill {own!r}", lambda client: client.skills.get(own)
        )
        return prefixed_entry(server, entry)

    async def read_skill_file(self, uri: str) -> ReadResourceResult:
        """Read the file at union URI ``uri`` from its server (the bytes as they
        come: the reader verifies them against the entry).

        Raises:
            UnknownName: ``uri`` names no server of this manager.
        """
        server, own = self._skill_server(uri)
        result: ReadResourceResult = await self._request(
            server, f"reading {own!r}", lambda client: client.read_resource(own)
        )
        return prefixed_contents(server, result)

    def collisions(self, kind: Kind = "tools") -> list[Collision]:
        """The union names of ``kind`` that collided, and what each entry got."""
        return self.catalog.collisions(kind)

    # --- requests -------------------------------------------------------------------------

    async def _resolve(self, kind: Kind, name: str, server: str | None) -> tuple[str, str]:
        if server is not None:
            self._link(server)
            return server, name
        found = self.catalog.resolve(kind, name)
        if found is None:
            await self.refresh(kind)
            found = self.catalog.resolve(kind, name)
        if found is None:
            # Not listed because its server is not connected: "server<separator>name",
            # the longest server name that fits, so the call fails naming the server.
            separator = "_" if self.catalog.safe_names else self.catalog.separator
            listed = {link.name for link in self._connected(None)}
            for each in sorted(self._links, key=len, reverse=True):
                prefix = each + separator
                if name.startswith(prefix) and len(name) > len(prefix) and each not in listed:
                    return each, name[len(prefix) :]
            what = "tool" if kind == "tools" else "prompt"
            raise UnknownName(f"no {what} called {name!r} on any connected server")
        return found

    async def _request(self, server: str, what: str, send: Callable[[Client], Any]) -> Any:
        link = self._link(server)
        client = link.usable(what)
        try:
            return await send(client)
        except Exception as exc:
            self._interrupted(link, client, exc, what)
            raise

    def _interrupted(self, link: Link, client: Client, exc: Exception, what: str) -> None:
        """A request on ``client`` failed with ``exc``: if its connection broke,
        say so, and whether the request went out."""
        if link.failed_request(exc, client):
            if not sent(exc):
                raise ServerUnavailable(
                    f"server {link.name!r} could not be reached ({describe(exc)}): "
                    f"{what} was not sent",
                    link.name,
                ) from exc
            raise CallInterrupted(
                f"the connection to server {link.name!r} broke while {what} was in flight "
                f"({describe(exc)}); it was not repeated, and may or may not have run",
                link.name,
            ) from exc

    async def call_tool(
        self,
        name: str,
        arguments: Mapping[str, Any] | None = None,
        *,
        server: str | None = None,
        timeout: float | None = None,
        on_progress: ProgressCallback | None = None,
        capabilities: ClientCapabilities | None = None,
    ) -> CallToolResult:
        """Call a tool by its union name (``weather.forecast``), or by its own
        name and ``server``. ``capabilities``: what the call declares to a
        2026-07-28 server instead of the manager's (`Client.declaring`).

        Raises:
            UnknownName: no such server or tool.
            ServerUnavailable: its server is not connected (nothing was sent).
            CallInterrupted: the connection broke during the call (not repeated).
            McpError: the server refused the call.
        """
        # The hot path, kept flat (benchmarks/manager.py): a listed name resolves
        # without a coroutine, and the client's call is awaited here directly.
        found = self.catalog.resolve("tools", name) if server is None else None
        if found is None:
            found = await self._resolve("tools", name, server)
        link = self._link(found[0])
        client = link.usable(f"the call of tool {found[1]!r}")
        try:
            if self.catalog.task_support(*found) == "required":
                # Its server refuses it as a plain call (2025-11-25 tasks.mdx):
                # called as a task, followed to its end.
                handle = await client.call_tool(
                    found[1], arguments, timeout=timeout, task=True, capabilities=capabilities
                )
                return await handle.result()
            return await client.call_tool(
                found[1],
                arguments,
                timeout=timeout,
                on_progress=on_progress,
                capabilities=capabilities,
            )
        except Exception as exc:
            self._interrupted(link, client, exc, f"the call of tool {found[1]!r}")
            raise

    async def get_prompt(
        self,
        name: str,
        arguments: Mapping[str, str] | None = None,
        *,
        server: str | None = None,
        timeout: float | None = None,
        capabilities: ClientCapabilities | None = None,
    ) -> GetPromptResult:
        """Get a prompt by its union name, or by its own name and ``server``
        (``capabilities``: as for `call_tool`)."""
        server, prompt = await self._resolve("prompts", name, server)
        result: GetPromptResult = await self._request(
            server,
            f"getting prompt {prompt!r}",
            lambda client: client.get_prompt(
                prompt, arguments, timeout=timeout, capabilities=capabilities
            ),
        )
        return result

    async def read_resource(
        self, uri: str, *, server: str | None = None, timeout: float | None = None
    ) -> ReadResourceResult:
        """Read a resource; without ``server``, from the one server that lists it.

        Raises:
            UnknownName: no connected server lists it, or several do (name one).
        """
        if server is None:
            owners = self.catalog.owners_of(uri)
            if not owners:
                await self.refresh("resources")
                owners = self.catalog.owners_of(uri)
            if len(owners) != 1:
                which = "no connected server lists" if not owners else "several servers list"
                raise UnknownName(f"{which} the resource {uri!r}; name its server")
            server = owners[0]
        result: ReadResourceResult = await self._request(
            server, f"reading {uri!r}", lambda client: client.read_resource(uri, timeout=timeout)
        )
        return result
