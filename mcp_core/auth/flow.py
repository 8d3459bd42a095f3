# The OAuth 2.1 client flow of an MCP client, as a state machine with no I/O.
#
# Theory of operation. The adapter sends MCP requests with the token the flow last
# gave it. When the server answers 401 or 403 with a Bearer challenge, the adapter
# tells the flow (`challenged`); the flow answers with actions (actions.py): HTTP
# requests to send, whose answers the adapter reports (`received`,
# `request_failed`); credentials to load and store, keyed by issuer (`loaded`); the
# user to send to the authorization server (`redirected` brings the redirect back);
# and in the end `Authorized` with a token, or `Failed` with a reason. Time is an
# argument, `now`, in Unix seconds (expiries are stored across processes).
#
#   challenged -> resource metadata -> server metadata -> load credentials, then
#   (401/403)     (RFC 9728; none:      (per revision,      - a fresh token: Authorized
#                 2025-03-26 rules)     issuer checked)     - a refresh token: token endpoint
#                                                           - else a client id (pre-registered,
#                                                             metadata URL, registration),
#                                                             authorize, redirected, token
#
# A pending authorization serialises (`pending`, `resume`), so another process can
# finish it. The bound on authorizations (3 by default, step-ups included) keeps a
# server that never accepts a token from looping (2025-11-25 basic/authorization.mdx
# "Step-Up Authorization Flow": "Clients SHOULD implement retry limits").

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from urllib.parse import urljoin, urlsplit

from .actions import (
    Authorized,
    AuthorizeUser,
    Credentials,
    Failed,
    FlowAction,
    LoadCredentials,
    PendingAuthorization,
    SendRequest,
    StoreCredentials,
)
from .assertions import client_assertion
from .authorize import authorization_url, choose_scope, read_response
from .config import OAuthConfig
from .discovery import (
    MetadataError,
    ResourceMetadata,
    ServerMetadata,
    as_metadata_urls,
    canonical_resource,
    decode_metadata,
    legacy_metadata,
    legacy_metadata_url,
    origin_of,
    prm_urls,
    resource_matches,
)
from .dpop import dpop_proof
from .grants import (
    client_credentials_form,
    jwt_bearer_form,
    read_exchanged,
    token_exchange_form,
)
from .pkce import new_state, new_verifier
from .registration import ClientInfo, choose_auth_method, read_registration, registration_body
from .tokens import TokenError, Tokens, client_auth, form_body, read_token_error, read_tokens
from .www_authenticate import bearer_challenge

__all__ = ["OAuthConfig", "OAuthFlow"]

_JSON = ("accept", "application/json")
_FORM = ("content-type", "application/x-www-form-urlencoded")
_MAX_REDIRECTS = 3
_PKCE_REFUSED_FROM = "2025-11-25"
"""From this revision on, a server whose metadata does not list S256 is refused
(2025-11-25 basic/authorization.mdx "Authorization Code Protection": "MCP clients
MUST refuse to proceed")."""


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
class _Request:
    url: str
    method: str = "GET"
    candidates: list[str] = field(default_factory=list)
    redirects: int = 0


