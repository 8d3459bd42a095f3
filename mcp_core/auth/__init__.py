"""OAuth 2.1 authorization, as the spec revisions describe it (2025-03-26 to 2026-07-28
basic/authorization).

Client side, all pure: `flow` is the state machine an adapter drives (`OAuthFlow`,
configured by `config.OAuthConfig`, answering with the actions of `actions`);
`discovery` finds and checks the metadata; `registration` obtains a client id;
`tokens` builds token requests and reads their answers; `grants` the grants with no
user (client credentials, jwt-bearer, token exchange); `pkce` makes the code
verifier; `www_authenticate` reads challenges; `assertions` and `dpop` build the
JWTs a client signs (the signature is the caller's function).
"""
