"""A huge table or list is cut into segments of bounded size, and the pieces drawn with what
they share (app/display/joins.py) look exactly like the whole: nothing but the cutter's
bounds is timed or assumed."""

from __future__ import annotations

import pytest

from app.display.joins import SharedLayout
from app.display.markdown_height import estimate_rows, table_measures
from app.display.markdown_render import MarkdownLook, MarkdownPainter, plain
from app.display.segments import (
    CONSTRUCT_SEGMENT_LINES,
    PARAGRAPH_SEGMENT_LINES,
    Carry,
    Construct,
    SegmentCutter,
)
from app.ui.widgets.markdown_view import carried, segment_lines, segment_rows

MIB = 1024 * 1024


def table(rows: int) -> str:
    head = "| # | name | value | note |\n|---:|---|---:|---|\n"
    body = "".join(f"| {n} | item {n} | {n * 0.37:.2f} | note for row {n} |\n" for n in range(rows))
    return f"Here is the table:\n\n{head}{body}\nThat is all.\n"


def bullets(size: int) -> str:
    lines: list[str] = []
    n = total = 0
    while total < size:
        line = f"- point {n}: a list item with **some bold** and `code`\n"
        if n % 10 == 9:
            line += f"  - nested detail {n}\n"
        lines.append(line)
        total += len(line)
        n += 1
    return "Here is the list:\n\n" + "".join(lines) + "\nThat is all.\n"


def cut(text: str, chunk: int = 64) -> tuple[list[str], list[Carry | None]]:
    """The text streamed through the cutter in `chunk`-character pieces."""
    cutter = SegmentCutter.new()
    segments = [""]
    carries: list[Carry | None] = [None]
    for start in range(0, len(text), chunk):
        first, *rest = cutter.feed(text[start : start + chunk])
        segments[-1] += first
        segments.extend(rest)
        carries.extend(cutter.carries[1:])
    segments[-1] += cutter.flush()
    return segments, carries


@pytest.mark.parametrize(
    "text", [table(20_000), bullets(MIB)], ids=["20,000-row table", "1 MiB list"]
)
def test_no_segment_of_a_huge_table_or_list_holds_more_than_a_few_dozen_lines(text: str) -> None:
    segments, carries = cut(text)
    assert "".join(segments) == text
    longest = max(segment.count("\n") for segment in segments)
    assert longest <= CONSTRUCT_SEGMENT_LINES + 2  # a nested item may follow the last one
    assert sum(carry is not None for carry in carries) >= text.count("\n") // 30


def test_the_cutter_does_the_same_work_per_character_however_long_the_answer() -> None:
    """Linear: cutting twice the table makes twice the segments of the same size."""
    small, _ = cut(table(5_000))
    large, _ = cut(table(10_000))
    assert 1.8 < len(large) / len(small) < 2.2
    assert max(map(len, large)) <= max(map(len, small)) * 1.2


@pytest.mark.parametrize(
    "text",
    [
        "Intro\n| a | b |\n|---|---|\n"
        + "".join(f"| {n} | {'w' * (n % 13)} |\n" for n in range(80)),
        "".join(f"{n + 1}) item {n}\n" for n in range(120)) + "\nafter\n",
        "".join(f"- item {n}\ncontinued lazily\n" for n in range(60)) + "* other list\n",
        "".join(f"- item {n}\n\n  more of {n}\n\n" for n in range(40)) + "- - -\n- after\n",
    ],
    ids=["table after text", "numbers", "lazy lines", "loose, then a rule"],
)
@pytest.mark.parametrize("width", [78, 30, 12])
def test_pieces_drawn_with_what_they_share_are_the_whole(text: str, width: int) -> None:
    painter = MarkdownPainter(MarkdownLook.from_colors({}, dark=True))
    segments, carries = cut(text, chunk=5)
    assert any(carries), "the construct was cut"
    tails: list[Construct | None] = [
        carry.construct if carry is not None else None for carry in carries[1:]
    ] + [None]
    shared = SharedLayout()
    for index, (source, carry) in enumerate(zip(segments, carries, strict=True)):
        for construct, last in ((carry and carry.construct, False), (tails[index], True)):
            if construct is not None:
                shared.join(construct, index)
                if construct.kind == "table":
                    measures = table_measures(carried(source, "", carry), last=last)
                    shared.measure(construct, index, measures)
    lines = []
    for index, (source, carry) in enumerate(zip(segments, carries, strict=True)):
        joins = shared.joins(carry, tails[index], width)
        options = {"continued": index > 0, "fence": "", "ends_in_fence": False, "carry": carry}
        piece = segment_lines(painter, source, width, joins=joins, **options)  # type: ignore[arg-type]
        assert len(piece) == segment_rows(source, width, joins=joins, **options)  # type: ignore[arg-type]
        lines += piece
    assert plain(lines) == plain(painter.lines(text, width))
    assert len(painter.lines(text, width)) == estimate_rows(text, width)


def test_a_paragraph_only_hostile_text_makes_so_long_is_cut_and_shows_every_word() -> None:
    """A paragraph of thousands of lines (one construct: it used to be rendered whole on
    every frame) is cut; its pieces go on without a gap, each word shown once, in order. A
    paragraph a model may write (150 lines) is left whole."""
    painter = MarkdownPainter(MarkdownLook.from_colors({}, dark=True))
    lines = [f"word{n % 97} and some more text on line {n}" for n in range(5_000)]
    text = "Intro.\n\n" + "\n".join(lines) + "\n\nThe end.\n"
    segments, carries = cut(text)
    assert max(segment.count("\n") for segment in segments) <= PARAGRAPH_SEGMENT_LINES + 2
    assert sum(carry is not None for carry in carries) >= 5_000 // PARAGRAPH_SEGMENT_LINES - 1
    shown = []
    for index, (source, carry) in enumerate(zip(segments, carries, strict=True)):
        options = {"continued": index > 0, "fence": "", "ends_in_fence": False, "carry": carry}
        piece = segment_lines(painter, source, 78, **options)  # type: ignore[arg-type]
        assert len(piece) == segment_rows(source, 78, **options)  # type: ignore[arg-type]
        shown += piece
    assert plain(shown).split() == plain(painter.lines(text, 78)).split()
    _, carries = cut("Intro.\n\n" + "\n".join(lines[:150]) + "\n\nThe end.\n")
    assert not any(carries)
