"""Which servers a client manager talks to, and how: `ServerConfig`.

A server is reached by a ``url`` (streamable HTTP, or the HTTP+SSE transport of
2024-11-05) or by a ``command`` with ``args``, ``env`` and ``cwd`` (stdio). Its
``transport`` is ``auto`` (a URL: streamable HTTP, falling back to HTTP+SSE; a
command: stdio) or pinned: ``streamable-http``, ``sse``, ``stdio``.

Authorization per server is ``auth``, a tagged union on ``type``: `NoAuth` (the
default), `TokenAuth` (a token sent as ``Authorization: Bearer <token>``, or in a
header of your choice) or `OAuthAuth` (``{"type": "oauth", ...}``: the OAuth 2.1
flow, its credentials kept in a directory so the user authorizes once per server);
any other header goes in ``headers``.

`parse_servers` reads the ``mcpServers`` JSON desktop clients use (what
``mcp-core config`` prints)::

    {"mcpServers": {
        "hello": {"command": "/usr/bin/python3", "args": ["-m", "transports", "serve", "hello.py"],
                  "env": {"PYTHONPATH": "/src"}},
        "remote": {"url": "https://example.com/mcp", "headers": {"X-Team": "a"},
                   "auth": {"type": "token", "token": "..."}},
        "files": {"url": "https://files.example.com/mcp",
                  "auth": {"type": "oauth", "scopes": ["files:read"], "mode": "headless"}}}}

``servers`` is accepted for ``mcpServers``, and so is ``type`` (``stdio``, ``http``,
``streamable-http``, ``sse``) for ``transport``, as other clients write them
(``http`` is accepted as a ``transport`` too). An entry
with ``"disabled": true`` is skipped. Our own keys are ``transport``, ``auth``,
``autoReconnect``, ``maxReconnectAttempts``, ``connectTimeout``, ``requestTimeout``,
``pingInterval`` and ``trace`` (snake_case works too). A key we do not know is not
refused, since each desktop client adds its own, but `read_servers` returns a
warning naming it (``transprt`` would otherwise silently mean ``auto``), with the
key it probably meant; the adapter shows the warnings.
"""

from __future__ import annotations

from typing import Any, Final, Literal, NamedTuple

import msgspec

__all__ = [
    "TRANSPORTS",
    "Auth",
    "ConfigError",
    "NoAuth",
    "OAuthAuth",
    "ServerConfig",
    "ServersRead",
    "TokenAuth",
    "Transport",
    "parse_servers",
    "read_servers",
    "server_config",
    "unknown_keys",
]

Transport = Literal["auto", "streamable-http", "sse", "stdio"]
TRANSPORTS: Final[tuple[str, ...]] = ("auto", "streamable-http", "sse", "stdio")

_TYPE_ALIASES: Final = {
    "stdio": "stdio",
    "http": "streamable-http",
    "streamable-http": "streamable-http",
    "streamableHttp": "streamable-http",
    "sse": "sse",
}


class ConfigError(ValueError):
    """A server configuration that cannot be used; the message names the server."""


class NoAuth(msgspec.Struct, frozen=True, tag_field="type", tag="none"):
    """No authorization (beyond whatever ``headers`` carry)."""


class TokenAuth(msgspec.Struct, frozen=True, kw_only=True, tag_field="type", tag="token"):
    """A token sent with every HTTP request.

    Attributes:
        token: the token.
        header: the header it goes in.
        scheme: what comes before it in the header ("" for the bare token).
    """

    token: str
    header: str = "Authorization"
    scheme: str = "Bearer"

    def __repr__(self) -> str:  # never show the token
        return f"TokenAuth(token=<redacted>, header={self.header!r})"


OAuthMode = Literal["auto", "browser", "headless"]


class OAuthAuth(
    msgspec.Struct, frozen=True, kw_only=True, tag_field="type", tag="oauth", rename="camel"
):
    """The OAuth 2.1 flow (discovery from the server's challenge, registration
    when no client id is given, the code flow with PKCE, refresh).

    Attributes:
        client_id: a pre-registered client id (None: registered, or a metadata URL).
        client_secret: its secret, for a confidential client.
        client_metadata_url: an https URL of this client's metadata document.
        client_name: the name registered.
        scopes: scopes to ask for when the server's challenge names none.
        redirect_port: the port of the loopback redirect URI
            ``http://127.0.0.1:PORT/callback`` (None: one derived from the
            server's URL, stable for it).
        mode: how the user is sent to the authorization server: "browser" (the
            system browser, the redirect caught on the loopback port), "headless"
            (the URL printed on stderr, the redirected URL read from stdin) or
            "auto" (the browser where one can be opened). Headless mode reads the
            process's stdin, so not in a ``gateway`` over stdio, whose stdin carries
            MCP: authorize first (``mcp-core call --config``); the token is stored.
        store: the directory credentials are kept in (None: the command line's,
            ``$MCP_CORE_OAUTH_DIR`` or ``~/.cache/mcp-core/oauth``).
    """

    client_id: str | None = None
    client_secret: str | None = None
    client_metadata_url: str | None = None
    client_name: str = "mcp-core"
    scopes: list[str] | None = None
    redirect_port: int | None = None
    mode: OAuthMode = "auto"
    store: str | None = None

    def __post_init__(self) -> None:
        if self.redirect_port is not None and not 0 < self.redirect_port < 65536:
            raise ConfigError(f"redirectPort must be a port (1 to 65535), not {self.redirect_port}")

    def __repr__(self) -> str:  # never show the secret
        secret = "<redacted>" if self.client_secret is not None else None
        return (
            f"OAuthAuth(client_id={self.client_id!r}, client_secret={secret}, mode={self.mode!r})"
        )


