"""The SSE reader on its own: WHATWG framing fed in arbitrary byte pieces."""

from __future__ import annotations

import time

import pytest

from app.wire.sse import Comment, EventTooLarge, Frame, SSEReader


def read(*pieces: bytes, limit: int = 1 << 20) -> list[Frame | Comment]:
    reader = SSEReader(limit)
    out: list[Frame | Comment] = []
    for piece in pieces:
        out += reader.feed(piece)
    return out


def frames(*pieces: bytes) -> list[tuple[str, str]]:
    return [(f.event, f.data) for f in read(*pieces) if isinstance(f, Frame)]


def test_several_events_in_one_read_and_one_event_over_many() -> None:
    assert frames(b"data: a\n\ndata: b\n\nevent: x\ndata: c\n\n") == [
        ("", "a"),
        ("", "b"),
        ("x", "c"),
    ]
    assert frames(b"event: x\nda", b"ta: hel", b"lo\n", b"\n") == [("x", "hello")]


def test_a_crlf_split_between_reads_is_one_line_end() -> None:
    # Counted as two line ends, the LF would be a blank line and split this into two events.
    assert frames(b"data: a\r", b"\ndata: b\r\n\r\n") == [("", "a\nb")]
    assert frames(b"data: a\r", b"\r") == [("", "a")]


@pytest.mark.parametrize("end", [b"\n", b"\r\n", b"\r"])
def test_every_line_end_spelling(end: bytes) -> None:
    assert frames(b"data: a" + end + b"data: b" + end + end + b"data: c" + end + end) == [
        ("", "a\nb"),
        ("", "c"),
    ]


def test_only_cr_and_lf_end_lines() -> None:
    text = "x\u2028y\u2029z\u0085w\x0bv\x0cu\x1c"
    assert frames(f"data: {text}\n\n".encode()) == [("", text)]


def test_a_utf8_character_split_between_reads() -> None:
    raw = "data: é世👋\n\n".encode()
    for cut in range(len(raw)):
        assert frames(raw[:cut], raw[cut:]) == [("", "é世👋")], cut


def test_one_leading_bom_is_stripped_even_when_split() -> None:
    assert frames(b"\xef", b"\xbb", b"\xbfdata: a\n\n") == [("", "a")]
    assert frames(b"\xef\xbb\xbfdata: a\n\n") == [("", "a")]
    # Only one: a second BOM makes the first line an unknown field name.
    assert frames(b"\xef\xbb\xbf\xef\xbb\xbfdata: a\n\ndata: b\n\n") == [("", "b")]
    # Not at offset 0: content.
    assert frames(b"data: \xef\xbb\xbfa\n\n") == [("", "\ufeffa")]


def test_comments_surface_as_comments() -> None:
    items = read(b": keepalive\n\n:ping\ndata: a\n\n")
    assert items == [Comment("keepalive"), Comment("ping"), Frame("", "a")]


def test_field_rules() -> None:
    assert frames(b"data:a\n\n") == [("", "a")]  # no space
    assert frames(b"data:  a\n\n") == [("", " a")]  # only one space stripped
    assert frames(b"Data: a\n\n") == []  # names are case-sensitive
    assert frames(b"data\n\n") == [("", "")]  # no colon: the field with an empty value
    assert frames(b"event\ndata: a\n\n") == [("", "a")]
    assert frames(b"retry: 10\nfoo: bar\ndata: a\n\n") == [("", "a")]


def test_no_dispatch_without_data_and_the_event_name_resets() -> None:
    assert frames(b"event: ping\n\nretry: 3\n\nid: 7\n\ndata: a\n\n") == [("", "a")]
    assert frames(b"event: x\n\ndata: a\n\n") == [("", "a")]


def test_id_persists_and_never_dispatches_alone() -> None:
    items = read(b"id: 1\ndata: a\n\n: ping\n\nid: 2\n\ndata: b\n\nid: x\x00y\ndata: c\n\n")
    assert [(f.id, f.data) for f in items if isinstance(f, Frame)] == [
        ("1", "a"),
        ("2", "b"),
        ("2", "c"),  # an id containing NUL is ignored
    ]


def test_invalid_utf8_is_replaced() -> None:
    assert frames(b"event: \xff\ndata: caf\xc3\n\n") == [("\ufffd", "caf\ufffd")]


def test_a_line_of_blanks_ends_an_event_like_an_empty_line() -> None:
    # The Kimi page shows its frames separated by " " lines.
    assert frames(b"data: a\n \ndata: b\n\t \n") == [("", "a"), ("", "b")]


def test_close_reports_an_unterminated_event_and_unterminated_reads_it() -> None:
    reader = SSEReader()
    assert reader.feed(b"data: a\n\nevent: end\ndata: b") == [Frame("", "a")]
    assert reader.unterminated() == Frame("end", "b")
    assert reader.close() is True
    clean = SSEReader()
    clean.feed(b"data: a\n\n")
    assert clean.unterminated() is None
    assert clean.close() is False


def test_unterminated_leaves_the_reader_unchanged() -> None:
    reader = SSEReader()
    reader.feed(b"data: a\ndata: b")
    assert reader.unterminated() == Frame("", "a\nb")
    assert reader.feed(b"c\n\n") == [Frame("", "a\nbc")]


def test_an_event_over_the_limit_is_an_error_that_keeps_earlier_frames() -> None:
    reader = SSEReader(max_event_bytes=64)
    with pytest.raises(EventTooLarge) as caught:
        reader.feed(b"data: ok\n\ndata: " + b"x" * 100 + b"\n\n")
    assert caught.value.frames == [Frame("", "ok")]
    assert caught.value.limit == 64
    assert reader.feed(b"data: after\n\n") == []


def test_the_limit_does_not_depend_on_how_the_bytes_were_split() -> None:
    # The limit counts the raw bytes of the event's lines, line ends included.
    fits = b"data: " + b"x" * 57 + b"\n\n"  # 63 + 1 = 64 bytes of lines
    too_big = b"data: " + b"x" * 58 + b"\n\n"
    for cut in range(len(too_big) + 1):
        assert frames_limited(fits[:cut], fits[cut:]) == ["x" * 57], cut
        with pytest.raises(EventTooLarge):
            frames_limited(too_big[:cut], too_big[cut:])


def frames_limited(*pieces: bytes) -> list[str]:
    return [f.data for f in read(*pieces, limit=64) if isinstance(f, Frame)]


def test_an_endless_line_is_stopped_at_the_limit() -> None:
    reader = SSEReader(max_event_bytes=1000)
    for _ in range(15):
        assert reader.feed(b"y" * 64) == []  # no line end ever arrives: 960 bytes held
    with pytest.raises(EventTooLarge):
        reader.feed(b"y" * 64)


def test_cost_is_linear_in_the_bytes() -> None:
    # 8 MiB in 256-byte reads: re-copying the growing line per read would move ~128 GB.
    body = b"data: " + b"z" * (8 << 20) + b"\n\n"
    reader = SSEReader()
    start = time.perf_counter()
    out = [item for i in range(0, len(body), 256) for item in reader.feed(body[i : i + 256])]
    elapsed = time.perf_counter() - start
    assert len(out) == 1
    assert elapsed < 2.0, f"{elapsed:.2f}s"
