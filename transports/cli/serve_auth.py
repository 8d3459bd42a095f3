"""``mcp-core serve|gateway --transport http --auth-jwks URL --auth-issuer ISSUER``:
serve as an OAuth resource server, with JWT access tokens checked against the
issuer's JWKS (see `transports.auth`)."""

from __future__ import annotations

import argparse
from typing import Any

__all__ = ["add_auth_arguments", "bearer_auth"]


def add_auth_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``--auth-*`` options of ``serve`` and ``gateway``."""
    parser.add_argument(
        "--auth-jwks",
        metavar="URL",
        help="HTTP: require OAuth access tokens, JWTs signed with the keys at URL "
        "(needs the 'auth' extra: pip install 'mcp-sansio[auth]')",
    )
    parser.add_argument(
        "--auth-issuer",
        metavar="URL",
        help="HTTP, with --auth-jwks: the authorization server's issuer (the tokens' iss, "
        "and the metadata's authorization_servers)",
    )
    parser.add_argument(
        "--auth-audience",
        metavar="URI",
        help="HTTP, with --auth-jwks: this server's canonical URI, the tokens' aud "
        "(default http://HOST:PORT/PATH)",
    )
    parser.add_argument(
        "--auth-scope",
        action="append",
        metavar="SCOPE",
        help="HTTP, with --auth-jwks: a scope every request needs (repeatable)",
    )


def bearer_auth(args: argparse.Namespace, host: str, port: int, path: str) -> Any:
    """The ``authenticate=`` hook the options ask for: None without ``--auth-jwks``,
    else a `BearerAuth`.

    Raises:
        ValueError: the options do not go together, or the ``auth`` extra is not
            installed (a usage error: its message says which).
    """
    given = [args.auth_issuer, args.auth_audience, args.auth_scope]
    if args.auth_jwks is None:
        if any(value is not None for value in given):
            raise ValueError("--auth-issuer, --auth-audience and --auth-scope need --auth-jwks")
        return None
    if args.auth_issuer is None:
        raise ValueError("--auth-jwks needs --auth-issuer")
    audience = args.auth_audience
    if audience is None:
        if port == 0:
            raise ValueError("--port 0 needs --auth-audience (the URI tokens are issued for)")
        audience = f"http://{f'[{host}]' if ':' in host else host}:{port}{path}"
    from mcp_core.auth import ResourceConfig, ScopePolicy

    from ..auth import BearerAuth

    try:
        from ..auth.jwt import JwtVerifier
    except ImportError:
        raise ValueError(
            "--auth-jwks needs the 'auth' extra: pip install 'mcp-sansio[auth]'"
        ) from None

    scopes = tuple(args.auth_scope or ())
    resource = ResourceConfig(
        audience,
        (args.auth_issuer,),
        scopes=ScopePolicy(required=scopes),
        scopes_supported=scopes or None,
    )
    verifier = JwtVerifier(args.auth_jwks, issuer=args.auth_issuer, audience=audience)
    return BearerAuth(resource, verifier)
