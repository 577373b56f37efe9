"""One widget for a piece of streamed, untrusted Markdown, drawn from cached lines.

The source is rendered by app/display/markdown_render.py into lines at the widget's width, kept
until the source, the width or the theme changes, and painted line by line (Textual's line API).
Layout asks for the height at a width, which renders once and keeps the lines for the paint that
follows. Appending re-renders only this widget's source, so a long answer is cut into several of
them (app/ui/widgets/answer.py) and only the last one changes while it streams.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import TYPE_CHECKING, ClassVar

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.app import App
from textual.color import Color, ColorParseError
from textual.geometry import Size
from textual.selection import Selection
from textual.strip import Strip
from textual.widget import Widget

from app.display.find import Span, line_spans
from app.display.markdown_height import CODE_PAD, NO_JOINS, Joins, estimate_rows
from app.display.markdown_render import CodeRow, MarkdownLook, MarkdownPainter, Painted
from app.display.open_marks import close_open_marks
from app.display.segments import Carry, settled_end

if TYPE_CHECKING:  # Pygments loads with the first answer painted, not at start-up
    from app.display.code_lexing import ResumedLex


def theme_colors(app: App[object]) -> dict[str, str]:
    """The theme's colours as names Rich can parse (Textual's variables may hold expressions
    such as `auto 60%`, ANSI names or transparency, which only Textual can resolve)."""
    colors: dict[str, str] = {}
    variables = app.get_css_variables()
    for name, value in variables.items():
        try:
            color = Color.parse(value)
        except ColorParseError:
            continue
        if color.a == 0:
            continue  # transparent: let Rich use the default
        colors[name] = color.rich_color.name
    foreground = Color.parse(variables.get("foreground", "#e0e0e0"))
    background = Color.parse(variables.get("background", "#000000"))
    if foreground.ansi is None and background.ansi is None:
        colors["text-muted"] = foreground.blend(background, 0.4).hex6
    else:  # an ANSI theme: the terminal decides what the colours look like
        colors["text-muted"] = "bright_black"
    return colors


def look_of(app: App[object]) -> MarkdownLook:
    return MarkdownLook.from_colors(theme_colors(app), dark=app.current_theme.dark)


@lru_cache(maxsize=8)
def painter_for(look: MarkdownLook) -> MarkdownPainter:
    """One painter (a Rich console) per look, shared by every widget using it."""
    return MarkdownPainter(look)


SEGMENT_PADDING = 1  # columns left and right of the text


def carried(source: str, fence: str, carry: Carry | None) -> str:
    """What a segment renders: its source, with the code block's opening line or the table's
    header put back in front when it continues one."""
    if fence:
        return f"{fence}\n{source}"
    if carry is not None and carry.construct.head:
        return f"{carry.construct.head}\n{source}"
    return source


def segment_lines(
    painter: MarkdownPainter,
    source: str,
    width: int,
    *,
    continued: bool,
    fence: str,
    ends_in_fence: bool,
    carry: Carry | None = None,
    joins: Joins = NO_JOINS,
    streaming: bool = False,
) -> list[list[Segment]]:
    """`segment_painted`'s lines."""
    return segment_painted(
        painter,
        source,
        width,
        continued=continued,
        fence=fence,
        ends_in_fence=ends_in_fence,
        carry=carry,
        joins=joins,
        streaming=streaming,
    ).lines


def segment_painted(
    painter: MarkdownPainter,
    source: str,
    width: int,
    *,
    continued: bool,
    fence: str,
    ends_in_fence: bool,
    carry: Carry | None = None,
    joins: Joins = NO_JOINS,
    streaming: bool = False,
) -> Painted:
    """A segment's lines (and its code rows): a blank line first when it continues the answer
    (the gap between two blocks), the code block it continues without its top padding line,
    and its own last code block without the bottom one when the next segment carries it on.
    A table or list it continues (`carry`) goes on without a gap, drawn as `joins` says.
    `streaming`: the live end of an answer, drawn with the marks it leaves open closed
    (app/display/open_marks.py) and its open code block lexed from near its end
    (app/display/code_lexing.py). Code rows are numbered as in the lines returned."""
    text = carried(source, fence, carry)
    drawn = close_open_marks(text) if streaming else text
    painted = painter.paint(drawn, width, joins, live=streaming)
    lines, code = painted.lines, painted.code
    shift = 0
    if fence and lines:
        del lines[0]
        shift = -1
    if ends_in_fence and lines:
        del lines[-1]
    if continued and not fence and carry is None and lines:
        lines.insert(0, [])
        shift = 1
    rows = {y + shift: row for y, row in code.items() if 0 <= y + shift < len(lines)}
    return Painted(lines, rows, painted.blocks, closed=drawn != text, resumed=painted.resumed)


