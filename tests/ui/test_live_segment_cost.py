"""What a frame of a streaming answer costs is bounded by the block still open, not by the live
segment: its settled blocks are rendered once and kept, and text that goes on in the
last line is repainted without a layout. Counted in renders and layouts, never timed; the
lines drawn are checked against rendering the whole."""

from __future__ import annotations

import gc
from typing import Any

import pytest
from rich.segment import Segment
from rich.style import Style
from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.strip import Strip

from app.display.markdown_height import NO_JOINS, Joins
from app.display.markdown_render import MarkdownLook, MarkdownPainter
from app.display.segments import settled_end
from app.ui.widgets.markdown_view import StreamedMarkdown, render_segment, segment_painted

LOOK = MarkdownLook.from_colors(
    {"primary": "#112233", "secondary": "#445566", "foreground": "#eeeeee"}, dark=True
)

CORPUS = [
    "## Section 1\n\n" + " ".join(f"word{i}" for i in range(60)) + " with **bold**, `code` "
    "and *emphasis*.\n\n- first point\n- second with `code`\n  - nested detail\n- third\n\n"
    "```python\ndef step(value: int) -> int:\n"
    + "".join(f"    total_{i} = compute(value, {i})  # step {i}\n" for i in range(14))
    + "    return total_0\n```\n\nThat is **all** for now.\n",
    "# Title\n\nA paragraph\nwith a soft break.\n\n> a quote\n> goes on\n\n"
    "| a | b |\n|---|---|\n| 1 | 2 |\n\nafter the table\n\n---\n\n1. one\n2. two\n\n"
    "10. ten\n\nSetext heading\n==============\n\n    indented code\n\nlast _words_ here\n",
    "Some text\n\n```\nunclosed fence\n\nstill code\n\nmore code\n",
    "para one\n\n- item\n\n  continued item paragraph\n\nafter list\n\n<div>\nhtml\n</div>\n\n"
    "~~~\ntilde fence\n~~~\n\nend with an open **mark",
]


