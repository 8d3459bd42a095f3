"""Which proxy a request goes through (mcp_core/http/proxy.py), held to urllib's
reading of the same variables (urllib.request.getproxies_environment and
proxy_bypass_environment), and the CONNECT and absolute-form requests it asks for."""

from __future__ import annotations

import urllib.request

import pytest

from mcp_core.http.proxy import Proxy, ProxySettings, parse_proxy

PROXY = "http://proxy.corp:3128"

ENVIRONMENTS = [
    {},
    {"HTTP_PROXY": PROXY},
    {"http_proxy": PROXY, "HTTP_PROXY": "http://other:1"},
    {"http_proxy": "", "HTTP_PROXY": PROXY},  # an empty lower-case value hides it
    {"HTTPS_PROXY": PROXY, "NO_PROXY": "*"},
    {"https_proxy": PROXY, "HTTPS_PROXY": "", "no_proxy": "a.com"},
    {"HTTP_PROXY": PROXY, "REQUEST_METHOD": "GET"},  # httpoxy: ignored in CGI
    {"http_proxy": PROXY, "REQUEST_METHOD": "GET"},  # the lower-case one still counts
    {"HTTP_PROXY": "", "HTTPS_PROXY": PROXY, "NO_PROXY": ".example.com,localhost"},
]


def _proxy_url(proxy: Proxy | None) -> str | None:
    if proxy is None:
        return None
    scheme, host, port = proxy.origin
    return f"{scheme}://{host}:{port}"


@pytest.mark.parametrize("environ", ENVIRONMENTS)
def test_the_variables_read_as_urllib_reads_them(
    environ: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("http_proxy", "https_proxy", "no_proxy", "request_method"):
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.upper(), raising=False)
    for name, value in environ.items():
        monkeypatch.setenv(name, value)
    theirs = urllib.request.getproxies_environment()
    ours = ProxySettings.from_environment(environ)
    assert _proxy_url(ours.http) == theirs.get("http")
    assert _proxy_url(ours.https) == theirs.get("https")
    assert ours.no_proxy == theirs.get("no", "")


@pytest.mark.parametrize(
    "no_proxy",
    [
        "",
        "*",
        "example.com",
        ".example.com",
        "EXAMPLE.com",
        "xample.com",
        "a.com, example.com:8443",
    ],
)
@pytest.mark.parametrize(
    ("host", "port"),
    [("example.com", 8443), ("api.example.com", 8443), ("example.com", 80), ("b.com", 8443)],
)
def test_no_proxy_matches_as_urllib_matches(no_proxy: str, host: str, port: int) -> None:
    settings = ProxySettings(http=parse_proxy(PROXY), no_proxy=no_proxy)
    theirs = urllib.request.proxy_bypass_environment(f"{host}:{port}", {"no": no_proxy})
    assert settings.bypasses(host, port) is bool(theirs)
    assert (settings.proxy_for(("http", host, port)) is None) is bool(theirs)


def test_no_proxy_names_an_ipv6_host_in_brackets() -> None:
    settings = ProxySettings(https=parse_proxy(PROXY), no_proxy="[::1]")
    assert settings.proxy_for(("https", "::1", 443)) is None
    assert settings.proxy_for(("https", "::2", 443)) is not None
    assert settings.proxy_for(("http", "::2", 80)) is None  # no http proxy


@pytest.mark.parametrize(
    ("url", "origin", "authorization"),
    [
        ("http://proxy:3128", ("http", "proxy", 3128), None),
        ("proxy:3128", ("http", "proxy", 3128), None),  # no scheme: http, as curl
        ("http://proxy", ("http", "proxy", 80), None),
        ("https://proxy", ("https", "proxy", 443), None),
        ("http://u:p%40ss@proxy:1", ("http", "proxy", 1), "Basic dTpwQHNz"),  # u:p@ss
        ("http://u@proxy:1", ("http", "proxy", 1), "Basic dTo="),  # u:
    ],
)
def test_a_proxy_url(url: str, origin: tuple[str, str, int], authorization: str | None) -> None:
    assert parse_proxy(url) == Proxy(origin, authorization)


@pytest.mark.parametrize("url", ["socks5://proxy:1080", "http://", "http://proxy:99999"])
def test_an_unusable_proxy_url(url: str) -> None:
    with pytest.raises(ValueError, match="proxy"):
        parse_proxy(url)


def test_an_unusable_variable_is_named() -> None:
    with pytest.raises(ValueError, match=r"https_proxy: .*socks5"):
        ProxySettings.from_environment({"HTTPS_PROXY": "socks5://proxy:1080"})


def test_the_requests_through_a_proxy() -> None:
    proxy = parse_proxy("http://u:p@proxy:3128")
    assert proxy.tunnel_request(("https", "mcp.example.com", 443)) == (
        "mcp.example.com:443",
        [("host", "mcp.example.com:443"), ("proxy-authorization", "Basic dTpw")],
    )
    assert proxy.tunnel_request(("https", "::1", 8443))[0] == "[::1]:8443"
    assert parse_proxy("proxy:1").tunnel_request(("https", "h", 443))[1] == [("host", "h:443")]
    assert proxy.absolute_target(("http", "h", 8000), "/mcp?x=1") == "http://h:8000/mcp?x=1"
