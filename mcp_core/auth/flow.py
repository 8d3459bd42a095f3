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
# The steps live in their own modules, each a base of `OAuthFlow`: the state it
# keeps and the URL rules of its requests (flow_state.py), discovery
# (flow_discovery.py), client ids, authorization, grants and tokens
# (flow_tokens.py). This module is the API the adapter calls.
#
# A pending authorization serialises (`pending`, `resume`), so another process can
# finish it. The bound on authorizations (3 by default, step-ups included) keeps a
# server that never accepts a token from looping (2025-11-25 basic/authorization.mdx
# "Step-Up Authorization Flow": "Clients SHOULD implement retry limits").

from __future__ import annotations

from collections.abc import Sequence
from urllib.parse import urljoin

from .actions import Authorized, Credentials, FlowAction, PendingAuthorization
from .authorize import read_response
from .config import OAuthConfig
from .discovery import MetadataError, prm_urls
from .dpop import dpop_proof
from .flow_discovery import METADATA_STAGES, DiscoverySteps
from .flow_state import Stage, header
from .flow_tokens import TokenSteps
from .tokens import TokenError
from .www_authenticate import bearer_challenge

__all__ = ["OAuthConfig", "OAuthFlow", "Stage"]


class OAuthFlow(DiscoverySteps, TokenSteps):
    """The OAuth client flow for one MCP server.

    Args:
        config: how the client presents itself.
        server_url: the MCP server's endpoint URL.
    """

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
            return self._redirected_request(request, header(headers, "location"))
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
        return self._credentials_loaded(credentials, now)

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
    def resume(
        cls,
        config: OAuthConfig,
        pending: PendingAuthorization,
        stored: Credentials | None = None,
    ) -> OAuthFlow:
        """A flow waiting for the redirect of ``pending``; then `redirected`.

        ``stored`` is what the store holds for the issuer, if known: the record
        the flow stores its new tokens into, so that tokens it holds for other
        servers are kept.
        """
        flow = cls(config, pending.server_url)
        flow.resource = pending.resource
        flow._issuer = pending.issuer
        flow._metadata = pending.metadata
        flow._prm = pending.prm
        flow._pending = pending
        flow._authorizations = pending.authorizations
        registered = pending.client if pending.client.issuer else None
        if stored is not None and stored.issuer == pending.issuer:
            flow._credentials = Credentials(
                issuer=pending.issuer,
                client=registered or stored.client,
                tokens=dict(stored.tokens),
            )
        else:
            flow._credentials = Credentials(issuer=pending.issuer, client=registered)
        flow.stage = Stage.AUTHORIZING
        return flow

    # --- answers, by stage -----------------------------------------------------------------

    def _handle(self, status: int, body: bytes, now: float) -> list[FlowAction]:
        stage = self.stage
        request = self._request
        assert request is not None
        if stage in METADATA_STAGES:
            return self._metadata_answer(status, body)
        if stage is Stage.REGISTERING:
            return self._registered(status, body, now)
        if stage is Stage.TOKEN:
            return self._token_answer(status, body, request.url, now)
        if stage is Stage.IDENTITY:
            return self._exchanged(status, body, now)
        return self._fail("an answer came that the flow did not ask for")


def _union(first: Sequence[str], second: Sequence[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys([*first, *second]))
