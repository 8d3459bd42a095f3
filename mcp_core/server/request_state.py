# Sealing the MRTR `requestState`.
#
# 2026-07-28 basic/patterns/mrtr.mdx "Server Requirements (Basic Workflow)": the
# client echoes `requestState` back verbatim, so the server MUST treat it as
# attacker-controlled, MUST protect its integrity (HMAC or AEAD) when it matters, and
# SHOULD bind it to the authenticated principal, a short expiry, and the originating
# request (method plus a digest of its salient parameters). Those bounds do not make
# a state single-use; a server that needs that MUST enforce it itself (ReplayGuard).
#
# Token layout, before unpadded base64url (RFC 4648 section 5):
#
#     version (1) | nonce (16) | expiry (8, IEEE 754 double, big-endian)
#     | epoch (16) | payload | core tag (16) | request tag (16) | principal tag (16)
#
# * core tag      = HMAC-SHA256(k_core, version | nonce | expiry | epoch | payload)
# * request tag   = HMAC-SHA256(k_request, core tag | request binding)
# * principal tag = HMAC-SHA256(k_principal, core tag | 0x00)          (no principal)
#                   HMAC-SHA256(k_principal, core tag | 0x01 | principal)
#
# each truncated to 128 bits (as HMAC-SHA-256-128, RFC 4868 section 2.6). The three
# keys are derived from the caller's key with HMAC-SHA256 and fixed labels, so the
# same secret used elsewhere cannot yield valid tokens here. The binding and the
# principal are not in the token: the caller must present them again, and the
# separate tags let `open` say *which* of them did not match. The tags chain on the
# core tag, so they cannot be moved to another token.
#
# Why HMAC and not AEAD: mcp_core uses only the standard library, which has no AEAD
# cipher. The payload is therefore integrity-protected but readable by the client;
# a server that needs confidentiality encrypts the payload before sealing it.
#
# Epoch: single use is only as good as the memory of the store that records used
# nonces. A store that loses that memory (a Redis restarted empty, a process
# restarted with the same key) would accept every state sealed before as new. So
# the shared store (`OnceStore`) names its memory with a random epoch, renewed
# while states live, the caller seals the current epoch into each state, and a
# claim refuses a state whose epoch is not the store's current one: after a loss,
# every state sealed before it is refused ("store restarted"), and the client
# starts its request over (fail closed). The epoch comes from the store; nothing
# here does I/O. The in-process `ReplayGuard` seals no epoch (`NO_EPOCH`): its
# memory is the process's, and replicas that share only a key still open each
# other's states.
#
# Time: `now` is wall-clock seconds (time.time()) supplied by the caller, because a
# token may outlive the process that sealed it or travel between replicas. A token
# is expired when now >= expiry.

from __future__ import annotations

import base64
import binascii
import hashlib
import heapq
import hmac
import math
import re
import secrets
import struct
from collections.abc import Sequence
from typing import NamedTuple, Protocol
from urllib.parse import quote

from ..wire.errors import INVALID_PARAMS

__all__ = [
    "EPOCH_SIZE",
    "NO_EPOCH",
    "MemoryOnceStore",
    "OnceStore",
    "ReplayGuard",
    "ReplayStore",
    "StateRejected",
    "StateSealer",
    "Verified",
    "new_epoch",
    "request_binding",
]

_VERSION = 2  # 1 had no epoch; its tokens are refused as malformed
_NONCE_SIZE = 16  # 128 random bits: collisions are negligible, so a nonce names a token
EPOCH_SIZE = 16
"""Bytes of a store's epoch (random, as a nonce)."""
NO_EPOCH = bytes(EPOCH_SIZE)
"""The epoch sealed by a sealer that has no store to enforce single use."""
_TAG_SIZE = 16  # HMAC-SHA256 truncated to 128 bits (RFC 4868 section 2.6)
_EXPIRY = struct.Struct(">d")
_EPOCH_AT = 1 + _NONCE_SIZE + _EXPIRY.size
_HEADER_SIZE = _EPOCH_AT + EPOCH_SIZE
_MIN_SIZE = _HEADER_SIZE + 3 * _TAG_SIZE
_MIN_KEY_SIZE = 32  # as long as the HMAC-SHA256 output (RFC 2104 section 3)
_TOKEN_CHARS = re.compile(r"[A-Za-z0-9_-]*")
_FINGERPRINT_LABEL = b"mcp-core requestState v1 fingerprint"
_LABELS = (
    b"mcp-core requestState v1 core",
    b"mcp-core requestState v1 request",
    b"mcp-core requestState v1 principal",
)