def segment_rows(
    source: str,
    width: int,
    *,
    continued: bool,
    fence: str,
    ends_in_fence: bool,
    carry: Carry | None = None,
    joins: Joins = NO_JOINS,
) -> int:
    """`len(segment_lines(...))` estimated without rendering (app/display/markdown_height.py)."""
    rows = estimate_rows(carried(source, fence, carry), width, joins)
    if fence and rows:
        rows -= 1
    if ends_in_fence and rows:
        rows -= 1
    if continued and not fence and carry is None and rows:
        rows += 1
    return rows


def render_segment(widget: StreamedMarkdown, width: int, joins: Joins) -> Painted:
    """A segment's lines. While it streams, the blocks before `settled_end` are drawn once
    and kept (`widget.settled`), and only what follows is rendered again: a live segment's
    heading, paragraph and list are not rendered again for each frame of the code block after
    them. Joined as an answer's segments are (one blank line between), which draws exactly
    what rendering the whole would; a segment that continues or shares a table, list or code
    block is rendered whole."""
    plain = not (widget.fence or widget.carry is not None or widget.ends_in_fence)
    cut = settled_end(widget.source) if widget.streaming and plain and joins == NO_JOINS else 0
    if cut:
        head = widget.settled_lines(widget.source[:cut], width)
        tail = segment_painted(
            painter_for(widget.look()),
            widget.source[cut:],
            width,
            continued=True,
            fence="",
            ends_in_fence=False,
            streaming=True,
        )
        return joined(head, tail)
    return segment_painted(
        painter_for(widget.look()),
        widget.source,
        width,
        continued=widget.continued,
        fence=widget.fence,
        ends_in_fence=widget.ends_in_fence,
        carry=widget.carry,
        joins=joins,
        streaming=widget.streaming,
    )


def joined(head: Painted, tail: Painted) -> Painted:
    """`tail`'s lines after `head`'s, its code rows and blocks numbered on."""
    lines = [*head.lines, *tail.lines]
    code = dict(head.code)
    shift = len(head.lines)
    for y, row in tail.code.items():
        code[y + shift] = replace(row, block=row.block + head.blocks)
    return Painted(
        lines,
        code,
        head.blocks + tail.blocks,
        closed=head.closed or tail.closed,
        resumed=head.resumed + tail.resumed,
    )


CODE_SCROLL_STEP = 4  # columns a wheel step moves code across
MORE_RIGHT = "›"  # drawn in a code line's last column when it goes on to the right
MORE_LEFT = "‹"  # and in its first when it was scrolled past its start


def fitted(line: Strip, width: int, style: Style | None) -> Strip:
    """`line.crop_extend(0, width, style)` without its cache: Textual's `crop_extend` keeps
    its result in the strip's own cache even when that result is the strip itself, a cycle
    that only a full collection frees. Every line painted went through it, so each frame left
    a screen of strips, their seven caches and their segments for the collector."""
    if line.cell_length == width:
        return line
    if line.cell_length < width:
        return line.extend_cell_length(width, style)
    return line.crop(0, width)


def shifted(row: CodeRow, painted: Strip, offset: int, style: Style) -> Strip:
    """A code row as shown scrolled `offset` columns across: what is before the code (a
    list's or quote's indent) as painted, then the code's full line from `offset`, with a dim
    mark at either end where the line goes on beyond what is shown."""
    full = Strip(list(row.full))
    end = offset + row.width
    if offset:
        fill = row.full[-1].style if row.full else None
        window = fitted(full, end, fill).crop(offset, end)
    else:
        window = full.crop(0, row.width)
    marks = Style(dim=True)
    text = full.text
    if text[end:].strip() and row.width > 1:
        window = Strip.join([window.crop(0, row.width - 1), _mark(window, row.width - 1, marks)])
    if offset and text[:offset].strip() and row.width > 2:
        window = Strip.join([_mark(window, 0, marks), window.crop(1, row.width)])
    before = painted.crop(0, row.x)
    after = painted.crop(row.x + row.width, painted.cell_length)
    return Strip.join([before, window, after]).apply_style(style)


