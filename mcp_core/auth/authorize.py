# The authorization request and the response that comes back with the user.
#
# `authorization_url` builds the request of the authorization code grant with PKCE
# (OAuth 2.1 section 4.1.1; S256, 2025-11-25 basic/authorization.mdx "Authorization
# Code Protection") and `resource` (RFC 8707). `read_response` applies the checks
# on the redirect before the code may reach any token endpoint: our `state`
# (2025-11-25 basic/authorization.mdx "Open Redirection"), then `iss` (2026-07-28
# basic/authorization/index.mdx "Authorization Response Validation", RFC 9207
# section 2.4), then the error, if any.

from __future__ import annotations

from collections.abc import Sequence
from urllib.parse import parse_qs, urlencode, urlsplit

from .actions import PendingAuthorization
from .discovery import ResourceMetadata, ServerMetadata
from .pkce import s256_challenge

__all__ = ["authorization_url", "choose_scope", "read_response"]


def choose_scope(
    wanted: Sequence[str] | None,
    configured: Sequence[str] | None,
    prm: ResourceMetadata | None,
    metadata: ServerMetadata | None,
    offline_access: bool,
) -> str | None:
    """The `scope` to ask for (2025-11-25 basic/authorization.mdx "Scope Selection
    Strategy"): the challenge's (``wanted``), else the configured ones, else all of
    the resource's `scopes_supported`, else none (the parameter omitted). With
    ``offline_access``, `offline_access` is added when the authorization server
    lists it (2026-07-28 basic/authorization/index.mdx "Refresh Tokens": MAY)."""
    scopes = wanted if wanted is not None else configured
    if scopes is None and prm is not None and prm.scopes_supported:
        scopes = prm.scopes_supported
    if not scopes:
        return None
    chosen = list(dict.fromkeys(scopes))
    listed = metadata.scopes_supported if metadata else None
    if offline_access and listed and "offline_access" in listed:
        chosen = list(dict.fromkeys([*chosen, "offline_access"]))
    return " ".join(chosen)


def authorization_url(pending: PendingAuthorization) -> str:
    """The URL to send the user to for ``pending``."""
    endpoint = pending.metadata.authorization_endpoint
    assert endpoint is not None
    params = {
        "response_type": "code",
        "client_id": pending.client.client_id,
        "redirect_uri": pending.redirect_uri,
        "code_challenge": s256_challenge(pending.verifier),
        "code_challenge_method": "S256",
        "state": pending.state,
        "resource": pending.resource,
    }
    if pending.scope is not None:
        params["scope"] = pending.scope
    return f"{endpoint}{'&' if '?' in endpoint else '?'}{urlencode(params)}"


def read_response(pending: PendingAuthorization, callback_url: str) -> str | tuple[str]:
    """The code of the redirect back from the authorization server, or ``(reason,)``
    when the response must be discarded or is a refusal."""
    fields = parse_qs(urlsplit(callback_url).query, keep_blank_values=True)
    query = {name: values[0] for name, values in fields.items()}
    if query.get("state") != pending.state:
        return ("the authorization response does not carry our state",)
    # A present `iss` is compared as a plain string, never normalised; an absent
    # one is refused only where the server advertises it; on a mismatch the error
    # fields are not shown.
    iss = query.get("iss")
    if iss is not None and iss != pending.issuer:
        return (f"the authorization response came from issuer {iss!r}, not {pending.issuer!r}",)
    if iss is None and pending.metadata.authorization_response_iss_parameter_supported:
        return ("the authorization response lacks the iss its server advertises",)
    if "error" in query:
        detail = query.get("error_description")
        more = f": {detail}" if detail else ""
        return (f"authorization refused: {query['error']}{more}",)
    code = query.get("code")
    if not code:
        return ("the authorization response carries no code",)
    return code
