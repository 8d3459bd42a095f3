"""The token steps of the OAuth client flow: choosing a client id (pre-registered,
stored, a metadata document URL, or registering one), the user's authorization,
the grants with no user, refreshing, and the token endpoint's answers (DPoP proofs
and nonces included). Part of `OAuthFlow` (flow.py); the forms and documents are
tokens.py's, grants.py's and registration.py's.
"""

from __future__ import annotations

from .actions import (
    Authorized,
    AuthorizeUser,
    Credentials,
    Failed,
    FlowAction,
    PendingAuthorization,
    StoreCredentials,
)
from .assertions import client_assertion
from .authorize import authorization_url, choose_scope
from .dpop import dpop_proof
from .flow_state import FORM, JSON, FlowState, Stage, header, secure
from .grants import (
    client_credentials_form,
    jwt_bearer_form,
    read_exchanged,
    token_exchange_form,
)
from .pkce import new_state, new_verifier
from .registration import ClientInfo, choose_auth_method, read_registration, registration_body
from .tokens import Tokens, client_auth, form_body, read_token_error, read_tokens

__all__ = ["TokenSteps", "covers"]


class TokenSteps(FlowState):
    """Client ids, authorization, grants, refresh and the token endpoint."""

    def _credentials_loaded(self, credentials: Credentials | None, now: float) -> list[FlowAction]:
        """A stored token, else a refresh, else a grant with no user, else a client
        id (registering one if need be) and the user's authorization."""
        if credentials is None or credentials.issuer != self._issuer:
            credentials = Credentials(issuer=self._issuer)
        self._credentials = credentials
        tokens = credentials.tokens.get(self.resource)
        if tokens is not None and tokens.access_token != self._rejected:
            if tokens.fresh(now) and covers(tokens, self._wanted):
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

    def _registered(self, status: int, body: bytes, now: float) -> list[FlowAction]:
        """The registration endpoint's answer (RFC 7591)."""
        request = self._request
        assert request is not None
        if status not in (200, 201):
            detail = body[:200].decode("utf-8", "replace")
            return self._fail(f"{request.url} refused the registration (HTTP {status}) {detail}")
        client = read_registration(body, self._issuer, request.url, now)
        credentials = self._credentials_record()
        credentials.client = client
        return [StoreCredentials(credentials), *self._authorize(now)]

    def _exchanged(self, status: int, body: bytes, now: float) -> list[FlowAction]:
        """The identity provider's answer: an ID-JAG to present as a jwt-bearer grant."""
        request = self._request
        assert request is not None
        if status != 200:
            raise read_token_error(status, body, request.url)
        grant = read_exchanged(body, request.url)
        holder = self._client()
        assert isinstance(holder, ClientInfo)
        form = jwt_bearer_form(grant, self.resource, self._asked_scope)
        return self._token_request(form, holder, now)

    def _token_answer(self, status: int, body: bytes, url: str, now: float) -> list[FlowAction]:
        previous = self._tokens if self._refreshing else None
        if status == 400 and self._resend is not None and self._dpop_on():
            nonce = header(self._headers, "dpop-nonce")
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
                return self._credentials_loaded(credentials, now)
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
        headers = (("content-type", "application/json"), JSON)
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
        if not secure(endpoint):
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
            headers = (FORM, JSON)
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
            (FORM, JSON, *headers),
            form_body(form),
            "token",
        )


def covers(tokens: Tokens, wanted: tuple[str, ...] | None) -> bool:
    """Whether ``tokens`` were granted every scope in ``wanted``."""
    if not wanted:
        return True
    granted = set((tokens.scope or "").split())
    return granted.issuperset(wanted)
