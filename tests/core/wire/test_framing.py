from __future__ import annotations

from collections.abc import Iterator

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mcp_core.wire.framing import (
    DEFAULT_MAX_LINE_BYTES,
    HEAD_BYTES,
    LineFramer,
    LineTooLong,
    frame,
)

Output = list[bytes | LineTooLong]


def splittings(data: bytes) -> Iterator[list[bytes]]:
    """Whole, byte by byte, and at every 2-way split point."""
    yield [data]
    yield [data[i : i + 1] for i in range(len(data))]
    for i in range(len(data) + 1):
        yield [data[:i], data[i:]]


def run(chunks: list[bytes], cap: int = DEFAULT_MAX_LINE_BYTES) -> Output:
    framer = LineFramer(cap)
    out: Output = []
    for chunk in chunks:
        out += framer.feed(chunk)
        assert framer.buffered_bytes <= cap + 1
    out += framer.close()
    assert framer.buffered_bytes == 0
    return out


def reference(data: bytes, cap: int) -> Output:
    """A non-incremental model of the framing rules."""
    pieces = data.split(b"\n")
    out: Output = []
    for piece in pieces:
        if piece.endswith(b"\r"):
            piece = piece[:-1]
        if len(piece) > cap:
            out.append(LineTooLong(cap + 1, piece[: min(HEAD_BYTES, cap + 1)]))
        elif piece.strip(b" \t\n\r\x0b\x0c"):
            out.append(piece)
    return out


def too_long(head: bytes = b"abcde") -> LineTooLong:
    """The marker for cap 4: its head is the line's first 5 bytes."""
    return LineTooLong(5, head)


TOO_LONG = too_long()

CASES: list[tuple[bytes, int, Output]] = [
    (b'{"a":1}\n', 100, [b'{"a":1}']),
    (b'{"a":1}\n{"b":2}\n', 100, [b'{"a":1}', b'{"b":2}']),
    (b"a\r\nb\r\n", 100, [b"a", b"b"]),
    (b"a\nb\r\nc\n", 100, [b"a", b"b", b"c"]),
    (b"\n\n\r\n  \t\n\x0b\x0c\na\n\n", 100, [b"a"]),
    (b"a\nlast", 100, [b"a", b"last"]),
    (b"last\r", 100, [b"last"]),
    (b"a\rb\n", 100, [b"a\rb"]),  # only a \r right before the \n is stripped
    (b"a\r\r\n", 100, [b"a\r"]),
    (b" a \n", 100, [b" a "]),  # other whitespace is the JSON parser's business
    (b"", 100, []),
    # Cap 4: the limit counts message bytes only, not the \n or a stripped \r.
    (b"abcd\n", 4, [b"abcd"]),
    (b"abcd\r\n", 4, [b"abcd"]),
    (b"abcd", 4, [b"abcd"]),
    (b"abcd\r", 4, [b"abcd"]),
    (b"abcde\n", 4, [TOO_LONG]),
    (b"abcde\r\n", 4, [TOO_LONG]),
    (b"abcd\r\r\n", 4, [too_long(b"abcd\r")]),
    (b"abcd\rX\n", 4, [too_long(b"abcd\r")]),
    (b"abcde", 4, [TOO_LONG]),
    (b"abcdefghijklmnop\nok\n", 4, [TOO_LONG, b"ok"]),
    (b"a\nabcdefghij\r\nb\nabcdefg", 4, [b"a", TOO_LONG, b"b", TOO_LONG]),
    (b"      \n", 4, [too_long(b"     ")]),  # too long is decided before blankness
]


@pytest.mark.parametrize(("data", "cap", "expected"), CASES)
def test_cases_however_split(data: bytes, cap: int, expected: Output) -> None:
    assert reference(data, cap) == expected
    for chunks in splittings(data):
        assert run(chunks, cap) == expected, chunks


def test_fast_path_returns_lines_and_keeps_tail() -> None:
    framer = LineFramer()
    assert framer.feed(b'{"a":1}\n{"b":2}\n{"c"') == [b'{"a":1}', b'{"b":2}']
    assert framer.buffered_bytes == 4
    assert framer.feed(b":3}\n") == [b'{"c":3}']
    assert framer.buffered_bytes == 0


def test_accepts_bytearray_and_memoryview() -> None:
    framer = LineFramer()
    assert framer.feed(bytearray(b"a\nb")) == [b"a"]
    assert framer.feed(memoryview(b"\n")) == [b"b"]


def test_marker_is_emitted_before_the_line_ends() -> None:
    framer = LineFramer(4)
    assert framer.feed(b"abcd") == []
    assert framer.feed(b"e") == [TOO_LONG]
    assert framer.buffered_bytes == 0
    assert framer.feed(b"more junk") == []
    assert framer.feed(b"\nok\n") == [b"ok"]


def test_pending_cr_at_cap_plus_one_waits_for_next_byte() -> None:
    framer = LineFramer(4)
    assert framer.feed(b"abcd\r") == []
    assert framer.buffered_bytes == 5
    assert framer.feed(b"\n") == [b"abcd"]


def test_huge_line_keeps_memory_bounded_and_resyncs() -> None:
    framer = LineFramer()
    chunk = b"x" * 65536
    out: Output = []
    for _ in range(200 * 16):  # 200 MiB in 64 KiB chunks
        out += framer.feed(chunk)
        assert framer.buffered_bytes <= DEFAULT_MAX_LINE_BYTES + 1
    assert out == [LineTooLong(DEFAULT_MAX_LINE_BYTES + 1, b"x" * HEAD_BYTES)]
    assert framer.buffered_bytes == 0
    assert framer.feed(chunk + b'\n{"ok":true}\n') == [b'{"ok":true}']


def test_close_resets() -> None:
    framer = LineFramer(4)
    framer.feed(b"abcdefg")
    assert framer.close() == []
    assert framer.feed(b"ab\n") == [b"ab"]
    assert framer.close() == []


def test_properties_and_validation() -> None:
    assert LineFramer().max_line_bytes == DEFAULT_MAX_LINE_BYTES == 4 * 1024 * 1024
    with pytest.raises(ValueError):
        LineFramer(0)


def test_frame() -> None:
    assert frame(b'{"jsonrpc":"2.0"}') == b'{"jsonrpc":"2.0"}\n'
    for bad in (b"a\nb", b"a\rb", b"\n"):
        with pytest.raises(ValueError):
            frame(bad)


def test_frame_round_trips_through_framer() -> None:
    messages = [b'{"id":%d}' % i for i in range(50)]
    stream = b"".join(frame(m) for m in messages)
    assert run([stream]) == messages
    assert run([stream[i : i + 7] for i in range(0, len(stream), 7)]) == messages


stream_bytes = st.one_of(
    st.binary(max_size=64),
    st.lists(st.sampled_from([b"\n", b"\r", b"\r\n", b" ", b"\t", b"a", b"{}", b"xyz"])).map(
        b"".join
    ),
)


@given(data=stream_bytes, cap=st.integers(1, 8), cuts=st.lists(st.integers(0, 200)))
def test_any_split_matches_reference(data: bytes, cap: int, cuts: list[int]) -> None:
    points = sorted({min(c, len(data)) for c in cuts})
    chunks = [data[a:b] for a, b in zip([0, *points], [*points, len(data)], strict=True)]
    out = run(chunks, cap)
    assert out == reference(data, cap)
    for item in out:
        if isinstance(item, bytes):
            assert b"\n" not in item
            assert 0 < len(item) <= cap
        else:
            assert item.size_hint == cap + 1