def _mark(window: Strip, x: int, marks: Style) -> Strip:
    """The continuation mark in the colours of the code under it."""
    under = window.crop(x, x + 1)
    base = next((segment.style for segment in under if segment.style), None)
    chars = MORE_RIGHT if x else MORE_LEFT
    return Strip([Segment(chars, (base or Style()) + marks)], 1)


@dataclass(frozen=True, slots=True)
class FindMarks:
    """What a segment highlights: the find bar's matches, and which of its own is the current
    one (counted as `line_spans` counts them; None: none here)."""

    pattern: re.Pattern[str]
    current: int | None = None


class StreamedMarkdown(Widget):
    COMPONENT_CLASSES: ClassVar[set[str]] = {"find--match", "find--current"}
    DEFAULT_CSS = f"""
    StreamedMarkdown {{
        height: auto;
        padding: 0 {SEGMENT_PADDING};
    }}
    StreamedMarkdown > .find--match {{ background: $warning 35%; }}
    StreamedMarkdown > .find--current {{ background: $warning; color: $background; }}
    """

    def __init__(
        self,
        source: str = "",
        *,
        continued: bool = False,
        fence: str = "",
        look: Callable[[], MarkdownLook] | None = None,
        carry: Carry | None = None,
        joins: Callable[[int], Joins] | None = None,
        classes: str | None = None,
    ) -> None:
        """`continued`: a segment after the first, which starts with the blank line that
        separates it from the block above (a line of its own rather than a margin, so that the
        widget's height is all the space it takes, asleep or awake). `look`: where to get the
        theme's look from (an answer shares one among its segments; working it out from the
        theme costs more than rendering a short segment). `fence`: the opening line of the code
        block this segment continues (app/display/segments.py), put back in front of the source
        to render it. `carry`: the table or list it continues, `joins`: how to draw what it
        shares with its neighbours at a width (both from the answer it is part of)."""
        super().__init__(classes=classes)
        self.source = source
        self.continued = continued
        self.fence = fence
        self.carry = carry
        self._joins = joins
        self._lines_joins = NO_JOINS
        self._ends_in_fence = False
        self._streaming = False
        self._look_source = look
        self._look: MarkdownLook | None = None
        self._lines: list[Strip] = []
        self._code: dict[int, CodeRow] = {}  # code rows, by y
        self._offsets: dict[int, int] = {}  # columns each code block is scrolled across
        self._painted: dict[int, Strip] = {}  # lines cropped to width, in the widget's style
        self._style: Style | None = None  # the widget's own style, until the styles change
        self._lines_width = -1  # width the lines were rendered at; -1: render again
        self._lines_closed = False  # the lines close marks the source leaves open
        self._lines_resumed: tuple[ResumedLex, ...] = ()  # their code lexed from a line
        # While streaming: the settled blocks' source, width and look, and their lines.
        self._settled: tuple[str, int, MarkdownLook, Painted] | None = None
        self._find: FindMarks | None = None
        self._lines_serial = 0  # counts renders, for what is worked out from the lines
        self._spans: tuple[object, dict[int, list[Span]]] | None = None  # (key, by line)

    def release(self) -> None:
        """Let go of what this segment drew, once it is off the screen for good (put to sleep:
        app/ui/widgets/answer.py). Removed, it is garbage; but a widget the render clock froze
        is freed only by the sweep after the last stream (app/ui/render_clock.py), and its
        lines, their strips and Textual's cache of them would wait with it: in a 20,000-token
        answer, segments put to sleep were most of what its memory grew by."""
        self._lines = []
        self._code.clear()
        self._painted.clear()
        self._settled = None
        self._lines_width = -1
        self._lines_resumed = ()
        self._spans = None
        self._styles_cache.clear()

    def append(self, text: str) -> None:
        """Add streamed text. Rendered at once when the widget has been laid out: if its
        height is unchanged (the text went on in the last line), only the widget is repainted,
        with no layout (a reflow of the whole screen); else on the next layout."""
        if not text:
            return
        self.source += text
        width = self._lines_width
        if width <= 0 or width != self.content_size.width:
            self._render_again()
            return
        rows = len(self._lines)
        self._lines_width = -1
        if len(self.lines_at(width)) == rows:
            self.refresh()
        else:
            self.refresh(layout=True)

    def settled_lines(self, source: str, width: int) -> Painted:
        """The lines of a streaming segment's settled blocks (`source`), drawn once."""
        look = self.look()
        kept = self._settled
        if kept is None or kept[:3] != (source, width, look):
            painted = segment_painted(
                painter_for(look),
                source,
                width,
                continued=self.continued,
                fence="",
                ends_in_fence=False,
            )
            kept = self._settled = (source, width, look, painted)
        return kept[3]

    def _render_again(self) -> None:
        """What is drawn changed: render the lines again at the next layout."""
        self._lines_width = -1
        self.refresh(layout=True)

    @property
    def streaming(self) -> bool:
        """The live end of a streaming answer: more text may close what it leaves open."""
        return self._streaming

    @streaming.setter
    def streaming(self, value: bool) -> None:
        if value != self._streaming:
            self._streaming = value
            self._settled = None
            kept = not value and self._drawn_as_settled()
            self._lines_resumed = ()  # checked: what they hold is the block's text and tokens
            if not kept:
                self._render_again()

    def _drawn_as_settled(self) -> bool:
        """Whether the lines drawn while the segment streamed are already how it is drawn
        settled: drawn from its whole source, at the width and joins it is laid out with,
        with no mark closed for it and no code block lexed from a line of it (`interim`).
        Its blocks before `settled_end` and after it are drawn exactly as the whole would be
        (`render_segment`), so a segment that settles keeps its lines rather than rendering
        them again (a render of a whole segment, for each segment of a long answer, at the
        next layout)."""
        width = self._lines_width
        return (
            width > 0
            and width == self.content_size.width
            and self._lines_joins == self.joins_at(width)
            and not self._lines_closed
            and all(lexed.exact() for lexed in self._lines_resumed)
        )

    @property
    def ends_in_fence(self) -> bool:
        """The segment was cut inside a code block: the next one carries on without a gap."""
        return self._ends_in_fence

    @ends_in_fence.setter
    def ends_in_fence(self, value: bool) -> None:
        if value != self._ends_in_fence:
            self._ends_in_fence = value
            if value and self._lines and self._drawn_as_settled():
                self._drop_last_line()  # what rendering again would do (`segment_painted`)
                return
            self._render_again()

    def _drop_last_line(self) -> None:
        """The code block the segment ends in goes on in the next one: its bottom padding
        line goes, as `segment_painted` drops it for a segment that `ends_in_fence`."""
        del self._lines[-1]
        self._code = {y: row for y, row in self._code.items() if y < len(self._lines)}
        self._painted.clear()
        self._lines_serial += 1
        self.refresh(layout=True)

    def look(self) -> MarkdownLook:
        if self._look_source is not None:
            return self._look_source()
        if self._look is None:
            self._look = look_of(self.app)
        return self._look

    def joins_at(self, width: int) -> Joins:
        return NO_JOINS if self._joins is None else self._joins(width)

    def lines_at(self, width: int) -> list[Strip]:
        joins = self.joins_at(width)
        if width != self._lines_width or joins != self._lines_joins:
            painted = render_segment(self, width, joins)
            self._lines = [Strip(line) for line in painted.lines]
            self._lines_closed = painted.closed
            self._lines_resumed = painted.resumed
            self._lines_serial += 1
            self._code = painted.code
            self._painted.clear()
            self._lines_width = width
            self._lines_joins = joins
        return self._lines

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self.lines_at(width))

    def get_content_width(self, container: Size, viewport: Size) -> int:
        return container.width

    def render_line(self, y: int) -> Strip:
        """A line as painted; every frame asks again for every line on screen."""
        width = self.content_size.width
        lines = self.lines_at(width)
        painted = self._painted.get(y)
        if painted is None:
            if self._style is None:
                self._style = self.rich_style
            style = self._style
            if y >= len(lines):
                return Strip.blank(width, style)
            row = self._code.get(y)
            if row is not None and (row.overflow or self._offsets.get(row.block)):
                line = shifted(row, lines[y], self._offsets.get(row.block, 0), style)
            else:
                line = lines[y]
            painted = fitted(line, width, style).apply_style(style)
            self._painted[y] = painted = painted.apply_offsets(0, y)  # for mouse selection
        find = self._find
        spans = None if find is None else self._find_spans(find).get(y)
        if spans:
            painted = self._mark_found(painted, y, spans, find.current if find else None)
        selection = self.text_selection
        span = None if selection is None else selection.get_span(y)
        if span is not None:  # a mouse selection shows as Textual's own highlight
            start, end = span[0], width if span[1] == -1 else span[1]
            chosen = self.screen.get_component_rich_style("screen--selection")
            shade = Style(bgcolor=chosen.bgcolor)  # over the text's own colours
            before, inside, *after = painted.divide([start, end, width])
            inside = Strip(Segment.apply_style(list(inside), post_style=shade), len(inside.text))
            painted = Strip.join([before, inside, *after])
        return painted

    def get_selection(self, selection: Selection) -> tuple[str, str] | None:
        """The text under a mouse selection as written (the default would copy the widget's
        name): a code block's lines without the column of padding it is drawn with on either
        side, and without its blank padding rows above and below."""
        lines = self.lines_at(self.content_size.width)
        padding = self._code_padding_rows()
        picked: list[str] = []
        for y in range(len(lines)):
            span = selection.get_span(y)
            if span is None or y in padding:
                continue
            text = self._shown_text(y)
            start, end = span
            row = self._code.get(y)
            if row is not None:  # the code starts after its pad (unless scrolled past it)
                pad = max(0, CODE_PAD - self._offsets.get(row.block, 0))
                start = max(start, row.x + pad)
            picked.append(text[start:] if end == -1 else text[start:end])
        return "\n".join(picked), "\n"

    def _code_padding_rows(self) -> set[int]:
        """The blank rows a code block is drawn with above and below its code (a block cut
        across segments has its top one only where it opens, its bottom one where it ends)."""
        rows: dict[int, list[int]] = {}
        for y, row in self._code.items():
            rows.setdefault(row.block, []).append(y)
        if not rows:
            return set()
        first, last = min(rows), max(rows)
        padding: set[int] = set()
        for block, ys in rows.items():
            if not (self.fence and block == first):
                padding.add(min(ys))
            if not (self.ends_in_fence and block == last):
                padding.add(max(ys))
        return padding

    # -- find ----------------------------------------------------------------------------------

    @property
    def find(self) -> FindMarks | None:
        return self._find

    @find.setter
    def find(self, marks: FindMarks | None) -> None:
        if marks != self._find:
            self._find = marks
            if self.is_attached:
                self.refresh()

    def _find_spans(self, find: FindMarks) -> dict[int, list[Span]]:
        """The matches in the lines as shown (a code row as scrolled across), worked out once
        per render, scroll across or query."""
        key = (self._lines_serial, tuple(self._offsets.items()), find.pattern)
        if self._spans is None or self._spans[0] != key:
            shown = [self._shown_text(y) for y in range(len(self._lines))]
            self._spans = (key, line_spans(shown, find.pattern))
        return self._spans[1]

    def found_rows(self) -> list[int]:
        """The row each match (drawn) starts on, in order."""
        find = self._find
        if find is None:
            return []
        self.lines_at(self.content_size.width)
        starts: dict[int, int] = {}
        for y, spans in sorted(self._find_spans(find).items()):
            for span in spans:
                starts.setdefault(span.match, y)
        return [starts[number] for number in sorted(starts)]

    def _mark_found(self, painted: Strip, y: int, spans: list[Span], current: int | None) -> Strip:
        text = self._shown_text(y)
        match = self.get_component_rich_style("find--match")
        chosen = self.get_component_rich_style("find--current")
        for span in spans:
            start, end = cell_len(text[: span.start]), cell_len(text[: span.end])
            if end <= start:
                continue
            if span.match == current:
                style = Style(bgcolor=chosen.bgcolor, color=chosen.color, bold=True)
            else:
                style = Style(bgcolor=match.bgcolor)
            before, inside, *after = painted.divide([start, end, painted.cell_length])
            inside = Strip(Segment.apply_style(list(inside), post_style=style), end - start)
            painted = Strip.join([before, inside, *after])
        return painted

    def _shown_text(self, y: int) -> str:
        """A line's text as shown: a code row's as scrolled across (the columns a selection
        covers on screen are those of the code under it), its marks aside."""
        line = self._lines[y]
        row = self._code.get(y)
        offset = 0 if row is None else self._offsets.get(row.block, 0)
        if row is None or not offset:
            return line.text.rstrip()
        window = Strip(list(row.full)).crop(offset, offset + row.width)
        before = line.crop(0, row.x).text
        after = line.crop(row.x + row.width, line.cell_length).text
        return (before + window.text + after).rstrip()

    # -- scrolling code across ---------------------------------------------------------------

    def code_offset(self, block: int) -> int:
        """Columns code block `block` (counted in this segment) is scrolled across."""
        return self._offsets.get(block, 0)

    def _blocks(self) -> list[int]:
        return sorted({row.block for row in self._code.values()})

    def _overflow(self, block: int) -> int:
        return max((r.overflow for r in self._code.values() if r.block == block), default=0)

    def _pieces(self, block: int) -> list[tuple[StreamedMarkdown, int]]:
        """The segments a code block is cut across, with its number in each: a long block is
        cut every so many lines (app/display/segments.py), and its pieces scroll together so
        that its lines stay in line."""
        siblings = [] if self.parent is None else list(self.parent.children)
        index = siblings.index(self) if self in siblings else -1
        pieces = [(self, block)]
        here, number, at = self, block, index
        while number == 0 and here.fence and at > 0:  # back to where the block opened
            previous = siblings[at - 1]
            if not isinstance(previous, StreamedMarkdown) or not previous.ends_in_fence:
                break
            blocks = previous._blocks()
            if not blocks:
                break
            here, number, at = previous, blocks[-1], at - 1
            pieces.insert(0, (here, number))
        here, number, at = self, block, index
        while index >= 0 and here.ends_in_fence and at + 1 < len(siblings):
            blocks = here._blocks()
            if not blocks or number != blocks[-1]:
                break
            following = siblings[at + 1]
            if not isinstance(following, StreamedMarkdown) or not following.fence:
                break
            if 0 not in following._blocks():
                break
            here, number, at = following, 0, at + 1
            pieces.append((here, number))
        return pieces

    def scroll_code(self, block: int, delta: int) -> bool:
        """Scroll code block `block` (and the rest of it in the segments it is cut across)
        `delta` columns across, within its widest line; whether it moved."""
        pieces = self._pieces(block)
        widest = max(widget._overflow(number) for widget, number in pieces)
        offset = max(0, min(widest, self.code_offset(block) + delta))
        if offset == self.code_offset(block):
            return False
        for widget, number in pieces:
            widget._offsets[number] = offset
            widget._painted.clear()
            widget.refresh()
        return True

    def _code_block_at(self, event: events.MouseEvent) -> int | None:
        offset = event.get_content_offset(self)
        row = None if offset is None else self._code.get(offset.y)
        return None if row is None else row.block

    def _scroll_across(self, event: events.MouseEvent, delta: int) -> None:
        block = self._code_block_at(event)
        if block is not None and self.scroll_code(block, delta):
            event.stop()
            event.prevent_default()

    # A horizontal wheel arrives as MouseScrollRight/Left; Shift+wheel (or Ctrl+wheel) as
    # MouseScrollDown/Up with the modifier set, as Textual's own scrolling reads it.

    def on_mouse_scroll_right(self, event: events.MouseScrollRight) -> None:
        """Shift+wheel (or a horizontal wheel) over a code block scrolls it across."""
        self._scroll_across(event, CODE_SCROLL_STEP)

    def on_mouse_scroll_left(self, event: events.MouseScrollLeft) -> None:
        self._scroll_across(event, -CODE_SCROLL_STEP)

    def on_mouse_scroll_down(self, event: events.MouseScrollDown) -> None:
        if event.shift or event.ctrl:
            self._scroll_across(event, CODE_SCROLL_STEP)

    def on_mouse_scroll_up(self, event: events.MouseScrollUp) -> None:
        if event.shift or event.ctrl:
            self._scroll_across(event, -CODE_SCROLL_STEP)

    def notify_style_update(self) -> None:
        """The theme may have changed: colours come from it."""
        self._look = None
        self._style = None
        self._lines_width = -1
        super().notify_style_update()


__all__ = [
    "CODE_SCROLL_STEP",
    "MORE_LEFT",
    "MORE_RIGHT",
    "SEGMENT_PADDING",
    "FindMarks",
    "StreamedMarkdown",
    "carried",
    "look_of",
    "painter_for",
    "segment_lines",
    "segment_painted",
    "segment_rows",
    "theme_colors",
]
