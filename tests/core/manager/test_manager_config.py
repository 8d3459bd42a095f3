"""Server configurations, and the mcpServers JSON of desktop clients."""

from __future__ import annotations

import json

import pytest

from mcp_core.manager import (
    ConfigError,
    NoAuth,
    OAuthAuth,
    ServerConfig,
    TokenAuth,
    parse_servers,
    read_servers,
)


def test_what_mcp_core_config_prints_parses() -> None:
    # transports/cli/commands.py _run_config writes command, args and env.
    text = json.dumps(
        {
            "mcpServers": {
                "hello": {
                    "command": "/usr/bin/python3",
                    "args": ["-m", "transports", "serve", "/src/hello.py"],
                    "env": {"PYTHONPATH": "/src"},
                }
            }
        }
    )
    (server,) = parse_servers(text)
    assert server == ServerConfig(
        name="hello",
        command="/usr/bin/python3",
        args=["-m", "transports", "serve", "/src/hello.py"],
        env={"PYTHONPATH": "/src"},
    )
    assert server.kind == "stdio"
    assert server.transport == "auto"
    assert server.auto_reconnect is True and server.max_reconnect_attempts == 5
    assert isinstance(server.auth, NoAuth)


def test_urls_headers_tokens_and_our_own_keys() -> None:
    text = json.dumps(
        {
            "mcpServers": {
                "remote": {
                    "url": "https://example.com/mcp",
                    "type": "sse",
                    "headers": {"X-Team": "a"},
                    "auth": {"type": "token", "token": "T"},
                    "autoReconnect": False,
                    "max_reconnect_attempts": 2,
                    "connectTimeout": 3,
                    "requestTimeout": 4.5,
                    "ping_interval": 7,
                    "trace": True,
                    "alwaysAllow": ["x"],
                },
                "off": {"command": "x", "disabled": True},
            }
        }
    )
    (server,) = parse_servers(text)
    assert server.kind == "http" and server.transport == "sse"
    assert server.request_headers() == {"X-Team": "a", "Authorization": "Bearer T"}
    assert (server.auto_reconnect, server.max_reconnect_attempts) == (False, 2)
    assert (server.connect_timeout, server.request_timeout, server.trace) == (3, 4.5, True)
    assert server.ping_interval == 7
    assert "T" not in repr(server.auth).replace("Token", "")


def test_a_token_in_a_header_of_its_own() -> None:
    server = ServerConfig(
        name="s", url="http://h/mcp", auth=TokenAuth(token="k", header="X-Api-Key", scheme="")
    )
    assert server.request_headers() == {"X-Api-Key": "k"}


def test_servers_is_accepted_for_mcp_servers() -> None:
    (server,) = parse_servers('{"servers": {"a": {"url": "http://h/mcp", "type": "http"}}}')
    assert server.transport == "streamable-http"
    (server,) = parse_servers('{"servers": {"a": {"url": "http://h/mcp", "transport": "http"}}}')
    assert server.transport == "streamable-http"


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("not json", "not JSON"),
        ("[]", "mcpServers"),
        ('{"other": {}}', "mcpServers"),
        ('{"mcpServers": {"a": 3}}', "'a'"),
        ('{"mcpServers": {"a": {}}}', "either a url or a command"),
        ('{"mcpServers": {"a": {"url": "h", "command": "c"}}}', "either a url or a command"),
        ('{"mcpServers": {"a": {"url": "ftp://h"}}}', "http://"),
        ('{"mcpServers": {"a": {"url": "http://h", "transport": "stdio"}}}', "needs a command"),
        ('{"mcpServers": {"a": {"command": "c", "transport": "sse"}}}', "needs a url"),
        ('{"mcpServers": {"a": {"command": "c", "headers": {"A": "b"}}}}', "only apply"),
        ('{"mcpServers": {"a": {"command": "c", "type": "carrier-pigeon"}}}', "unknown type"),
        ('{"mcpServers": {"a": {"command": "c", "transport": "pigeon"}}}', "'a'"),
        ('{"mcpServers": {"a": {"command": "c", "maxReconnectAttempts": -1}}}', "negative"),
        ('{"mcpServers": {"a": {"command": "c", "connectTimeout": 0}}}', "connectTimeout"),
        ('{"mcpServers": {"a": {"command": "c", "auth": {"type": "oauth"}}}}', "only apply"),
        (
            '{"mcpServers": {"a": {"url": "http://h", "auth": {"type": "oauth", "mode": 1}}}}',
            "mode",
        ),
        (
            '{"mcpServers": {"a": {"url": "http://h", '
            '"auth": {"type": "oauth", "redirectPort": 0}}}}',
            "redirectPort",
        ),
        ('{"mcpServers": {"a": {"url": "http://h", "auth": {"type": "kerberos"}}}}', "'a'"),
        ('{"mcpServers": {"a": {"command": "c", "pingInterval": -1}}}', "pingInterval"),
        ('{"mcpServers": {"a": {"url": "http://h", "auth": {"type": "token"}}}}', "'a'"),
    ],
)
def test_bad_configurations_say_what_is_wrong(text: str, says: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_servers(text)
    assert says in str(caught.value)
    assert not str(caught.value).startswith("server 'a': server")


def test_oauth_per_server() -> None:
    text = json.dumps(
        {
            "mcpServers": {
                "plain": {"url": "https://a.example/mcp", "auth": {"type": "oauth"}},
                "set": {
                    "url": "https://b.example/mcp",
                    "auth": {
                        "type": "oauth",
                        "clientId": "app",
                        "client_secret": "s3cret",  # snake_case works too
                        "scopes": ["files:read"],
                        "redirect_port": 8123,
                        "mode": "headless",
                        "store": "/var/lib/mcp/oauth",
                    },
                },
            }
        }
    )
    plain, configured = parse_servers(text)
    assert plain.auth == OAuthAuth()
    assert plain.auth.mode == "auto" and plain.auth.store is None
    assert configured.auth == OAuthAuth(
        client_id="app",
        client_secret="s3cret",
        scopes=["files:read"],
        redirect_port=8123,
        mode="headless",
        store="/var/lib/mcp/oauth",
    )
    assert "s3cret" not in repr(configured.auth) and "s3cret" not in repr(configured)
    assert configured.request_headers() == {}  # the token comes from the flow


def test_keys_nothing_reads_are_named_in_warnings() -> None:
    # Issue 30 item 10: a typo of ours must not pass silently; other clients' keys
    # are warned about, never refused.
    text = json.dumps(
        {
            "mcpServers": {
                "a": {
                    "url": "http://h/mcp",
                    "transprt": "sse",
                    "type": "http",
                    "alwaysAllow": [],
                    "ping_interval": 5,
                    "auth": {"type": "oauth", "client_id": "c", "scope": ["x"]},
                },
                "b": {"command": "c", "disabled": False, "autoReconect": True},
                "off": {"command": "c", "disabled": True, "whatever": 1},
            }
        }
    )
    servers, warnings = read_servers(text)
    assert [s.name for s in servers] == ["a", "b"]
    assert servers[0].transport == "streamable-http"
    assert warnings == [
        "server 'a': unknown key 'transprt' ignored (did you mean 'transport'?)",
        "server 'a': unknown key 'alwaysAllow' ignored",
        "server 'a': unknown key 'auth.scope' ignored (did you mean 'scopes'?)",
        "server 'b': unknown key 'autoReconect' ignored (did you mean 'autoReconnect'?)",
    ]
    assert parse_servers(text) == servers