class StateRejected(Exception):
    """A sealed ``requestState`` failed verification.

    The server should answer the request with a JSON-RPC error (``code``, Invalid
    params) and must not act on the state.

    Attributes:
        reason: one of "malformed" (not a token this module could have made),
            "bad signature" (altered, or sealed with a key we no longer hold),
            "wrong request" (sealed for a different request binding),
            "wrong principal" (sealed for a different principal), "expired",
            "replayed" (already opened through the replay guard),
            "store restarted" (sealed before the single-use store lost its
            memory, so its use cannot be checked) or
            "replay guard full" (the guard refused to track more tokens).
        code: the JSON-RPC error code to reply with.
    """

    code: int = INVALID_PARAMS

    def __init__(self, reason: str) -> None:
        super().__init__(f"requestState rejected: {reason}")
        self.reason = reason


def new_epoch() -> bytes:
    """A fresh random epoch, for a store that starts with an empty memory."""
    return secrets.token_bytes(EPOCH_SIZE)


class ReplayStore(Protocol):
    """What `StateSealer` needs to enforce single use; `ReplayGuard` is one.

    A server with several replicas implements this over shared storage.
    """

    def consume(self, nonce: bytes, expiry: float, *, now: float) -> bool:
        """Record ``nonce`` as used until ``expiry``; False if it already was.

        May raise `StateRejected` to refuse the token for its own reasons.
        """
        ...


class OnceStore(Protocol):
    """Single use over shared storage (several replicas): the asynchronous
    counterpart of `ReplayStore`, for a store that needs a network round trip.

    The sealer never calls it: the caller awaits `current_epoch` and seals it into the
    state (``StateSealer.seal(epoch=...)``); `StateSealer.verify` checks a token
    and returns its nonce, expiry and epoch, and the caller awaits `claim` with
    them (the core decides what to claim, the adapter does the I/O). A Redis
    backend is one script: compare the epoch key, then ``SET key 1 NX PX ttl``.
    """

    async def current_epoch(self, *, ttl: float) -> bytes:
        """The store's current epoch (`EPOCH_SIZE` bytes), kept at least
        ``ttl`` seconds more: a store that has none (it started empty, or lost
        its memory) takes a new random one."""
        ...

    async def claim(self, nonce: bytes, expiry: float, *, now: float, epoch: bytes) -> bool:
        """Record ``nonce`` as used until ``expiry``; False if it already was.

        Raises:
            StateRejected: "store restarted": ``epoch`` is not the store's
                current epoch (nothing is recorded).
        """
        ...


class Verified(NamedTuple):
    """A token that passed every check but single use (see `StateSealer.verify`)."""

    payload: bytes
    nonce: bytes
    expiry: float
    epoch: bytes


class ReplayGuard:
    """In-memory record of opened tokens, kept until each token expires.

    Args:
        max_entries: how many unexpired tokens to remember. Size it above the rate
            of single-use tokens times the sealer's ttl: the default of 100,000
            covers about 330 tokens a second at the default 300 s ttl, in about
            20 MB.

    When full of unexpired entries, `consume` fails closed: it raises
    ``StateRejected("replay guard full")`` rather than forgetting an entry. Forgetting
    would let that token be replayed until it expires; refusing only costs
    availability (the client can start the request over), and an attacker can only
    fill the guard with tokens the server sealed for them. The guard is per process;
    ``now`` must not go backwards, or an evicted token could become valid again.
    """

    __slots__ = ("_by_expiry", "_max_entries", "_seen")

    def __init__(self, max_entries: int = 100_000) -> None:
        if max_entries < 1:
            raise ValueError("max_entries must be at least 1")
        self._max_entries = max_entries
        self._seen: dict[bytes, float] = {}
        self._by_expiry: list[tuple[float, bytes]] = []

    def __len__(self) -> int:
        return len(self._seen)

    def consume(self, nonce: bytes, expiry: float, *, now: float) -> bool:
        """Record ``nonce`` as used until ``expiry``.

        Returns:
            True the first time a nonce is seen, False after that (until it expires).

        Raises:
            StateRejected: "replay guard full"; nothing is recorded.
        """
        by_expiry = self._by_expiry
        while by_expiry and by_expiry[0][0] <= now:
            del self._seen[heapq.heappop(by_expiry)[1]]
        if nonce in self._seen:
            return False
        if len(self._seen) >= self._max_entries:
            raise StateRejected("replay guard full")
        self._seen[nonce] = expiry
        heapq.heappush(by_expiry, (expiry, nonce))
        return True


