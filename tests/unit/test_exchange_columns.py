"""A captured exchange keeps its reads and frames as columns: what it gives back is
what went in, and a long answer leaves no per-frame objects for the garbage collector to walk."""

from __future__ import annotations

import gc
from typing import Any

import pytest

from app.providers.capture import ExchangeCapture
from app.wire.engine import Api, StreamEngine
from app.wire.events import ReasoningDelta, TextDelta, ToolCallStart, Usage
from app.wire.exchange import WireFrame, WireFrames, WireRead, WireReads
from app.wire.sse import Comment, Frame


def test_frames_come_back_as_they_went_in() -> None:
    frames = WireFrames()
    sent = [
        WireFrame(1.5, "", '{"a": 1}', 14, 0, (TextDelta("hello"),)),
        WireFrame(2.0, None, " keepalive", 11, 0, ()),
        WireFrame(2.5, "delta", "{}", 20, 1, (ReasoningDelta("hmm"),)),
        WireFrame(3.0, "x", "{}", 9, 2, (ToolCallStart(0, "c1", "f"), Usage(1, 2))),
        WireFrame(3.5, "", "{}", 9, 2, (TextDelta("a"), TextDelta("b"))),
    ]
    for frame in sent:
        frames.append(frame)
    assert len(frames) == len(sent)
    assert list(frames) == sent
    assert frames[-1] == sent[-1]
    assert frames[1:3] == sent[1:3]
    with pytest.raises(IndexError):
        frames[len(sent)]


def test_reads_come_back_as_they_went_in() -> None:
    reads = WireReads()
    for at, data in [(0.5, b"data: 1\n"), (1.0, b""), (2.0, b"\xff\x00 raw")]:
        reads.add(at, data)
    assert list(reads) == [
        WireRead(0.5, b"data: 1\n"),
        WireRead(1.0, b""),
        WireRead(2.0, b"\xff\x00 raw"),
    ]
    assert reads[-1].data == b"\xff\x00 raw"
    assert reads.joined() == b"data: 1\n\xff\x00 raw"


def test_a_long_capture_holds_no_object_per_frame() -> None:
    capture = ExchangeCapture("POST", "http://x/v1/chat/completions", {}, {})
    engine = StreamEngine(Api.CHAT)
    engine.tap = capture.tap
    for n in range(3000):
        piece = b'data: {"choices":[{"index":0,"delta":{"content":"w%d "}}]}\n\n' % n
        capture.data(piece)
        engine.feed(piece)
    exchange = capture.exchange
    assert len(exchange.frames) == 3000
    assert len(exchange.reads) == 3000
    assert exchange.frames[2999].events == (TextDelta("w2999 "),)
    gc.collect()
    held = [o for o in gc.get_referents(exchange.frames, exchange.reads) if gc.is_tracked(o)]
    # The columns themselves (arrays, lists of strings, one dict), never one object per frame.
    assert len(held) < 16
    kept = sum(1 for o in gc.get_objects() if type(o) in (WireFrame, WireRead, TextDelta))
    assert kept < 100


def _captured(pieces: list[bytes], secrets: tuple[str, ...] = ()) -> tuple[list[str], WireFrames]:
    """The data the SSE reader gave each item, and the frames the capture kept of them."""
    capture = ExchangeCapture("POST", "http://x/v1/chat/completions", {}, {}, secrets)
    engine = StreamEngine(Api.CHAT)
    given: list[str] = []

    def tap(item: Frame | Comment, out: list[Any], start: int) -> None:
        given.append(item.text if isinstance(item, Comment) else item.data)
        capture.tap(item, out, start)

    engine.tap = tap
    for piece in pieces:
        capture.data(piece)
        engine.feed(piece)
    return given, capture.exchange.frames


def test_data_found_in_the_reads_is_kept_as_a_place_and_comes_back_the_same() -> None:
    """The frames' copy of the body: decoded again from the reads, not held twice."""
    delta = b'data: {"choices":[{"index":0,"delta":{"content":"w%d \\u00e9\xc3\xa9"}}]}\n\n'
    pieces = [delta % n for n in range(200)]
    pieces[50:52] = [pieces[50] + pieces[51]]  # two frames in one read
    pieces[60] = pieces[60][:17]  # a frame split across reads
    pieces[61] = (delta % 60)[17:]
    given, frames = _captured(pieces)
    assert [frame.data for frame in frames] == given
    assert len(frames._data) == 0  # every data was found: no string of its own


def test_data_not_in_the_reads_as_given_is_kept_as_text() -> None:
    pieces = [
        b": a comment\r\n\r\n",
        b'data: {"choices":[{"index":0,\ndata: "delta":{"content":"two lines"}}]}\n\n',
        b'data: {"choices":[{"index":0,"delta":{"content":"bad \xff byte"}}]}\n\n',
        b'data: {"choices":[{"index":0,"delta":{"content":"key sk-secret-123456"}}]}\n\n',
        b'data: {"choices":[{"index":0,"delta":{"content":"plain"}}]}\n\n',
        b"data: [DONE]\n\n",
    ]
    given, frames = _captured(pieces, secrets=("sk-secret-123456",))
    data = [frame.data for frame in frames]
    assert data[:3] == given[:3]
    assert "sk-secret" not in data[3]  # redacted, as the read it is found in
    assert data[4:] == given[4:]
    assert set(frames._data) == {1, 2}  # the multi-line data and the one not UTF-8
