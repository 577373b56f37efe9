"""The SSE reader's work per read is bounded: a huge read is taken in slices
with the same frames as any other split, and a run of bytes with no frame or comment at all
ends the stream, deciding the same way however the network split it."""

from __future__ import annotations

import pytest

from app.wire.sse import Comment, EventTooLarge, Frame, SSEReader


def read(pieces: list[bytes], eventless: int) -> list[Frame | Comment] | str:
    reader = SSEReader(max_eventless_bytes=eventless)
    out: list[Frame | Comment] = []
    try:
        for piece in pieces:
            out += reader.feed(piece)
    except EventTooLarge as exc:
        return f"stopped (eventless={exc.eventless}) after {out + exc.frames}"
    return out


def splits(body: bytes) -> list[list[bytes]]:
    return [[body], [body[i : i + 1] for i in range(len(body))], [body[:37], body[37:]]]


@pytest.mark.parametrize(
    ("body", "stops"),
    [
        (b"\n" * 100, False),
        (b"\n" * 101, True),
        (b"data: a\n\n" + b"\n" * 100 + b"data: b\n\n", False),
        (b"data: a\n\n" + b"\n" * 101 + b"data: b\n\n", True),
        (b"\n" * 60 + b": ping\n" + b"\n" * 60, False),  # a comment is liveness
        (b"event: x\n\n" * 11, True),  # events that carry nothing count too
        (b" \t\n" * 40, True),
    ],
)
def test_bytes_without_any_event_stop_the_reader_the_same_way_for_any_split(
    body: bytes, stops: bool
) -> None:
    results = {str(read(pieces, 100)) for pieces in splits(body)}
    assert len(results) == 1
    result = results.pop()
    assert result.startswith("stopped") is stops
    if stops:
        assert result.startswith("stopped (eventless=True)")


def test_a_huge_read_gives_the_frames_small_reads_give() -> None:
    body = b"".join(b'data: {"n": %d}\n\n' % i for i in range(200_000))  # about 3.4 MiB
    assert len(body) > 3 << 20
    whole = read([body], 1 << 22)
    small = read([body[i : i + 4096] for i in range(0, len(body), 4096)], 1 << 22)
    assert isinstance(whole, list)
    assert whole == small
    assert len(whole) == 200_000