Auth = NoAuth | TokenAuth | OAuthAuth
"""How a server is authorized."""


class ServerConfig(msgspec.Struct, frozen=True, kw_only=True, rename="camel"):
    """One server of a client manager.

    Attributes:
        name: what the manager calls it; the prefix of its tools' names.
        url: its MCP endpoint (http or https), for HTTP.
        command: the program that starts it, for stdio.
        args: the program's arguments.
        env: environment variables for the program.
        cwd: the program's working directory.
        transport: "auto", "streamable-http", "sse" or "stdio".
        headers: extra HTTP headers for every request.
        auth: `NoAuth`, `TokenAuth` or `OAuthAuth`.
        auto_reconnect: reconnect, with backoff, when the connection is lost.
        max_reconnect_attempts: retries before giving up (a manual reconnect
            starts again).
        connect_timeout: seconds the connection and handshake may take.
        request_timeout: seconds a request may take (None: no limit).
        ping_interval: seconds between pings of a handshake-era server, to find a
            dead or hung connection that nothing else shows (an idle HTTP
            server's); None: no pings. 2025-11-25 basic/utilities/ping.mdx
            "Implementation Considerations": implementations SHOULD ping
            periodically, at a configurable frequency, and treat a timeout as a
            connection failure. (2026-07-28 has no ping.)
        trace: keep a message trace of this server from the start.
    """

    name: str
    url: str | None = None
    command: str | None = None
    args: list[str] = msgspec.field(default_factory=list)
    env: dict[str, str] = msgspec.field(default_factory=dict)
    cwd: str | None = None
    transport: Transport = "auto"
    headers: dict[str, str] = msgspec.field(default_factory=dict)
    auth: Auth = NoAuth()
    auto_reconnect: bool = True
    max_reconnect_attempts: int = 5
    connect_timeout: float = 30.0
    request_timeout: float | None = None
    ping_interval: float | None = 30.0
    trace: bool = False

    def __post_init__(self) -> None:
        where = f"server {self.name!r}"
        if not self.name:
            raise ConfigError("a server needs a name")
        if (self.url is None) == (self.command is None):
            raise ConfigError(f"{where}: give either a url or a command")
        if self.url is not None:
            if not self.url.lower().startswith(("http://", "https://")):
                raise ConfigError(f"{where}: the url must be http:// or https://, not {self.url!r}")
            if self.transport == "stdio":
                raise ConfigError(f"{where}: the stdio transport needs a command, not a url")
        elif self.transport in ("streamable-http", "sse"):
            raise ConfigError(f"{where}: the {self.transport} transport needs a url")
        elif self.headers or not isinstance(self.auth, NoAuth):
            raise ConfigError(f"{where}: headers and auth only apply to a server with a url")
        if self.max_reconnect_attempts < 0:
            raise ConfigError(f"{where}: maxReconnectAttempts must not be negative")
        if not self.connect_timeout > 0:
            raise ConfigError(f"{where}: connectTimeout must be more than 0")
        if self.request_timeout is not None and not self.request_timeout > 0:
            raise ConfigError(f"{where}: requestTimeout must be more than 0")
        if self.ping_interval is not None and not self.ping_interval > 0:
            raise ConfigError(f"{where}: pingInterval must be more than 0")

    @property
    def kind(self) -> str:
        """The transport this entry ends up with: "stdio", or "http" for a url
        ("auto": streamable HTTP, then HTTP+SSE)."""
        return "stdio" if self.command is not None else "http"

    def request_headers(self) -> dict[str, str]:
        """The headers of every HTTP request, authorization included."""
        headers = dict(self.headers)
        if isinstance(self.auth, TokenAuth):
            scheme = f"{self.auth.scheme} " if self.auth.scheme else ""
            headers[self.auth.header] = scheme + self.auth.token
        return headers