class OAuthFlow:
    """The OAuth client flow for one MCP server.

    Args:
        config: how the client presents itself.
        server_url: the MCP server's endpoint URL.
    """

    def __init__(self, config: OAuthConfig, server_url: str) -> None:
        self.config = config
        self.server_url = server_url
        self.stage = Stage.IDLE
        self.resource = canonical_resource(server_url)
        self._request: _Request | None = None
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

    # --- what the adapter tells the flow ---------------------------------------------

    def token(self, now: float) -> str | None:
        """The access token to send, if there is one that has not expired."""
        tokens = self._tokens
        if tokens is None or tokens.access_token == self._rejected or not tokens.fresh(now):
            return None
        return tokens.access_token

    def accepted(self, token: str) -> None:
        """The MCP server accepted a request that carried ``token``: the bound on
        authorizations counts again from zero (it bounds one refused operation,
        not the client's lifetime)."""
        if self._tokens is not None and self._tokens.access_token == token:
            self._authorizations = 0

    def resource_headers(self, method: str, url: str, now: float) -> list[tuple[str, str]]:
        """The headers that carry the token on a request to the MCP server:
        `Authorization: Bearer`, or for a DPoP-bound token `Authorization: DPoP`
        with a fresh proof (RFC 9449 section 7.1); [] without a token."""
        token = self.token(now)
        if token is None:
            return []
        key = self.config.dpop
        assert self._tokens is not None
        if self._tokens.token_type != "DPoP" or key is None:
            return [("authorization", f"Bearer {token}")]
        proof = dpop_proof(key, method, url, now, nonce=self._rs_nonce, access_token=token)
        return [("authorization", f"DPoP {token}"), ("dpop", proof)]

    def refresh(self, now: float) -> list[FlowAction]:
        """Refresh an expiring token before it is used (OAuth 2.1 section 4.3);
        [] when there is nothing to refresh."""
        tokens = self._tokens
        if self.stage is not Stage.IDLE or tokens is None or tokens.refresh_token is None:
            return []
        return self._refresh_request(tokens, now)

    def challenged(
        self,
        status: int,
        www_authenticate: str | None,
        now: float,
        dpop_nonce: str | None = None,
    ) -> list[FlowAction]:
        """The MCP server refused a request: ``status`` 401 or 403, with its
        `WWW-Authenticate` header (None when absent) and `DPoP-Nonce` header."""
        challenge = bearer_challenge(www_authenticate)
        scopes = challenge.scopes if challenge is not None else None
        token = self.token(now)
        if (
            challenge is not None
            and challenge.params.get("error") == "use_dpop_nonce"
            and dpop_nonce is not None
            and dpop_nonce != self._rs_nonce
            and token is not None
        ):
            # RFC 9449 section 9: the same token again, with a proof that
            # carries the server's nonce.
            self._rs_nonce = dpop_nonce
            return [Authorized(token)]
        if self._tokens is not None:
            self._rejected = self._tokens.access_token
        self._request = None
        if status == 403:
            # 2025-11-25 basic/authorization.mdx "Runtime Insufficient Scope Errors".
            if challenge is None or challenge.params.get("error") != "insufficient_scope":
                return self._fail(f"{self.server_url} refused the request (HTTP 403)")
            # 2026-07-28 basic/authorization/index.mdx "Scope Selection Strategy":
            # the challenged scopes with those granted, so none is lost.
            granted = tuple((self._tokens.scope or "").split()) if self._tokens else ()
            self._wanted = _union(granted, scopes or ())
            if self._metadata is not None and self._client() is not None:
                return self._authorize(now)
        elif status == 401:
            self._wanted = scopes
            tokens = self._tokens
            if (
                tokens is not None
                and tokens.refresh_token is not None
                and not self._refreshing
                and not self._via_refresh
                and self._metadata is not None
            ):
                actions = self._refresh_request(tokens, now)
                self._challenge_refresh = True
                return actions
        else:
            return self._fail(f"{self.server_url} answered HTTP {status}, not a challenge")
        self._refreshing = False
        named = challenge.params.get("resource_metadata") if challenge else None
        challenged_url = urljoin(self.server_url, named) if named else None
        if self.config.revision == "2025-03-26":
            return self._legacy_discovery()
        self.stage = Stage.RESOURCE_METADATA
        return self._next(prm_urls(self.server_url, challenged_url), "resource metadata")

    def received(
        self, status: int, headers: Sequence[tuple[str, str]], body: bytes, now: float
    ) -> list[FlowAction]:
        """The answer to the last `SendRequest` (redirects not followed)."""
        request = self._request
        if request is None:
            return self._fail("an answer came that the flow did not ask for")
        if 300 <= status < 400:
            return self._redirected_request(request, _header(headers, "location"))
        self._headers = headers
        try:
            return self._handle(status, body, now)
        except (MetadataError, TokenError) as exc:
            return self._fail(str(exc))

    def request_failed(self, reason: str) -> list[FlowAction]:
        """The last `SendRequest` got no answer (no connection, a timeout...)."""
        url = self._request.url if self._request else "a request"
        return self._fail(f"{url}: {reason}")

    def loaded(self, credentials: Credentials | None, now: float) -> list[FlowAction]:
        """What the store holds for the issuer `LoadCredentials` named."""
        if self.stage is not Stage.LOADING:
            return self._fail("credentials came that the flow did not ask for")
        if credentials is None or credentials.issuer != self._issuer:
            credentials = Credentials(issuer=self._issuer)
        self._credentials = credentials
        tokens = credentials.tokens.get(self.resource)
        if tokens is not None and tokens.access_token != self._rejected:
            if tokens.fresh(now) and _covers(tokens, self._wanted):
                self._tokens = tokens
                self.stage = Stage.IDLE
                return [Authorized(tokens.access_token)]
            if tokens.refresh_token is not None:
                return self._refresh_request(tokens, now)
        if self.config.grant != "authorization_code":
            return self._grant(now)
        client = self._client()
        if isinstance(client, Failed):
            return self._fail(client.reason)
        if client is None:
            return self._register()
        return self._authorize(now)

    def redirected(self, callback_url: str, now: float) -> list[FlowAction]:
        """The URL the authorization server sent the user back to."""
        pending = self._pending
        if self.stage is not Stage.AUTHORIZING or pending is None:
            return self._fail("a redirect came that the flow did not ask for")
        code = read_response(pending, callback_url)
        if isinstance(code, tuple):
            return self._fail(code[0])
        form = {
            "grant_type": "authorization_code",
            "code": code,
            "redirect_uri": pending.redirect_uri,
            "code_verifier": pending.verifier,
            "resource": pending.resource,
        }
        self._asked_scope = pending.scope
        return self._token_request(form, pending.client, now)

    # --- pending authorizations ------------------------------------------------------------

    def pending(self) -> PendingAuthorization | None:
        """The authorization waiting for its redirect, to finish elsewhere."""
        return self._pending if self.stage is Stage.AUTHORIZING else None

    @classmethod
    def resume(cls, config: OAuthConfig, pending: PendingAuthorization) -> OAuthFlow:
        """A flow waiting for the redirect of ``pending``; then `redirected`."""
        flow = cls(config, pending.server_url)
        flow.resource = pending.resource
        flow._issuer = pending.issuer
        flow._metadata = pending.metadata
        flow._prm = pending.prm
        flow._pending = pending
        flow._authorizations = pending.authorizations
        flow._credentials = Credentials(
            issuer=pending.issuer, client=pending.client if pending.client.issuer else None
        )
        flow.stage = Stage.AUTHORIZING
        return flow

    # --- answers, by stage -----------------------------------------------------------------

    def _handle(self, status: int, body: bytes, now: float) -> list[FlowAction]:
        stage = self.stage
        request = self._request
        assert request is not None
        if stage is Stage.RESOURCE_METADATA:
            if status != 200:
                return self._not_found(status, "resource metadata", self._legacy_discovery)
            prm = decode_metadata(body, ResourceMetadata, request.url)
            return self._resource_metadata(prm, request.url)
        if stage is Stage.SERVER_METADATA:
            if status != 200:
                return self._not_found(status, "authorization server metadata", None)
            metadata = decode_metadata(body, ServerMetadata, request.url)
            # 2026-07-28 basic/authorization/authorization-server-discovery.mdx
            # "Authorization Server Metadata Discovery": MUST be identical.
            if metadata.issuer != self._issuer:
                return self._fail(
                    f"{request.url} describes issuer {metadata.issuer!r}, not {self._issuer!r}"
                    "; the metadata is not used"
                )
            return self._server_metadata(metadata)
        if stage is Stage.LEGACY_METADATA:
            if status == 200:
                # 2025-03-26 names a location, not an issuer: nothing to compare.
                metadata = decode_metadata(body, ServerMetadata, request.url)
            elif 400 <= status < 500:
                metadata = legacy_metadata(self.server_url)
            else:
                return self._fail(f"{request.url} answered HTTP {status}")
            self._issuer = metadata.issuer
            return self._server_metadata(metadata)
        if stage is Stage.REGISTERING:
            if status not in (200, 201):
                detail = body[:200].decode("utf-8", "replace")
                return self._fail(
                    f"{request.url} refused the registration (HTTP {status}) {detail}"
                )
            client = read_registration(body, self._issuer, request.url, now)
            credentials = self._credentials_record()
            credentials.client = client
            return [StoreCredentials(credentials), *self._authorize(now)]
        if stage is Stage.TOKEN:
            return self._token_answer(status, body, request.url, now)
        if stage is Stage.IDENTITY:
            if status != 200:
                raise read_token_error(status, body, request.url)
            grant = read_exchanged(body, request.url)
            holder = self._client()
            assert isinstance(holder, ClientInfo)
            form = jwt_bearer_form(grant, self.resource, self._asked_scope)
            return self._token_request(form, holder, now)
        return self._fail("an answer came that the flow did not ask for")

    def _resource_metadata(self, prm: ResourceMetadata, url: str) -> list[FlowAction]:
        # RFC 9728 section 3.3; 2025-11-25 basic/authorization.mdx "Resource
        # Parameter Implementation": the resource must be the server we talk to,
        # checked before any authorization request.
        if prm.resource is None or not resource_matches(prm.resource, self.server_url):
            return self._fail(
                f"{url} describes resource {prm.resource!r}, not {self.server_url!r}; "
                "authorization aborted"
            )
        if not prm.authorization_servers:
            return self._fail(f"{url} names no authorization server")
        self._prm = prm
        self.resource = canonical_resource(prm.resource)
        self._legacy = False
        issuer = prm.authorization_servers[0]
        if issuer != self._issuer:
            self._tokens = None  # another authorization server: nothing of the old one
            self._metadata = None
        self._issuer = issuer
        self.stage = Stage.SERVER_METADATA
        return self._next(as_metadata_urls(issuer, self.config.revision), "server metadata")

    def _server_metadata(self, metadata: ServerMetadata) -> list[FlowAction]:
        if self.config.grant == "authorization_code":
            if not metadata.authorization_endpoint or not metadata.token_endpoint:
                return self._fail(f"issuer {metadata.issuer!r} has no authorization endpoint")
            methods = metadata.code_challenge_methods_supported
            strict = not self._legacy and self.config.revision >= _PKCE_REFUSED_FROM
            if strict and (methods is None or "S256" not in methods):
                return self._fail(
                    f"issuer {metadata.issuer!r} does not advertise PKCE with S256; "
                    "authorization refused"
                )
        elif not metadata.token_endpoint:
            return self._fail(f"issuer {metadata.issuer!r} has no token endpoint")
        self._metadata = metadata
        self.stage = Stage.LOADING
        self._request = None
        return [LoadCredentials(self._issuer)]

    def _token_answer(self, status: int, body: bytes, url: str, now: float) -> list[FlowAction]:
        previous = self._tokens if self._refreshing else None
        if status == 400 and self._resend is not None and self._dpop_on():
            nonce = _header(self._headers, "dpop-nonce")
            error = read_token_error(status, body, url)
            if error.error == "use_dpop_nonce" and nonce and nonce != self._as_nonce:
                # RFC 9449 section 8: again, with the server's nonce in the proof.
                self._as_nonce = nonce
                form, client = self._resend
                return self._token_request(form, client, now)
        if status != 200:
            if self._refreshing and status in (400, 401):
                # The refresh token is spent or revoked: authorize afresh.
                self._refreshing = False
                self._tokens = None
                credentials = self._credentials_record()
                credentials.tokens.pop(self.resource, None)
                self._rejected = previous.access_token if previous else self._rejected
                self.stage = Stage.LOADING
                return self.loaded(credentials, now)
            raise read_token_error(status, body, url)
        tokens = read_tokens(
            body,
            url=url,
            now=now,
            resource=self.resource,
            asked_scope=self._asked_scope,
            previous=previous,
            dpop=self._dpop_on(),
        )
        self._tokens = tokens
        self._rejected = None
        # A token that a refresh on a 401 brought, refused again: next time the
        # flow authorizes afresh instead of refreshing in a loop.
        self._via_refresh = self._refreshing and self._challenge_refresh
        self._challenge_refresh = False
        self._refreshing = False
        self._pending = None
        self._request = None
        self.stage = Stage.IDLE
        credentials = self._credentials_record()
        credentials.tokens[self.resource] = tokens
        return [StoreCredentials(credentials), Authorized(tokens.access_token)]

    # --- steps -------------------------------------------------------------------------

    def _legacy_discovery(self) -> list[FlowAction]:
        self._legacy = True
        self._prm = None
        self.stage = Stage.LEGACY_METADATA
        return self._next([legacy_metadata_url(self.server_url)], "server metadata")

    def _client(self) -> ClientInfo | Failed | None:
        """Pre-registered information, then stored, then a metadata document URL;
        None when the client must register."""
        config, metadata, issuer = self.config, self._metadata, self._issuer
        if config.client_id is not None:
            if config.client_issuer is not None and config.client_issuer != issuer:
                # client-registration.mdx "Authorization Server Binding": SHOULD
                # surface an error rather than use mismatched credentials.
                return Failed(
                    f"the pre-registered client is for {config.client_issuer!r}, "
                    f"but the server uses {issuer!r}"
                )
            method = config.client_auth_method
            if not method and config.signer is not None and config.client_secret is None:
                method = "private_key_jwt"
            return ClientInfo(
                client_id=config.client_id,
                issuer=issuer,
                client_secret=config.client_secret,
                token_endpoint_auth_method=method,
            )
        stored = self._credentials.client if self._credentials else None
        if stored is not None and stored.issuer in (issuer, ""):
            return stored
        if (
            metadata is not None
            and metadata.client_id_metadata_document_supported
            and config.client_metadata_url
        ):
            return ClientInfo(
                client_id=config.client_metadata_url, token_endpoint_auth_method="none"
            )
        return None

    def _register(self) -> list[FlowAction]:
        metadata = self._metadata
        assert metadata is not None
        if not metadata.registration_endpoint:
            return self._fail(
                f"issuer {self._issuer!r} offers no client registration; give a client id"
            )
        body = registration_body(
            metadata,
            client_name=self.config.client_name,
            redirect_uri=self.config.redirect_uri,
            application_type=self.config.application_type,
            grant_types=["authorization_code", "refresh_token"],
        )
        self.stage = Stage.REGISTERING
        headers = (("content-type", "application/json"), _JSON)
        return self._send("POST", metadata.registration_endpoint, headers, body, "registration")

    def _scope(self) -> str | None:
        config = self.config
        return choose_scope(
            self._wanted, config.scopes, self._prm, self._metadata, config.offline_access
        )

    def _authorize(self, now: float) -> list[FlowAction]:
        config, metadata = self.config, self._metadata
        assert metadata is not None and metadata.authorization_endpoint is not None
        if self._authorizations >= config.max_authorizations:
            return self._fail(
                f"gave up after {self._authorizations} authorizations: "
                f"{self.server_url} still refuses the token"
            )
        client = self._client()
        if not isinstance(client, ClientInfo):
            return self._fail(client.reason if client else "no client id")
        endpoint = metadata.authorization_endpoint
        if not _secure(endpoint):
            return self._fail(f"the authorization endpoint {endpoint!r} is not https")
        self._authorizations += 1
        self._pending = PendingAuthorization(
            server_url=self.server_url,
            resource=self.resource,
            issuer=metadata.issuer,
            metadata=metadata,
            client=client,
            verifier=new_verifier(),
            state=new_state(),
            redirect_uri=config.redirect_uri,
            scope=self._scope(),
            prm=self._prm,
            authorizations=self._authorizations,
        )
        url = authorization_url(self._pending)
        self.stage = Stage.AUTHORIZING
        self._request = None
        return [AuthorizeUser(url, config.redirect_uri)]

    def _grant(self, now: float) -> list[FlowAction]:
        # A grant with no user: client_credentials, or jwt-bearer (grants.py).
        config, metadata = self.config, self._metadata
        assert metadata is not None
        client = self._client()
        if not isinstance(client, ClientInfo):
            return self._fail(
                client.reason if client else f"the {config.grant} grant needs a client id"
            )
        scope = self._scope()
        self._asked_scope = scope
        if config.grant == "client_credentials":
            return self._token_request(client_credentials_form(self.resource, scope), client, now)
        if config.grant != "jwt_bearer":
            return self._fail(f"unknown grant {config.grant!r}")
        if config.identity is not None:
            form = token_exchange_form(config.identity, metadata.issuer, self.resource, scope)
            self.stage = Stage.IDENTITY
            headers = (_FORM, _JSON)
            url = config.identity.token_endpoint
            return self._send("POST", url, headers, form_body(form), "token exchange")
        if config.assertion is None:
            return self._fail("the jwt_bearer grant needs an assertion or an identity provider")
        return self._token_request(
            jwt_bearer_form(config.assertion, self.resource, scope), client, now
        )

    def _refresh_request(self, tokens: Tokens, now: float) -> list[FlowAction]:
        client = self._client()
        if not isinstance(client, ClientInfo) or self._metadata is None:
            self._tokens = None
            return self._fail("no client to refresh the token with")
        assert tokens.refresh_token is not None
        self._refreshing = True
        self._tokens = tokens
        self._asked_scope = tokens.scope
        form = {
            "grant_type": "refresh_token",
            "refresh_token": tokens.refresh_token,
            "resource": self.resource,
        }
        return self._token_request(form, client, now)

    def _token_request(
        self, form: dict[str, str], client: ClientInfo, now: float
    ) -> list[FlowAction]:
        metadata = self._metadata
        assert metadata is not None and metadata.token_endpoint is not None
        config = self.config
        method = choose_auth_method(metadata, client)
        signer = config.signer

        def assertion() -> str:
            assert signer is not None
            return client_assertion(
                client_id=client.client_id,
                audience=metadata.issuer,
                alg=config.signing_alg,
                sign=signer,
                now=now,
            )

        self._resend = (dict(form), client)
        headers = client_auth(
            method,
            client.client_id,
            client.client_secret,
            form,
            assertion=assertion if signer is not None else None,
        )
        key = config.dpop
        if key is not None and self._dpop_on():
            proof = dpop_proof(key, "POST", metadata.token_endpoint, now, nonce=self._as_nonce)
            headers.append(("dpop", proof))
        self.stage = Stage.TOKEN
        return self._send(
            "POST",
            metadata.token_endpoint,
            (_FORM, _JSON, *headers),
            form_body(form),
            "token",
        )

    # --- requests ----------------------------------------------------------------------

    def _next(self, candidates: list[str], purpose: str) -> list[FlowAction]:
        url, rest = candidates[0], candidates[1:]
        headers: tuple[tuple[str, str], ...] = (_JSON,)
        if self._legacy:
            # 2025-03-26 basic/authorization.mdx "Server Metadata Discovery": SHOULD.
            headers = (_JSON, ("mcp-protocol-version", "2025-03-26"))
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
        if purpose != "resource metadata" and not _secure(url):
            # 2025-11-25 basic/authorization.mdx "Communication Security": "All
            # authorization server endpoints MUST be served over HTTPS" (the
            # loopback excepted, where nothing crosses a network).
            return self._fail(f"the {purpose} URL {url!r} is not https")
        self._request = _Request(url, method)
        return [SendRequest(method, url, headers, body, purpose)]

    def _redirected_request(self, request: _Request, location: str | None) -> list[FlowAction]:
        if location is None or request.method != "GET":
            return self._fail(f"{request.url} answered with a redirect; not followed")
        target = urljoin(request.url, location)
        # A redirect to another origin is not followed: metadata and tokens must
        # come from where they were looked for.
        if origin_of(target) != origin_of(request.url):
            return self._fail(
                f"{request.url} redirected to another origin ({target}); not followed"
            )
        if request.redirects >= _MAX_REDIRECTS:
            return self._fail(f"{request.url}: too many redirects")
        actions = self._send("GET", target, (_JSON,), b"", "redirect")
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


_LOOPBACK = frozenset({"localhost", "127.0.0.1", "::1"})


def _secure(url: str) -> bool:
    parts = urlsplit(url)
    return parts.scheme == "https" or (parts.hostname or "") in _LOOPBACK


def _union(first: Sequence[str], second: Sequence[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys([*first, *second]))


def _covers(tokens: Tokens, wanted: tuple[str, ...] | None) -> bool:
    if not wanted:
        return True
    granted = set((tokens.scope or "").split())
    return granted.issuperset(wanted)


def _header(headers: Sequence[tuple[str, str]] | Mapping[str, str], name: str) -> str | None:
    pairs = headers.items() if isinstance(headers, Mapping) else headers
    for key, value in pairs:
        if key.lower() == name:
            return value
    return None
