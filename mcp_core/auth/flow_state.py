"""What the OAuth client flow remembers between events, and how it asks for HTTP
requests: `Stage`, the request it waits on (`Request`: candidates, redirects
followed on the same origin only), the URL rules every request obeys (http(s)
only; https for the authorization server, loopback excepted), and `FlowState`, the
base of `OAuthFlow` (flow.py) holding all of it.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from urllib.parse import urljoin, urlsplit

from .actions import Credentials, Failed, FlowAction, PendingAuthorization, SendRequest
from .config import OAuthConfig
from .discovery import ResourceMetadata, ServerMetadata, canonical_resource, origin_of
from .registration import ClientInfo
from .tokens import Tokens

__all__ = ["FlowState", "Request", "Stage", "header", "secure"]

JSON = ("accept", "application/json")
FORM = ("content-type", "application/x-www-form-urlencoded")
MAX_REDIRECTS = 3
LOOPBACK = frozenset({"localhost", "127.0.0.1", "::1"})


class Stage(enum.Enum):
    """Where the flow is."""

    #: Nothing under way.
    IDLE = "idle"
    #: Fetching Protected Resource Metadata.
    RESOURCE_METADATA = "resource-metadata"
    #: Fetching authorization server metadata.
    SERVER_METADATA = "server-metadata"
    #: Fetching the 2025-03-26 metadata at the server's origin.
    LEGACY_METADATA = "legacy-metadata"
    #: Waiting for `loaded`.
    LOADING = "loading"
    #: Registering the client (RFC 7591).
    REGISTERING = "registering"
    #: Waiting for the user's redirect.
    AUTHORIZING = "authorizing"
    #: Asking the token endpoint.
    TOKEN = "token"
    #: Asking the enterprise identity provider for an ID-JAG (SEP-990).
    IDENTITY = "identity"


@dataclass(slots=True)
class Request:
    """The HTTP request the flow waits on: its URL, the candidates left after it
    (the next metadata URL to try), and how many redirects led to it."""

    url: str
    method: str = "GET"
    candidates: list[str] = field(default_factory=list)
    redirects: int = 0


class FlowState:
    """What an `OAuthFlow` remembers, and how it asks for HTTP requests; the steps
    (flow_discovery.py, flow_tokens.py) and the flow's API (flow.py) build on it.

    Args:
        config: how the client presents itself.
        server_url: the MCP server's endpoint URL.
    """

    def __init__(self, config: OAuthConfig, server_url: str) -> None:
        self.config = config
        self.server_url = server_url
        self.stage = Stage.IDLE
        self.resource = canonical_resource(server_url)
        self._request: Request | None = None
        self._prm: ResourceMetadata | None = None
        self._metadata_url: str | None = None
        self._issuer = ""
        self._metadata: ServerMetadata | None = None
        self._legacy = False
        self._credentials: Credentials | None = None
        self._tokens: Tokens | None = None
        self._rejected: str | None = None
        self._wanted: tuple[str, ...] | None = None
        self._pending: PendingAuthorization | None = None
        self._authorizations = 0
        self._asked_scope: str | None = None
        self._refreshing = False
        self._via_refresh = False
        self._challenge_refresh = False
        self._headers: Sequence[tuple[str, str]] = ()
        self._resend: tuple[dict[str, str], ClientInfo] | None = None
        self._as_nonce: str | None = None
        self._rs_nonce: str | None = None

    # --- requests ----------------------------------------------------------------------

    def _next(self, candidates: list[str], purpose: str) -> list[FlowAction]:
        url, rest = candidates[0], candidates[1:]
        headers: tuple[tuple[str, str], ...] = (JSON,)
        if self._legacy:
            # 2025-03-26 basic/authorization.mdx "Server Metadata Discovery": SHOULD.
            headers = (JSON, ("mcp-protocol-version", "2025-03-26"))
        actions = self._send("GET", url, headers, b"", purpose)
        if self._request is not None:  # else the URL was refused: Failed
            self._request.candidates = rest
        return actions

    def _not_found(self, status: int, what: str, otherwise: object) -> list[FlowAction]:
        request = self._request
        assert request is not None
        if not 400 <= status < 500:
            return self._fail(f"{request.url} answered HTTP {status}")
        if request.candidates:
            return self._next(request.candidates, what)
        if callable(otherwise):
            result: list[FlowAction] = otherwise()
            return result
        return self._fail(f"no {what} found (last tried: {request.url}, HTTP {status})")

    def _send(
        self,
        method: str,
        url: str,
        headers: tuple[tuple[str, str], ...],
        body: bytes,
        purpose: str,
    ) -> list[FlowAction]:
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https"):
            return self._fail(f"the {purpose} URL {url!r} is not an http(s) URL")
        if purpose != "resource metadata" and not secure(url):
            # 2025-11-25 basic/authorization.mdx "Communication Security": "All
            # authorization server endpoints MUST be served over HTTPS" (the
            # loopback excepted, where nothing crosses a network).
            return self._fail(f"the {purpose} URL {url!r} is not https")
        self._request = Request(url, method)
        return [SendRequest(method, url, headers, body, purpose)]

    def _redirected_request(self, request: Request, location: str | None) -> list[FlowAction]:
        if location is None or request.method != "GET":
            return self._fail(f"{request.url} answered with a redirect; not followed")
        target = urljoin(request.url, location)
        # A redirect to another origin is not followed: metadata and tokens must
        # come from where they were looked for.
        if origin_of(target) != origin_of(request.url):
            return self._fail(
                f"{request.url} redirected to another origin ({target}); not followed"
            )
        if request.redirects >= MAX_REDIRECTS:
            return self._fail(f"{request.url}: too many redirects")
        actions = self._send("GET", target, (JSON,), b"", "redirect")
        if self._request is not None:
            self._request.candidates = request.candidates
            self._request.redirects = request.redirects + 1
        return actions

    def _dpop_on(self) -> bool:
        """Whether token requests carry DPoP proofs: we have a key, and the
        authorization server takes its algorithm (RFC 9449 section 5.1)."""
        key, metadata = self.config.dpop, self._metadata
        algs = metadata.dpop_signing_alg_values_supported if metadata else None
        return key is not None and bool(algs) and key.alg in (algs or ())

    def _credentials_record(self) -> Credentials:
        if self._credentials is None or self._credentials.issuer != self._issuer:
            self._credentials = Credentials(issuer=self._issuer)
        return self._credentials

    def _fail(self, reason: str) -> list[FlowAction]:
        self.stage = Stage.IDLE
        self._request = None
        self._pending = None
        self._refreshing = False
        return [Failed(reason)]


def secure(url: str) -> bool:
    """Whether ``url`` is https, or on the loopback where nothing crosses a network."""
    parts = urlsplit(url)
    return parts.scheme == "https" or (parts.hostname or "") in LOOPBACK


def header(headers: Sequence[tuple[str, str]] | Mapping[str, str], name: str) -> str | None:
    """The value of the header ``name`` (lower case), if present."""
    pairs = headers.items() if isinstance(headers, Mapping) else headers
    for key, value in pairs:
        if key.lower() == name:
            return value
    return None
