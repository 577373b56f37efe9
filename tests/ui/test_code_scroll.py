"""Code in a narrow pane scrolls across rather than wrapping mid-statement:
a code line wider than the pane is one row, cut at the pane's edge with a mark that it goes on,
and Shift+wheel over it (Textual's MouseScrollRight/Left) shows the rest. Prose still wraps."""

from __future__ import annotations

from textual import events
from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.geometry import Offset
from textual.selection import Selection

from app.display.markdown_height import estimate_rows
from app.display.markdown_render import MarkdownLook, MarkdownPainter, plain
from app.ui.widgets.answer import AnswerView
from app.ui.widgets.markdown_view import CODE_SCROLL_STEP, MORE_RIGHT, StreamedMarkdown

WIDE = "result = compute(" + ", ".join(f"argument_{i}" for i in range(8)) + ")  # the end"
PROSE = " ".join(f"word{i}" for i in range(30))
SOURCE = f"{PROSE}\n\n```python\n{WIDE}\nshort = 1\n```\n"


class Pane(App[None]):
    def __init__(self, source: str, width: int) -> None:
        super().__init__()
        self.source, self.width = source, width

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield StreamedMarkdown(self.source)

    def on_mount(self) -> None:
        self.query_one(VerticalScroll).styles.width = self.width


def shown(app: App[None]) -> list[str]:
    return [strip.text.rstrip() for strip in app.screen._compositor.render_strips()]


def wheel(app: App[None], x: int, y: int, *, right: bool, shift: bool = True) -> None:
    """A Shift+wheel step at screen cell (x, y), as Textual's driver reads it from the terminal
    (a wheel event with the shift bit), or without `shift` a horizontal wheel step."""
    if shift:
        kind: type[events.MouseEvent] = events.MouseScrollDown if right else events.MouseScrollUp
    else:
        kind = events.MouseScrollRight if right else events.MouseScrollLeft
    app.post_message(kind(None, x, y, 0, 0, 0, shift, False, False, screen_x=x, screen_y=y))


def test_a_wide_code_line_is_one_row_and_the_estimate_agrees() -> None:
    assert len(WIDE) > 100
    painter = MarkdownPainter(MarkdownLook.from_colors({}, dark=True))
    for width in (20, 40, 58, 200):
        lines = plain(painter.lines(SOURCE, width)).split("\n")
        code = [line for line in lines if "compute(" in line]
        assert len(code) == 1  # not wrapped mid-statement
        assert code[0].strip() == WIDE[: width - 1].strip()  # cut at the width
        assert not any("argument_7" in line for line in lines) or width > len(WIDE)
        assert estimate_rows(SOURCE, width) == len(lines)
    prose = [line for line in plain(painter.lines(SOURCE, 40)).split("\n") if "word" in line]
    assert len(prose) > 1  # prose still wraps


async def test_shift_wheel_scrolls_a_code_block_across_to_the_end_of_its_line() -> None:
    app = Pane(SOURCE, 60)
    async with app.run_test(size=(80, 20)) as pilot:
        await pilot.pause()
        before = shown(app)
        row = next(y for y, line in enumerate(before) if "compute(" in line)
        assert "the end" not in before[row]
        assert before[row].endswith(MORE_RIGHT)  # a cue that the line goes on
        assert not any("argument_7" in line for line in before)  # one row, not wrapped
        widget = app.query_one(StreamedMarkdown)
        for _ in range(len(WIDE) // CODE_SCROLL_STEP + 2):  # more than enough to reach the end
            wheel(app, 10, row, right=True)
        await pilot.pause()
        after = shown(app)
        assert after[row].rstrip().endswith("# the end")
        assert not after[row].endswith(MORE_RIGHT)
        assert "word0" in after[0]  # the prose did not move
        assert widget.code_offset(0) == len(WIDE) + 2 - (60 - 2)  # its widest line's overflow
        selected = widget.get_selection(_whole(widget))
        assert selected is not None
        assert "# the end" in selected[0]  # a selection copies the code as it is shown
        wheel(app, 10, row, right=False)
        await pilot.pause()
        assert widget.code_offset(0) == len(WIDE) + 2 - 58 - CODE_SCROLL_STEP
        wheel(app, 10, row, right=False, shift=False)  # a horizontal wheel
        await pilot.pause()
        assert widget.code_offset(0) == len(WIDE) + 2 - 58 - 2 * CODE_SCROLL_STEP
        wheel(app, 10, row, right=True, shift=False)
        await pilot.pause()
        wheel(app, 10, 0, right=True)  # over prose: nothing moves
        await pilot.pause()
        assert widget.code_offset(0) == len(WIDE) + 2 - 58 - CODE_SCROLL_STEP


def _whole(widget: StreamedMarkdown) -> Selection:
    return Selection(Offset(0, 0), Offset(0, len(widget.lines_at(widget.content_size.width))))


class Streamed(App[None]):
    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield AnswerView()

    def on_mount(self) -> None:
        self.query_one(VerticalScroll).styles.width = 60


async def test_the_pieces_of_a_long_code_block_scroll_together() -> None:
    code = "".join(f"{WIDE}  # {i}\n" for i in range(60))
    text = f"```python\n{code}```\n"
    app = Streamed()
    async with app.run_test(size=(80, 40)) as pilot:
        answer = app.query_one(AnswerView)
        await answer.append(text, final=True)
        await pilot.pause(0.3)
        pieces = [s for s in answer.segments if isinstance(s, StreamedMarkdown)]
        assert len(pieces) >= 2
        assert pieces[0].ends_in_fence  # the block was cut across segments
        pieces[0].scroll_code(0, 2 * CODE_SCROLL_STEP)
        assert [piece.code_offset(0) for piece in pieces] == [2 * CODE_SCROLL_STEP] * len(pieces)
        pieces[-1].scroll_code(0, -CODE_SCROLL_STEP)
        assert [piece.code_offset(0) for piece in pieces] == [CODE_SCROLL_STEP] * len(pieces)