_SNAKE: Final = {
    "auto_reconnect": "autoReconnect",
    "max_reconnect_attempts": "maxReconnectAttempts",
    "connect_timeout": "connectTimeout",
    "request_timeout": "requestTimeout",
    "ping_interval": "pingInterval",
}
_KNOWN: Final = frozenset(
    {"url", "command", "args", "env", "cwd", "transport", "headers", "auth", "trace"}
    | set(_SNAKE.values())
)
# Keys read though not fields: "type" (for transport) and "disabled".
_READ: Final = frozenset({*_KNOWN, *_SNAKE, "type", "disabled"})
_AUTH_KEYS: Final = {
    struct.__struct_config__.tag: frozenset({"type", *struct.__struct_encode_fields__})
    for struct in (NoAuth, TokenAuth, OAuthAuth)
}


def unknown_keys(name: str, entry: Any) -> list[str]:
    """A warning for each key of an ``mcpServers`` entry (and of its ``auth``) that
    nothing reads, naming the key and the one it is probably a typo of."""
    if not isinstance(entry, dict):
        return []
    warnings = [_unknown(name, str(key), _READ) for key in entry if key not in _READ]
    auth = entry.get("auth")
    if isinstance(auth, dict):
        known = _AUTH_KEYS.get(str(auth.get("type")))
        if known is not None:
            warnings += [
                _unknown(name, f"auth.{key}", known, str(key))
                for key in auth
                if _camel(str(key)) not in known
            ]
    return warnings


def _unknown(name: str, key: str, known: frozenset[str], typed: str | None = None) -> str:
    typed = (key if typed is None else typed).lower()
    near = sorted((_distance(typed, k.lower()), k) for k in known)
    hint = f" (did you mean {near[0][1]!r}?)" if near and near[0][0] <= 2 else ""
    return f"server {name!r}: unknown key {key!r} ignored{hint}"


def _distance(a: str, b: str) -> int:
    # Levenshtein distance, for a typo's suggestion (keys are short).
    row = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        previous, row[0] = row[0], i
        for j, y in enumerate(b, 1):
            previous, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, previous + (x != y))
    return row[-1]


def server_config(name: str, entry: Any) -> ServerConfig:
    """One entry of an ``mcpServers`` object as a ServerConfig.

    Raises:
        ConfigError: what is wrong with it.
    """
    if not isinstance(entry, dict):
        raise ConfigError(f"server {name!r}: its entry must be an object")
    fields = {_SNAKE.get(key, key): value for key, value in entry.items()}
    if fields.get("transport") in _TYPE_ALIASES:  # "http" and the like
        fields["transport"] = _TYPE_ALIASES[fields["transport"]]
    elif "transport" not in fields and "type" in fields:
        alias = _TYPE_ALIASES.get(str(fields["type"]))
        if alias is None:
            raise ConfigError(f"server {name!r}: unknown type {fields['type']!r}")
        fields["transport"] = alias
    auth = fields.get("auth")
    if isinstance(auth, dict):  # snake_case works here too
        fields["auth"] = {_camel(str(key)): value for key, value in auth.items()}
    known = {key: value for key, value in fields.items() if key in _KNOWN}
    try:
        return msgspec.convert({"name": name, **known}, ServerConfig)
    except msgspec.ValidationError as exc:
        text = str(exc)  # a ConfigError of __post_init__ comes wrapped, its text whole
        raise ConfigError(
            text if text.startswith("server ") else f"server {name!r}: {text}"
        ) from None


def _camel(key: str) -> str:
    first, *rest = key.split("_")
    return first + "".join(part[:1].upper() + part[1:] for part in rest)


class ServersRead(NamedTuple):
    """What `read_servers` found: the servers, in the file's order, and a warning
    for each key it ignored."""

    servers: list[ServerConfig]
    warnings: list[str]


def parse_servers(data: bytes | str) -> list[ServerConfig]:
    """The servers of an ``mcpServers`` JSON document, in its order (`read_servers`
    without its warnings).

    Raises:
        ConfigError: not JSON, no ``mcpServers`` object, or a bad entry.
    """
    return read_servers(data).servers


def read_servers(data: bytes | str) -> ServersRead:
    """The servers of an ``mcpServers`` JSON document, in its order, and a warning
    for each key of an entry that nothing reads (`unknown_keys`).

    Raises:
        ConfigError: not JSON, no ``mcpServers`` object, or a bad entry.
    """
    try:
        document = msgspec.json.decode(data)
    except msgspec.DecodeError as exc:
        raise ConfigError(f"not JSON: {exc}") from None
    if not isinstance(document, dict):
        raise ConfigError("the configuration must be a JSON object with mcpServers")
    servers = document.get("mcpServers", document.get("servers"))
    if not isinstance(servers, dict):
        raise ConfigError('no "mcpServers" object in the configuration')
    read = ServersRead([], [])
    for name, entry in servers.items():
        if isinstance(entry, dict) and entry.get("disabled") is True:
            continue
        read.servers.append(server_config(name, entry))
        read.warnings.extend(unknown_keys(name, entry))
    return read