class MemoryOnceStore(ReplayGuard):
    """A `ReplayGuard` with the `OnceStore` interface (one process), for code
    written against the shared interface. Its epoch is new in each store."""

    __slots__ = ("epoch",)

    def __init__(self, max_entries: int = 100_000) -> None:
        super().__init__(max_entries)
        #: Names this store's memory (see `OnceStore.current_epoch`).
        self.epoch = new_epoch()

    async def current_epoch(self, *, ttl: float) -> bytes:
        return self.epoch

    async def claim(self, nonce: bytes, expiry: float, *, now: float, epoch: bytes) -> bool:
        if epoch != self.epoch:
            raise StateRejected("store restarted")
        return self.consume(nonce, expiry, now=now)


def request_binding(method: str, name: str | None, arguments_digest_source: bytes = b"") -> str:
    """Identify the originating request for `StateSealer`.

    Args:
        method: the JSON-RPC method, e.g. "tools/call".
        name: the tool or prompt name or resource URI, or None.
        arguments_digest_source: canonical bytes of the parameters that matter, for
            example ``msgspec.json.encode(arguments, order="sorted")``. Only their
            SHA-256 digest is used.

    Returns:
        A stable string such as ``"tools/call|get_weather|sha256:<hex>"``. Distinct
        inputs give distinct strings ('|' and '%' are percent-encoded, and a None
        name is written "*", which a quoted name never is).
    """
    digest = hashlib.sha256(arguments_digest_source).hexdigest()
    name_part = "*" if name is None else quote(name, safe="")
    return f"{quote(method, safe='/')}|{name_part}|sha256:{digest}"


def _derive(key: bytes) -> tuple[bytes, bytes, bytes]:
    core, request, principal = (hmac.digest(key, label, "sha256") for label in _LABELS)
    return core, request, principal


def _tag(key: bytes, message: bytes) -> bytes:
    return hmac.digest(key, message, "sha256")[:_TAG_SIZE]


def _principal_bytes(principal: str | None) -> bytes:
    return b"\x00" if principal is None else b"\x01" + principal.encode("utf-8")


def _check_now(now: float) -> None:
    if not math.isfinite(now):
        raise ValueError(f"now must be a finite number of seconds, not {now!r}")


