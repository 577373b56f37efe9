"""Properties over the corpus: how the network splits the bytes, and how lines end, never matter."""

from __future__ import annotations

import itertools

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.wire import decode_bytes
from app.wire.sse import EventTooLarge, Frame, SSEReader
from tests.corpus import CASES, Case, summarize, with_line_ends

LINE_ENDS = [b"\n", b"\r\n", b"\r"]
SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def pieces_of(draw: st.DrawFn, body: bytes) -> list[bytes]:
    """Any split of `body` into consecutive pieces, including empty and one-byte pieces."""
    cuts = draw(st.lists(st.integers(0, len(body)), max_size=40))
    bounds = [0, *sorted(cuts), len(body)]
    return [body[a:b] for a, b in itertools.pairwise(bounds)]


@SETTINGS
@given(data=st.data(), case=st.sampled_from(CASES), end=st.sampled_from(LINE_ENDS))
def test_any_split_and_any_line_end_give_the_expected_turn(
    data: st.DataObject, case: Case, end: bytes
) -> None:
    body = with_line_ends(case.body, end)
    pieces = data.draw(pieces_of(body))
    assert b"".join(pieces) == body
    assert summarize(decode_bytes(case.api, pieces)) == case.want()


def frames(pieces: list[bytes], limit: int = 1 << 24) -> list[Frame] | str:
    reader = SSEReader(limit)
    out: list[Frame] = []
    try:
        for piece in pieces:
            out += [f for f in reader.feed(piece) if isinstance(f, Frame)]
    except EventTooLarge as exc:
        return f"too large after {out + [f for f in exc.frames if isinstance(f, Frame)]}"
    return out


@SETTINGS
@given(data=st.data(), case=st.sampled_from(CASES))
def test_the_reader_yields_the_same_frames_for_any_split(data: st.DataObject, case: Case) -> None:
    pieces = data.draw(pieces_of(case.body))
    assert frames(pieces) == frames([case.body])


@SETTINGS
@given(data=st.data(), case=st.sampled_from(CASES), limit=st.integers(16, 400))
def test_the_size_limit_decides_the_same_way_for_any_split(
    data: st.DataObject, case: Case, limit: int
) -> None:
    pieces = data.draw(pieces_of(case.body))
    assert frames(pieces, limit) == frames([case.body], limit)


@SETTINGS
@given(data=st.data(), case=st.sampled_from(CASES), limit=st.integers(16, 400))
def test_an_oversized_event_ends_the_turn_the_same_way_for_any_split(
    data: st.DataObject, case: Case, limit: int
) -> None:
    pieces = data.draw(pieces_of(case.body))
    whole = summarize(decode_bytes(case.api, [case.body], limit))
    assert summarize(decode_bytes(case.api, pieces, limit)) == whole