@pytest.fixture
def paints(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The source of every Markdown render from now on, in order."""
    sources: list[str] = []
    paint = MarkdownPainter.paint

    def counting(
        self: MarkdownPainter, source: str, width: int, joins: Joins = NO_JOINS, **live: bool
    ) -> Any:
        sources.append(source)
        return paint(self, source, width, joins, **live)

    monkeypatch.setattr(MarkdownPainter, "paint", counting)
    return sources


def painted_whole(source: str, width: int, continued: bool) -> Any:
    return segment_painted(
        MarkdownPainter(LOOK),
        source,
        width,
        continued=continued,
        fence="",
        ends_in_fence=False,
        streaming=True,
    )


def drawn(lines: list[list[Segment]]) -> list[list[tuple[str, Style | None]]]:
    """Lines as they look: a blank one (spaces on no background, whatever their colour) as
    nothing, which is how the segments of an answer are joined too."""
    shown: list[list[tuple[str, Style | None]]] = []
    for line in lines:
        blank = all(
            not s.text.strip() and (s.style is None or s.style.bgcolor is None) for s in line
        )
        shown.append([] if blank else [(s.text, s.style) for s in line])
    return shown


@pytest.mark.parametrize("continued", [False, True])
@pytest.mark.parametrize("width", [30, 76, 158])
@pytest.mark.parametrize("text", CORPUS, ids=["sections", "constructs", "open fence", "mixed"])
def test_a_live_segment_drawn_from_kept_blocks_is_the_whole(
    text: str, width: int, continued: bool
) -> None:
    widget = StreamedMarkdown(continued=continued, look=lambda: LOOK)
    widget.streaming = True
    cuts = 0
    for end in range(1, len(text) + 1, 3):  # every third character of the stream
        widget.source = text[:end]
        cuts += bool(settled_end(widget.source))
        mine = render_segment(widget, width, NO_JOINS)
        whole = painted_whole(widget.source, width, continued)
        assert drawn(mine.lines) == drawn(whole.lines)
        assert {y: (r.block, r.x, r.width, r.full) for y, r in mine.code.items()} == {
            y: (r.block, r.x, r.width, r.full) for y, r in whole.code.items()
        }
    assert cuts > 0  # the kept blocks were used


def test_settled_end_is_at_a_block_start_after_a_blank_line_outside_code() -> None:
    assert settled_end("para\n\nnext\n") == len("para\n\n")
    assert settled_end("para\n\nnext") == 0  # a partial line may still become a list item
    assert settled_end("para\n\n- item\n") == 0  # a list item would join a list above
    assert settled_end("para\n\n  indented\n") == 0
    assert settled_end("```\ncode\n\nmore\n") == 0  # inside a code block
    assert settled_end("```\ncode\n```\n\nafter\n") == len("```\ncode\n```\n\n")


class OneSegment(App[None]):
    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield StreamedMarkdown(look=lambda: LOOK)


async def test_a_live_segment_renders_its_settled_blocks_once(paints: list[str]) -> None:
    sources = paints
    head = "## Heading\n\n" + " ".join(f"word{i}" for i in range(30)) + "\n\n"
    code = "".join(f"value_{i} = compute({i})\n" for i in range(12))
    app = OneSegment()
    async with app.run_test(size=(80, 40)) as pilot:
        widget = app.query_one(StreamedMarkdown)
        widget.streaming = True
        widget.append(head + "```python\n")
        await pilot.pause()
        for line in code.splitlines(keepends=True):  # a frame per line of the code block
            widget.append(line)
            await pilot.pause()
        frames = len(code.splitlines())
        assert sum("## Heading" in source for source in sources) <= 2
        assert sum("value_0" in source for source in sources) >= frames - 1
        lines = widget.lines_at(widget.content_size.width)
        assert any("value_11 = compute(11)" in line.text for line in lines)


async def test_text_that_goes_on_in_the_last_line_is_repainted_without_a_layout() -> None:
    app = OneSegment()
    async with app.run_test(size=(80, 20)) as pilot:
        widget = app.query_one(StreamedMarkdown)
        widget.streaming = True
        widget.append("The first words")
        await pilot.pause()
        height = widget.size.height
        widget.append(" and more")  # the same one line
        assert not widget._layout_required
        await pilot.pause()
        assert "The first words and more" in widget.render_line(0).text
        assert widget.size.height == height
        widget.append("\n\n" + "a new paragraph " * 12)  # more lines: laid out again
        assert widget._layout_required
        await pilot.pause()
        assert widget.size.height > height


class Painted(App[None]):
    def compose(self) -> ComposeResult:
        yield StreamedMarkdown(CORPUS[0])


async def test_painting_lines_leaves_no_cycles_for_the_collector() -> None:
    """Every frame asks for every line again; what it makes must be freed as soon as it is
    dropped (by reference counts), not wait for a full collection. Textual's `crop_extend`
    kept each strip in its own cache: a cycle per line painted."""

    app = Painted()
    async with app.run_test(size=(80, 40)) as pilot:
        await pilot.pause()
        widget = app.query_one(StreamedMarkdown)
        rows = widget.size.height
        assert rows > 20
        gc.collect()
        gc.disable()
        try:
            for _ in range(20):
                # new lines painted, as every frame of a live segment brings
                widget._lines = [Strip(list(line), line.cell_length) for line in widget._lines]
                widget._painted.clear()
                for y in range(rows):
                    widget.render_line(y)
            widget._painted.clear()
            left = gc.collect()
        finally:
            gc.enable()
    assert left < rows  # 20 paints of `rows` lines: no cycle per line


@pytest.mark.parametrize("width", [30, 158])
@pytest.mark.parametrize("text", CORPUS, ids=["sections", "constructs", "open fence", "mixed"])
def test_a_live_segment_drawn_with_no_mark_closed_is_drawn_as_it_settles(
    text: str, width: int
) -> None:
    """What lets a settling segment keep its lines: unless its end was drawn with marks closed
    (`closed`), the live drawing equals the settled one, code blocks numbered alike."""
    widget = StreamedMarkdown(continued=True, look=lambda: LOOK)
    widget.streaming = True
    kept = closed = 0
    for end in range(1, len(text) + 1, 2):
        widget.source = text[:end]
        mine = render_segment(widget, width, NO_JOINS)
        settled = segment_painted(
            MarkdownPainter(LOOK),
            widget.source,
            width,
            continued=True,
            fence="",
            ends_in_fence=False,
        )
        if mine.interim:
            closed += 1
            continue
        kept += 1
        assert drawn(mine.lines) == drawn(settled.lines)
        assert {y: (r.block, r.x, r.width, r.full) for y, r in mine.code.items()} == {
            y: (r.block, r.x, r.width, r.full) for y, r in settled.code.items()
        }
    assert kept
    assert closed or "**" not in text


async def test_a_segment_that_settles_keeps_its_lines_unless_a_mark_was_closed(
    paints: list[str],
) -> None:
    app = OneSegment()
    async with app.run_test(size=(80, 40)) as pilot:
        widget = app.query_one(StreamedMarkdown)
        widget.streaming = True
        for piece in CORPUS[0].split("\n"):
            widget.append(piece + "\n")
            await pilot.pause()
        before = [line.text for line in widget.lines_at(widget.content_size.width)]
        paints.clear()
        widget.streaming = False
        await pilot.pause()
        assert paints == []  # nothing rendered again
        after = [line.text for line in widget.lines_at(widget.content_size.width)]
        assert after == before
        fresh = segment_painted(
            MarkdownPainter(LOOK),
            widget.source,
            widget.content_size.width,
            continued=False,
            fence="",
            ends_in_fence=False,
        )
        assert drawn([list(line) for line in widget.lines_at(widget.content_size.width)]) == drawn(
            fresh.lines
        )

        widget.streaming = True
        widget.append("\n\nan open **mark")  # drawn closed while it streams
        await pilot.pause()
        assert any(
            "an open mark" in line.text for line in widget.lines_at(widget.content_size.width)
        )
        paints.clear()
        widget.streaming = False
        await pilot.pause()
        assert paints  # drawn again, as sent
        assert any(
            "an open **mark" in line.text for line in widget.lines_at(widget.content_size.width)
        )


async def test_a_segment_cut_inside_its_code_block_drops_its_padding_line_unrendered(
    paints: list[str],
) -> None:
    """The next segment carries the code block on: the live one loses the block's bottom
    padding line, exactly as rendering it with `ends_in_fence` would draw it, without a render."""
    app = OneSegment()
    async with app.run_test(size=(80, 40)) as pilot:
        widget = app.query_one(StreamedMarkdown)
        widget.streaming = True
        widget.append("Some words first.\n\n```python\n")
        await pilot.pause()
        for i in range(6):
            widget.append(f"value_{i} = compute({i})\n")
            await pilot.pause()
        rows = len(widget.lines_at(widget.content_size.width))
        paints.clear()
        widget.ends_in_fence = True
        widget.streaming = False
        await pilot.pause()
        assert paints == []
        width = widget.content_size.width
        lines = widget.lines_at(width)
        assert len(lines) == rows - 1
        fresh = segment_painted(
            MarkdownPainter(LOOK),
            widget.source,
            width,
            continued=False,
            fence="",
            ends_in_fence=True,
        )
        assert drawn([list(line) for line in lines]) == drawn(fresh.lines)
        assert {y: r.full for y, r in widget._code.items()} == {
            y: r.full for y, r in fresh.code.items()
        }


async def test_a_segment_whose_code_was_lexed_from_a_line_renders_again_only_if_not_exact(
    paints: list[str],
) -> None:
    """The live code block is lexed from near its end (app/display/code_lexing.py). Python
    lexed so is exact, and the settling segment keeps its lines; Java's `/** */`, closed after
    lines lexed as code, is not, and the segment renders again, drawn as the whole lex draws it."""
    for language, body, kept in (
        ("python", "".join(f"value_{i} = compute({i})\n" for i in range(8)), True),
        ("java", "int a = 1;\n/** Doc\n * more\n * more\n * more\n */\n", False),
    ):
        app = OneSegment()
        async with app.run_test(size=(80, 40)) as pilot:
            widget = app.query_one(StreamedMarkdown)
            widget.streaming = True
            widget.append(f"Some words first.\n\n```{language}\n")
            await pilot.pause()
            for line in body.splitlines(keepends=True):
                widget.append(line)
                await pilot.pause()
            assert widget._lines_resumed, language  # lexed from a line
            paints.clear()
            widget.ends_in_fence = True
            widget.streaming = False
            await pilot.pause()
            assert (paints == []) is kept, language
            width = widget.content_size.width
            fresh = segment_painted(
                MarkdownPainter(LOOK),
                widget.source,
                width,
                continued=False,
                fence="",
                ends_in_fence=True,
            )
            assert drawn([list(line) for line in widget.lines_at(width)]) == drawn(fresh.lines)