class StateSealer:
    """Seals and opens ``requestState`` tokens.

    Args:
        key: the HMAC key, at least 32 bytes (e.g. ``secrets.token_bytes(32)``).
        ttl: seconds a token stays valid. The default of 300 s gives a user time to
            answer an elicitation; MRTR asks for a "short expiry", so lower it when
            the input requests are automatic.
        old_keys: keys that `open` still accepts, for rotation; `seal` never uses
            them.
        replay_guard: if given, every token opens at most once.

    Raises:
        ValueError: a key is shorter than 32 bytes, or ttl is not a positive number.
    """

    __slots__ = ("_keys", "_replay_guard", "_ttl")

    def __init__(
        self,
        key: bytes,
        *,
        ttl: float = 300.0,
        old_keys: Sequence[bytes] = (),
        replay_guard: ReplayStore | None = None,
    ) -> None:
        for candidate in (key, *old_keys):
            if len(candidate) < _MIN_KEY_SIZE:
                raise ValueError(f"sealing keys must be at least {_MIN_KEY_SIZE} bytes")
        if not (math.isfinite(ttl) and ttl > 0):
            raise ValueError(f"ttl must be a positive number of seconds, not {ttl!r}")
        self._keys = [_derive(bytes(candidate)) for candidate in (key, *old_keys)]
        self._ttl = float(ttl)
        self._replay_guard = replay_guard

    @property
    def ttl(self) -> float:
        """Seconds a sealed token stays valid."""
        return self._ttl

    @property
    def replay_guard(self) -> ReplayStore | None:
        """The guard `open` consumes nonces in, if any."""
        return self._replay_guard

    @property
    def fingerprint(self) -> str:
        """A public name of the sealing key (the first of the keyring): replicas
        that seal with different keys have different fingerprints, which a
        deployment compares at start. It reveals nothing of the key (an HMAC of a
        fixed label under a key derived for this use only)."""
        return _tag(self._keys[0][0], _FINGERPRINT_LABEL).hex()

    def seal(
        self,
        payload: bytes,
        *,
        now: float,
        request_binding: str,
        principal: str | None = None,
        epoch: bytes | None = None,
    ) -> str:
        """Seal ``payload`` for one request and principal.

        Args:
            payload: the server's state, carried readable but tamper-proof.
            now: the current wall-clock time in seconds; the token expires at
                ``now + ttl``.
            request_binding: from `request_binding`; `open` must get the same.
            principal: the authenticated principal, or None when there is none;
                `open` must get the same.
            epoch: the current epoch of the `OnceStore` that will claim the
                state (`OnceStore.current_epoch`); None seals `NO_EPOCH`, for a
                state opened with `open` (the in-process replay guard, whose
                memory is the process's: no epoch to compare).

        Returns:
            A URL-safe ASCII token (unpadded base64url) for ``requestState``.

        Raises:
            ValueError: ``now`` is not finite, or ``epoch`` is not `EPOCH_SIZE`
                bytes.
        """
        _check_now(now)
        if epoch is None:
            epoch = NO_EPOCH
        if len(epoch) != EPOCH_SIZE:
            raise ValueError(f"an epoch is {EPOCH_SIZE} bytes, not {len(epoch)}")
        core_key, request_key, principal_key = self._keys[0]
        header = bytes([_VERSION]) + secrets.token_bytes(_NONCE_SIZE)
        body = header + _EXPIRY.pack(now + self._ttl) + bytes(epoch) + bytes(payload)
        core = _tag(core_key, body)
        sealed = (
            body
            + core
            + _tag(request_key, core + request_binding.encode("utf-8"))
            + _tag(principal_key, core + _principal_bytes(principal))
        )
        return base64.urlsafe_b64encode(sealed).rstrip(b"=").decode("ascii")

    def verify(
        self,
        token: str,
        *,
        now: float,
        request_binding: str,
        principal: str | None = None,
    ) -> Verified:
        """Every check of `open` but single use: the caller claims the returned
        nonce in its own (shared, asynchronous) `OnceStore`, until the expiry,
        under the returned epoch.

        Raises:
            StateRejected: as `open`, never "replayed".
            ValueError: ``now`` is not finite.
        """
        _check_now(now)
        sealed = _decode(token)
        body = sealed[: -3 * _TAG_SIZE]
        core = sealed[-3 * _TAG_SIZE : -2 * _TAG_SIZE]
        keys = next((k for k in self._keys if hmac.compare_digest(_tag(k[0], body), core)), None)
        if keys is None:
            raise StateRejected("bad signature")
        _, request_key, principal_key = keys
        binding_tag = _tag(request_key, core + request_binding.encode("utf-8"))
        if not hmac.compare_digest(binding_tag, sealed[-2 * _TAG_SIZE : -_TAG_SIZE]):
            raise StateRejected("wrong request")
        principal_tag = _tag(principal_key, core + _principal_bytes(principal))
        if not hmac.compare_digest(principal_tag, sealed[-_TAG_SIZE:]):
            raise StateRejected("wrong principal")
        (expiry,) = _EXPIRY.unpack_from(body, 1 + _NONCE_SIZE)
        if now >= expiry:
            raise StateRejected("expired")
        return Verified(
            body[_HEADER_SIZE:], body[1 : 1 + _NONCE_SIZE], expiry, body[_EPOCH_AT:_HEADER_SIZE]
        )

    def open(
        self,
        token: str,
        *,
        now: float,
        request_binding: str,
        principal: str | None = None,
    ) -> bytes:
        """Verify ``token`` and return its payload.

        Checks, in order: the token's form, the signature (with the current key,
        then each old key), the request binding, the principal, the expiry, and
        finally the replay guard, so a token is only
        consumed once it is otherwise valid.

        Args:
            token: the ``requestState`` the client sent back; any value is safe.
            now: the current wall-clock time in seconds.
            request_binding: the binding of the request the token came with.
            principal: the authenticated principal of that request, or None.

        Returns:
            The payload given to `seal`.

        Raises:
            StateRejected: the token must not be used; ``reason`` says why. The
                sealer and the guard are unchanged, except after a successful open.
            ValueError: ``now`` is not finite.
        """
        verified = self.verify(token, now=now, request_binding=request_binding, principal=principal)
        guard = self._replay_guard
        if guard is not None and not guard.consume(verified.nonce, verified.expiry, now=now):
            raise StateRejected("replayed")
        return verified.payload


def _decode(token: object) -> bytes:
    """The raw bytes of a token in canonical form, or StateRejected("malformed")."""
    if not isinstance(token, str) or not _TOKEN_CHARS.fullmatch(token):
        raise StateRejected("malformed")
    try:
        sealed = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
    except binascii.Error:
        raise StateRejected("malformed") from None
    # One spelling per token: reject leftover bits in the last character.
    if base64.urlsafe_b64encode(sealed).rstrip(b"=") != token.encode("ascii"):
        raise StateRejected("malformed")
    if len(sealed) < _MIN_SIZE or sealed[0] != _VERSION:
        raise StateRejected("malformed")
    return sealed
