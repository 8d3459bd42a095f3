# Outbound HTTP proxies, sans I/O: which proxy a request goes through, and how.
#
# Which: the variables curl, urllib, requests and httpx read. ``http_proxy`` names
# the proxy for http:// URLs, ``https_proxy`` the one for https:// URLs, and
# ``no_proxy`` the hosts reached directly. As urllib.request.getproxies_environment
# reads them: the lower-case name wins over the upper-case one, an empty value
# means "none" (an empty ``http_proxy`` hides ``HTTP_PROXY``), and ``HTTP_PROXY``
# is ignored when ``REQUEST_METHOD`` is set, since in a CGI program it may come
# from a request's ``Proxy:`` header (CVE-2016-1000110, "httpoxy"). ``no_proxy``
# follows urllib.request.proxy_bypass_environment: ``*`` reaches every host
# directly; otherwise each comma-separated name (a leading dot ignored, case
# ignored) matches that host and every host under it, and ``name:port`` matches
# on that port only. ALL_PROXY and SOCKS proxies are not read.
#
# How: a plain http request goes to the proxy whole, its target in absolute form,
# ``http://host:port/path`` (RFC 9112 section 3.2.2); an https one goes through a
# tunnel the proxy opens on ``CONNECT host:port`` (RFC 9110 section 9.3.6,
# authority form), with TLS to the server inside, so the proxy sees neither the
# request nor its headers. Credentials in the proxy's URL
# (``http://user:pass@proxy:3128``) become ``Proxy-Authorization: Basic ...``
# (RFC 9110 section 11.7.2, RFC 7617), sent to the proxy only: with the CONNECT
# for a tunnel, with every request for plain http.

from __future__ import annotations

import base64
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import unquote, urlsplit

from .client_actions import HttpOrigin
from .urls import DEFAULT_PORTS

__all__ = ["Proxy", "ProxySettings", "parse_proxy"]


def _authority(origin: HttpOrigin) -> str:
    # host:port, an IPv6 address in brackets (RFC 9110 section 9.3.6).
    _, host, port = origin
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


@dataclass(frozen=True, slots=True)
class Proxy:
    """A proxy to send requests through.

    Attributes:
        origin: where the proxy listens: (scheme, host, port); https means TLS to
            the proxy itself.
        authorization: the ``Proxy-Authorization`` value, from the URL's
            credentials; None without any.
    """

    origin: HttpOrigin
    authorization: str | None = None

    def tunnel_request(self, origin: HttpOrigin) -> tuple[str, list[tuple[str, str]]]:
        """The target and headers of the ``CONNECT`` that opens a tunnel to ``origin``."""
        authority = _authority(origin)
        headers = [("host", authority)]
        if self.authorization is not None:
            headers.append(("proxy-authorization", self.authorization))
        return authority, headers

    def absolute_target(self, origin: HttpOrigin, target: str) -> str:
        """``target`` (origin form, ``/path?query``) in absolute form, for a plain
        http request sent to the proxy."""
        scheme = origin[0]
        return f"{scheme}://{_authority(origin)}{target}"


def parse_proxy(url: str) -> Proxy:
    """A proxy from its URL: ``http://[user:pass@]host[:port]``, https for TLS to
    the proxy, or a bare ``host:port`` (http, as curl reads it).

    Raises:
        ValueError: another scheme (socks5...), no host, or a bad port.
    """
    text = url.strip()
    parts = urlsplit(text if "://" in text else f"http://{text}")
    scheme = parts.scheme.lower()
    if scheme not in DEFAULT_PORTS:
        raise ValueError(f"proxy {url!r}: only http:// and https:// proxies are supported")
    if not parts.hostname:
        raise ValueError(f"proxy {url!r} names no host")
    try:
        port = parts.port or DEFAULT_PORTS[scheme]
    except ValueError:
        raise ValueError(f"proxy {url!r} has an invalid port") from None
    authorization = None
    if parts.username is not None:
        pair = f"{unquote(parts.username)}:{unquote(parts.password or '')}"
        authorization = "Basic " + base64.b64encode(pair.encode()).decode("ascii")
    return Proxy((scheme, parts.hostname, port), authorization)


def _variable(environ: Mapping[str, str], scheme: str) -> str | None:
    lower = environ.get(f"{scheme}_proxy")
    if lower is not None:
        return lower or None
    if scheme == "http" and "REQUEST_METHOD" in environ:
        return None  # httpoxy: see the top of this module
    return environ.get(f"{scheme.upper()}_PROXY") or None


@dataclass(frozen=True, slots=True)
class ProxySettings:
    """Which proxy each request goes through; the default goes through none.

    Attributes:
        http: the proxy for http:// URLs.
        https: the proxy for https:// URLs.
        no_proxy: the ``no_proxy`` value: hosts reached directly.
    """

    http: Proxy | None = None
    https: Proxy | None = None
    no_proxy: str = ""

    @classmethod
    def from_environment(cls, environ: Mapping[str, str]) -> ProxySettings:
        """The settings ``environ`` (the process environment) names.

        Raises:
            ValueError: a proxy variable holds an unusable URL (the message
                names it).
        """
        proxies: dict[str, Proxy | None] = {}
        for scheme in ("http", "https"):
            value = _variable(environ, scheme)
            try:
                proxies[scheme] = None if value is None else parse_proxy(value)
            except ValueError as exc:
                raise ValueError(f"{scheme}_proxy: {exc}") from None
        no_proxy = _variable(environ, "no") or ""
        return cls(proxies["http"], proxies["https"], no_proxy)

    def bypasses(self, host: str, port: int) -> bool:
        """Whether ``no_proxy`` sends requests to ``host`` on ``port`` directly."""
        no_proxy = self.no_proxy.strip()
        if no_proxy == "*":
            return True
        name = (f"[{host}]" if ":" in host else host).lower()
        names = (name, f"{name}:{port}")
        for entry in no_proxy.split(","):
            entry = entry.strip().lstrip(".").lower()
            if entry and any(n == entry or n.endswith("." + entry) for n in names):
                return True
        return False

    def proxy_for(self, origin: HttpOrigin) -> Proxy | None:
        """The proxy a request to ``origin`` goes through; None: directly."""
        scheme, host, port = origin
        proxy = self.https if scheme == "https" else self.http
        if proxy is None or self.bypasses(host, port):
            return None
        return proxy
