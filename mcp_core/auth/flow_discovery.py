"""The discovery steps of the OAuth client flow: from a challenge to the
authorization server's metadata, per revision (Protected Resource Metadata and
issuer metadata from 2025-06-18 on, the server's origin in 2025-03-26), with the
checks the spec requires before any authorization request. Part of `OAuthFlow`
(flow.py); the URLs and documents are discovery.py's.
"""

from __future__ import annotations

from .actions import FlowAction, LoadCredentials
from .discovery import (
    ResourceMetadata,
    ServerMetadata,
    as_metadata_urls,
    canonical_resource,
    decode_metadata,
    legacy_metadata,
    legacy_metadata_url,
    resource_matches,
)
from .flow_state import FlowState, Stage

__all__ = ["METADATA_STAGES", "PKCE_REFUSED_FROM", "DiscoverySteps"]

PKCE_REFUSED_FROM = "2025-11-25"
"""From this revision on, a server whose metadata does not list S256 is refused
(2025-11-25 basic/authorization.mdx "Authorization Code Protection": "MCP clients
MUST refuse to proceed")."""

METADATA_STAGES = frozenset({Stage.RESOURCE_METADATA, Stage.SERVER_METADATA, Stage.LEGACY_METADATA})
"""The stages whose answers `DiscoverySteps._metadata_answer` reads."""


class DiscoverySteps(FlowState):
    """Discovery: the metadata requests and what their answers lead to."""

    def _metadata_answer(self, status: int, body: bytes) -> list[FlowAction]:
        """The answer to a metadata request, in one of the `METADATA_STAGES`."""
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
        # Stage.LEGACY_METADATA
        if status == 200:
            # 2025-03-26 names a location, not an issuer: nothing to compare.
            metadata = decode_metadata(body, ServerMetadata, request.url)
        elif 400 <= status < 500:
            metadata = legacy_metadata(self.server_url)
        else:
            return self._fail(f"{request.url} answered HTTP {status}")
        self._issuer = metadata.issuer
        return self._server_metadata(metadata)

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
            strict = not self._legacy and self.config.revision >= PKCE_REFUSED_FROM
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

    def _legacy_discovery(self) -> list[FlowAction]:
        self._legacy = True
        self._prm = None
        self.stage = Stage.LEGACY_METADATA
        return self._next([legacy_metadata_url(self.server_url)], "server metadata")
