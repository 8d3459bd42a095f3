"""Sealing of the MRTR requestState: round trips, tampering, binding, expiry, replay."""

from __future__ import annotations

import base64
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mcp_core.server.request_state import (
    EPOCH_SIZE,
    NO_EPOCH,
    ReplayGuard,
    StateRejected,
    StateSealer,
    request_binding,
)
from mcp_core.wire.errors import INVALID_PARAMS

KEY = bytes(range(32))
OTHER_KEY = bytes(range(1, 33))
NOW = 1_700_000_000.0
BINDING = request_binding("tools/call", "get_weather", b'{"city":"Paris"}')


def _raw(token: str) -> bytearray:
    return bytearray(base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)))


def _token(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def _reason(sealer: StateSealer, token: str, **overrides: object) -> str:
    arguments: dict[str, object] = {"now": NOW, "request_binding": BINDING, "principal": "alice"}
    arguments.update(overrides)
    with pytest.raises(StateRejected) as caught:
        sealer.open(token, **arguments)  # type: ignore[arg-type]
    assert str(caught.value) == f"requestState rejected: {caught.value.reason}"
    return caught.value.reason


def test_round_trip() -> None:
    sealer = StateSealer(KEY)
    token = sealer.seal(b"step 2 of 3", now=NOW, request_binding=BINDING, principal="alice")
    assert token.isascii()
    assert set(token) <= set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
    opened = sealer.open(token, now=NOW + 1, request_binding=BINDING, principal="alice")
    assert opened == b"step 2 of 3"
    # Without a guard the same token opens again.
    assert sealer.open(token, now=NOW + 2, request_binding=BINDING, principal="alice") == (
        b"step 2 of 3"
    )


@given(st.binary(max_size=300), st.one_of(st.none(), st.text(max_size=20)), st.text(max_size=40))
def test_round_trip_any_payload(payload: bytes, principal: str | None, binding: str) -> None:
    sealer = StateSealer(KEY)
    token = sealer.seal(payload, now=NOW, request_binding=binding, principal=principal)
    assert sealer.open(token, now=NOW, request_binding=binding, principal=principal) == payload


def test_tokens_are_unique_and_payload_is_readable() -> None:
    sealer = StateSealer(KEY)
    first = sealer.seal(b"secret?", now=NOW, request_binding=BINDING)
    second = sealer.seal(b"secret?", now=NOW, request_binding=BINDING)
    assert first != second  # random nonce
    # Integrity only, not confidentiality: the payload is in the clear.
    assert b"secret?" in _raw(first)
    assert _raw(first)[0] == 2  # the layout with an epoch


def test_the_epoch_is_sealed_and_returned_by_verify() -> None:
    # The single-use store's epoch travels in the state, under the core tag
    # (any change of it is "bad signature", see the tampering test), so a
    # store that lost its memory recognises states sealed before.
    sealer = StateSealer(KEY)
    epoch = bytes(range(100, 100 + EPOCH_SIZE))
    token = sealer.seal(b"p", now=NOW, request_binding=BINDING, epoch=epoch)
    verified = sealer.verify(token, now=NOW, request_binding=BINDING)
    assert (verified.payload, verified.epoch) == (b"p", epoch)
    plain = sealer.seal(b"p", now=NOW, request_binding=BINDING)
    assert sealer.verify(plain, now=NOW, request_binding=BINDING).epoch == NO_EPOCH
    with pytest.raises(ValueError, match="epoch"):
        sealer.seal(b"p", now=NOW, request_binding=BINDING, epoch=b"short")


def test_payload_types() -> None:
    sealer = StateSealer(KEY)
    token = sealer.seal(bytearray(b"ab"), now=NOW, request_binding=BINDING)
    assert sealer.open(token, now=NOW, request_binding=BINDING) == b"ab"
    with pytest.raises(TypeError):
        sealer.seal("text", now=NOW, request_binding=BINDING)  # type: ignore[arg-type]


def test_tampering_any_byte_is_rejected() -> None:
    sealer = StateSealer(KEY)
    token = sealer.seal(b"payload", now=NOW, request_binding=BINDING, principal="alice")
    raw = _raw(token)
    size = len(raw)
    reasons = set()
    for index in range(size):
        for flip in (0x01, 0x80):
            changed = bytearray(raw)
            changed[index] ^= flip
            reason = _reason(sealer, _token(bytes(changed)))
            if index == 0:
                assert reason == "malformed"  # unknown version
            elif index < size - 32:
                assert reason == "bad signature"  # header, payload, core tag
            elif index < size - 16:
                assert reason == "wrong request"
            else:
                assert reason == "wrong principal"
            reasons.add(reason)
    assert reasons == {"malformed", "bad signature", "wrong request", "wrong principal"}


def test_truncation_and_extension_are_rejected() -> None:
    sealer = StateSealer(KEY)
    token = sealer.seal(b"payload", now=NOW, request_binding=BINDING, principal="alice")
    raw = bytes(_raw(token))
    for cut in range(1, len(raw)):
        assert _reason(sealer, _token(raw[:cut])) in {"malformed", "bad signature"}
    assert _reason(sealer, _token(raw + b"\x00")) == "bad signature"
    assert _reason(sealer, _token(raw[:41] + raw[-48:])) == "bad signature"  # no payload


def test_wrong_binding() -> None:
    sealer = StateSealer(KEY)
    token = sealer.seal(b"p", now=NOW, request_binding=BINDING, principal="alice")
    other = request_binding("tools/call", "get_weather", b'{"city":"Oslo"}')
    assert _reason(sealer, token, request_binding=other) == "wrong request"
    assert _reason(sealer, token, request_binding="") == "wrong request"


def test_wrong_principal() -> None:
    sealer = StateSealer(KEY)
    token = sealer.seal(b"p", now=NOW, request_binding=BINDING, principal="alice")
    assert _reason(sealer, token, principal="mallory") == "wrong principal"
    assert _reason(sealer, token, principal=None) == "wrong principal"
    anonymous = sealer.seal(b"p", now=NOW, request_binding=BINDING)
    assert _reason(sealer, anonymous, principal="") == "wrong principal"
    assert sealer.open(anonymous, now=NOW, request_binding=BINDING) == b"p"


def test_tags_cannot_be_moved_between_tokens() -> None:
    sealer = StateSealer(KEY)
    mine = _raw(sealer.seal(b"p", now=NOW, request_binding=BINDING, principal="alice"))
    theirs = _raw(sealer.seal(b"q", now=NOW, request_binding="other", principal="bob"))
    # Mallory holds a token for another request and principal, and one of her own
    # whose binding tags she copies onto it.
    forged = theirs[:-32] + mine[-32:]
    assert _reason(sealer, _token(bytes(forged))) == "wrong request"


def test_expiry_boundary() -> None:
    sealer = StateSealer(KEY, ttl=60.0)
    assert sealer.ttl == 60.0
    token = sealer.seal(b"p", now=NOW, request_binding=BINDING, principal="alice")
    opened = sealer.open(
        token, now=math.nextafter(NOW + 60.0, 0.0), request_binding=BINDING, principal="alice"
    )
    assert opened == b"p"
    assert _reason(sealer, token, now=NOW + 60.0) == "expired"
    assert _reason(sealer, token, now=NOW + 1e9) == "expired"


def test_default_ttl() -> None:
    sealer = StateSealer(KEY)
    assert sealer.ttl == 300.0
    token = sealer.seal(b"p", now=NOW, request_binding=BINDING, principal="alice")
    assert _reason(sealer, token, now=NOW + 300.0) == "expired"


def test_replay_guard() -> None:
    guard = ReplayGuard()
    sealer = StateSealer(KEY, replay_guard=guard)
    token = sealer.seal(b"p", now=NOW, request_binding=BINDING, principal="alice")
    # Failed opens do not consume the token.
    assert _reason(sealer, token, principal="mallory") == "wrong principal"
    assert len(guard) == 0
    assert sealer.open(token, now=NOW, request_binding=BINDING, principal="alice") == b"p"
    assert len(guard) == 1
    assert _reason(sealer, token, now=NOW + 1) == "replayed"
    # Other tokens are unaffected.
    second = sealer.seal(b"p", now=NOW, request_binding=BINDING, principal="alice")
    assert sealer.open(second, now=NOW, request_binding=BINDING, principal="alice") == b"p"
    # After expiry the token is rejected as expired and the guard forgets it.
    assert _reason(sealer, token, now=NOW + 300) == "expired"
    third = sealer.seal(b"p", now=NOW + 300, request_binding=BINDING, principal="alice")
    assert sealer.open(third, now=NOW + 300, request_binding=BINDING, principal="alice") == b"p"
    assert len(guard) == 1


def test_replay_guard_fails_closed_when_full() -> None:
    guard = ReplayGuard(max_entries=2)
    assert guard.consume(b"a", 10.0, now=0.0)
    assert guard.consume(b"b", 20.0, now=0.0)
    assert not guard.consume(b"a", 10.0, now=5.0)
    with pytest.raises(StateRejected) as caught:
        guard.consume(b"c", 30.0, now=5.0)
    assert caught.value.reason == "replay guard full"
    assert len(guard) == 2
    # Once "a" expires there is room again, and "a" is forgotten.
    assert guard.consume(b"c", 30.0, now=10.0)
    assert guard.consume(b"a", 40.0, now=20.0)
    assert len(guard) == 2


def test_replay_guard_full_through_sealer() -> None:
    sealer = StateSealer(KEY, replay_guard=ReplayGuard(max_entries=1))
    first = sealer.seal(b"1", now=NOW, request_binding=BINDING)
    second = sealer.seal(b"2", now=NOW, request_binding=BINDING)
    assert sealer.open(first, now=NOW, request_binding=BINDING) == b"1"
    with pytest.raises(StateRejected, match="replay guard full"):
        sealer.open(second, now=NOW, request_binding=BINDING)


def test_replay_guard_validates_size() -> None:
    with pytest.raises(ValueError):
        ReplayGuard(max_entries=0)


def test_key_rotation() -> None:
    old = StateSealer(OTHER_KEY)
    token = old.seal(b"p", now=NOW, request_binding=BINDING, principal="alice")
    new = StateSealer(KEY)
    assert _reason(new, token) == "bad signature"
    rotated = StateSealer(KEY, old_keys=[OTHER_KEY])
    assert rotated.open(token, now=NOW, request_binding=BINDING, principal="alice") == b"p"
    # The old key still binds the request and principal.
    assert _reason(rotated, token, principal="bob") == "wrong principal"
    # New tokens use the current key only.
    fresh = rotated.seal(b"q", now=NOW, request_binding=BINDING, principal="alice")
    assert new.open(fresh, now=NOW, request_binding=BINDING, principal="alice") == b"q"
    assert _reason(old, fresh) == "bad signature"


@pytest.mark.parametrize(
    "arguments",
    [
        {"key": b"short"},
        {"key": bytes(31)},
        {"key": KEY, "old_keys": [bytes(8)]},
        {"key": KEY, "ttl": 0.0},
        {"key": KEY, "ttl": -1.0},
        {"key": KEY, "ttl": math.inf},
        {"key": KEY, "ttl": math.nan},
    ],
)
def test_constructor_validation(arguments: dict[str, object]) -> None:
    with pytest.raises(ValueError):
        StateSealer(**arguments)  # type: ignore[arg-type]


@pytest.mark.parametrize("now", [math.nan, math.inf, -math.inf])
def test_now_must_be_finite(now: float) -> None:
    sealer = StateSealer(KEY)
    token = sealer.seal(b"p", now=NOW, request_binding=BINDING)
    with pytest.raises(ValueError):
        sealer.seal(b"p", now=now, request_binding=BINDING)
    with pytest.raises(ValueError):
        sealer.open(token, now=now, request_binding=BINDING)


@pytest.mark.parametrize(
    "token",
    [
        "",
        "A",
        "AA==",
        "not base64!",
        "AAAA\n",
        "ÄÄÄÄ",
        "=" * 120,
        "A" * 97,
        "A" * 200,  # right charset and length, version byte 0
    ],
)
def test_garbage_tokens(token: str) -> None:
    assert _reason(StateSealer(KEY), token) == "malformed"


def test_non_string_token() -> None:
    assert _reason(StateSealer(KEY), b"AAAA") == "malformed"  # type: ignore[arg-type]
    assert _reason(StateSealer(KEY), None) == "malformed"  # type: ignore[arg-type]


def test_non_canonical_spelling_is_rejected() -> None:
    sealer = StateSealer(KEY)
    token = sealer.seal(b"pq", now=NOW, request_binding=BINDING, principal="alice")
    assert len(token) % 4 != 0  # the last character has spare bits
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    last = alphabet.index(token[-1])
    respelled = token[:-1] + alphabet[last | 1]
    assert respelled != token
    assert _reason(sealer, respelled) == "malformed"
    assert _reason(sealer, token + "==") == "malformed"


def test_rejected_carries_wire_code() -> None:
    error = StateRejected("expired")
    assert error.code == INVALID_PARAMS
    assert error.reason == "expired"


@given(st.text(max_size=200))
def test_arbitrary_text_is_payload_or_rejected(token: str) -> None:
    sealer = StateSealer(KEY, replay_guard=ReplayGuard())
    try:
        payload = sealer.open(token, now=NOW, request_binding=BINDING, principal="alice")
    except StateRejected as error:
        assert error.reason in {"malformed", "bad signature"}
    else:  # pragma: no cover - would mean a forged HMAC
        raise AssertionError(f"forged token accepted: {payload!r}")


@given(st.binary(min_size=89, max_size=200))
def test_arbitrary_well_formed_bytes_are_rejected(raw: bytes) -> None:
    token = _token(b"\x02" + raw[1:])
    assert _reason(StateSealer(KEY), token) == "bad signature"


@given(st.data())
def test_mutated_tokens_are_rejected(data: st.DataObject) -> None:
    sealer = StateSealer(KEY)
    token = sealer.seal(b"payload", now=NOW, request_binding=BINDING, principal="alice")
    index = data.draw(st.integers(0, len(token) - 1))
    replacement = data.draw(st.characters(codec="utf-8"))
    mutated = token[:index] + replacement + token[index + 1 :]
    if mutated == token:
        return
    assert _reason(sealer, mutated) in {
        "malformed",
        "bad signature",
        "wrong request",
        "wrong principal",
    }


def test_request_binding() -> None:
    digest = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    assert request_binding("tools/call", "add") == f"tools/call|add|sha256:{digest}"
    assert request_binding("tools/call", None) == f"tools/call|*|sha256:{digest}"
    assert request_binding("resources/read", "file:///a|b") == (
        f"resources/read|file%3A%2F%2F%2Fa%7Cb|sha256:{digest}"
    )
    distinct = {
        request_binding("tools/call", None),
        request_binding("tools/call", ""),
        request_binding("tools/call", "*"),
        request_binding("tools/call", "a|b"),
        request_binding("tools/call|a", "b"),
        request_binding("tools/call", "add", b"1"),
        request_binding("tools/call", "add", b"2"),
        request_binding("prompts/get", "add"),
    }
    assert len(distinct) == 8
