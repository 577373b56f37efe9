"""The answer: streamed Markdown split over several segment widgets, the ones far out of view
swapped for blank placeholders of the same height.

Each segment renders its own source (app/ui/widgets/markdown_view.py), so appending re-renders
only the last one, and a new segment is started at safe points (see app/display/segments.py).
A sealed segment more than half a screen away from the viewport is replaced by a placeholder and
rebuilt from its source when it comes back near. Neighbouring sleepers share one placeholder (a
run), so what stays in memory and in every layout depends on the screen, not on the length of
the conversation: each frame's layout walks every widget of the answer.
"""

from __future__ import annotations

import asyncio
import re
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

from textual.containers import Vertical
from textual.geometry import Region
from textual.widget import Widget
from textual.widgets import Static

from app.display.joins import SharedLayout
from app.display.markdown_height import Joins, estimate_rows, table_measures
from app.display.markdown_render import MarkdownLook
from app.display.segments import Carry, Construct, SegmentCutter
from app.ui.widgets.markdown_view import (
    SEGMENT_PADDING,
    FindMarks,
    StreamedMarkdown,
    carried,
    look_of,
    segment_rows,
)

FRAME_CHARS = 98_304  # most text new segments take on at a time (bench/README.md: stalls)


@dataclass(slots=True)
class _Piece:
    """A piece of the answer as the cutter gave it: its text, the code block's opening line
    or the table or list it continues."""

    text: str
    fence: str
    carry: Carry | None


class SegmentPlaceholder(Static):
    """Blank space standing in for a run of neighbouring segments out of view (`first` and
    the ones after it, one height each), as tall as they are together."""

    BLANK = True

    def __init__(self, first: int, heights: list[int], width: int) -> None:
        super().__init__("", markup=False)
        self.first = first
        self.heights = heights
        self.measured_width = width
        self.styles.height = sum(heights)

    @property
    def end(self) -> int:
        """The index after the last segment it stands for."""
        return self.first + len(self.heights)

    def height_of(self, index: int) -> int:
        return self.heights[index - self.first]

    def row_of(self, index: int) -> int:
        """Where segment `index` starts, in rows from the placeholder's top."""
        return sum(self.heights[: index - self.first])

    def set_height(self, index: int, height: int) -> None:
        self.heights[index - self.first] = height
        self._heights_changed()

    def set_heights(self, heights: list[int]) -> None:
        self.heights = heights
        self._heights_changed()

    def _heights_changed(self) -> None:
        total = sum(self.heights)
        if self.styles.height is None or self.styles.height.value != total:
            self.styles.height = total


class AnswerView(Vertical):
    BLANK = True
    DEFAULT_CSS = """
    AnswerView {
        height: auto;
    }
    """

    def __init__(self, *, classes: str = "turn--answer", lazy: bool = True) -> None:
        """`lazy`: segments that arrive far above the viewport may start asleep."""
        super().__init__(classes=classes)
        self.lazy = lazy
        self.born_asleep = 0  # segments never rendered since they arrived
        self._cutter = SegmentCutter.new()
        self.sources: list[str] = []
        self.fences: list[str] = []  # per segment: the code block's opening line it continues
        self.ends_in_fence: list[bool] = []  # per segment: cut inside a code block
        self.carries: list[Carry | None] = []  # per segment: the table or list it continues
        self.tails: list[Construct | None] = []  # ... and the one cut at its end
        self._shared = SharedLayout()
        self._queue: deque[_Piece] = deque()  # cut, not yet given segments (see `append`)
        self._taking = asyncio.Lock()  # one taker at a time: pieces keep their order
        self._virtualizing = asyncio.Lock()
        self._draining = False
        self._final = False
        self.segments: list[StreamedMarkdown | SegmentPlaceholder] = []
        self.sealed = False  # the stream is over: the last segment may sleep too
        self._look: tuple[str, MarkdownLook] | None = None  # (theme name, its look)
        # The find bar's query, and its current match as (segment, match in it), if here.
        self._found: tuple[re.Pattern[str], tuple[int, int] | None] | None = None

    def markdown_look(self) -> MarkdownLook:
        """The theme's look, worked out once per theme for all segments."""
        theme = self.app.theme
        if self._look is None or self._look[0] != theme:
            self._look = (theme, look_of(self.app))
        return self._look[1]

    async def append(self, text: str, *, final: bool = False) -> None:
        """Append streamed text; `final` also releases what the cutter held back. New
        segments take on at most FRAME_CHARS of text per call: what is left waits in a queue,
        taken a piece at a time after each refresh (and by the next calls; `caught_up` says
        when none is left), so that a frame's work stays bounded however much text arrived
        since the last one."""
        async with self._taking:
            pieces = self._cutter.feed(text)
            openers = self._cutter.openers
            carries = self._cutter.carries
            if final:
                pieces[-1] += self._cutter.flush()
                self._final = True
            new = [_Piece(*cut) for cut in zip(pieces, openers, carries, strict=True)]
            if self._queue:  # the first piece goes on from the last one still queued
                self._queue[-1].text += new[0].text
            elif not self.segments:
                self._queue.append(new[0])
            elif new[0].text:
                self._grow(new[0].text)
            self._queue.extend(piece for piece in new[1:] if piece.text)
            await self._take_queued()

    async def _drain(self) -> None:
        """Take the next piece of the queue, once the last one is on screen."""
        self._draining = False
        async with self._taking:
            await self._take_queued()

    @property
    def caught_up(self) -> bool:
        """No text waits to be given segments."""
        return not self._queue

    async def _take_queued(self) -> None:
        """Mount segments for the queued pieces, up to FRAME_CHARS of their text."""
        await self._take_some()
        if self._queue and not self._draining and self.is_attached:
            self._draining = True
            self.call_after_refresh(self._drain)
        if self._final and not self._queue:
            self._seal_last()
        # Sealed only now: a virtualize pass running while the appends above were awaited must
        # not put the last segment to sleep under an append still in flight.
        self.sealed = self.sealed or (self._final and not self._queue)

    async def _take_some(self) -> None:
        asleep = self._born_asleep(
            [carried(piece.text, piece.fence, piece.carry) for piece in self._queue]
        )
        taken = 0
        while self._queue and taken < FRAME_CHARS:
            if not self.is_attached:  # the app is exiting: keep the text, mount nothing more
                self._keep("".join(piece.text for piece in self._queue))
                self._queue.clear()
                return
            piece = self._queue.popleft()
            taken += len(piece.text)
            if piece.fence:  # a code block cut in two: the segment before it loses its padding
                self._carry_on(len(self.segments) - 1)
            if piece.carry is not None:  # a table or list cut in two: both share its layout
                self._tail(len(self.segments) - 1, piece.carry.construct)
            self._seal_last()
            number = len(self.segments)
            self.fences.append(piece.fence)
            self.ends_in_fence.append(False)
            self.carries.append(piece.carry)
            self.tails.append(None)
            if piece.carry is not None:
                self._shared.join(piece.carry.construct, number)
            asleep -= 1
            if asleep >= 0:
                self.sources.append(piece.text)
                self.ends_in_fence[-1] = bool(self._queue and self._queue[0].fence)
                self._measure(number)
                self.born_asleep += 1
                height, width = self._estimated_height(number), self.content_size.width
                run = self.segments[-1] if self.segments else None
                if isinstance(run, SegmentPlaceholder) and run.end == number:
                    run.heights.append(height)  # the run of sleepers before it grows
                    run.set_heights(run.heights)
                    self.segments.append(run)
                    continue
                placeholder = SegmentPlaceholder(number, [height], width)
                self.segments.append(placeholder)
                await self.mount(placeholder)
                continue
            segment = StreamedMarkdown(
                continued=bool(self.segments),
                fence=piece.fence,
                look=self.markdown_look,
                carry=piece.carry,
                joins=self._joins_of(number),
            )
            segment.find = self.marks_of(number)
            self.segments.append(segment)
            self.sources.append("")
            await self.mount(segment)
            if piece.text:
                self._grow(piece.text)

    def _grow(self, text: str) -> None:
        """Append to the live (last) segment."""
        live = self.segments[-1]
        assert isinstance(live, StreamedMarkdown)  # the last one never sleeps while live
        self.sources[-1] += text
        self._measure(len(self.segments) - 1)
        live.streaming = True
        live.append(text)

    def _width(self) -> int:
        """The painter's width: the answer's less the segments' padding."""
        return max(1, self.content_size.width - 2 * SEGMENT_PADDING)

    def _tail(self, index: int, construct: Construct) -> None:
        """Segment `index` ends in a table or list that the next one continues."""
        if index < 0:
            return
        self.tails[index] = construct
        self._shared.join(construct, index)
        self._measure(index)

    def _measure(self, index: int) -> None:
        """A segment of a cut table or list changed: take its columns' measures again."""
        carry, tail = self.carries[index], self.tails[index]
        head = None if carry is None else carry.construct
        if head is not None:
            self._shared.touch(head)
            if head.kind == "table":
                source = carried(self.sources[index], "", carry)
                self._shared.measure(head, index, table_measures(source, last=False))
        if tail is not None and tail is not head and tail.kind == "table":
            source = carried(self.sources[index], "", carry)
            self._shared.measure(tail, index, table_measures(source, last=True))
        self._relayout()  # before the next piece is estimated with what changed

    def _joins_of(self, index: int) -> Callable[[int], Joins]:
        return lambda width: self.joins(index, width)

    def joins(self, index: int, width: int) -> Joins:
        """How segment `index` draws the table or list it shares with its neighbours."""
        return self._shared.joins(self.carries[index], self.tails[index], width)

    def _relayout(self) -> None:
        """A cut table whose widths changed (a wider row arrived) or a cut ordered list whose
        numbers became wider: its other segments are drawn again, or their heights estimated
        again if they sleep. That happens a few times per table or list (its widths follow
        its longest cells, bounded by the screen), however long it is."""
        for construct, heights in self._shared.changed(self._width()):
            for index in self._shared.members(construct):
                widget = self.segments[index] if index < len(self.segments) else None
                if isinstance(widget, StreamedMarkdown):
                    widget.refresh(layout=True)
                elif widget is not None and heights:
                    widget.set_height(index, self._estimated_height(index))

    def _seal_last(self) -> None:
        """The last segment gets no more text: drawn as sent from now on."""
        if self.segments and isinstance(self.segments[-1], StreamedMarkdown):
            self.segments[-1].streaming = False

    def _keep(self, text: str) -> None:
        """Text that arrives while the app exits: kept in the source, never drawn."""
        if not self.sources:
            self.sources.append("")
        self.sources[-1] += text

    def _carry_on(self, index: int) -> None:
        """Segment `index` was cut inside a code block that the next one carries on."""
        if index < 0 or self.ends_in_fence[index]:
            return
        self.ends_in_fence[index] = True
        widget = self.segments[index]
        if isinstance(widget, StreamedMarkdown):
            widget.ends_in_fence = True
        else:
            widget.set_height(index, self._estimated_height(index))

    def _born_asleep(self, pieces: list[str]) -> int:
        """How many of the queued `pieces` (counting from the first) may start asleep: new
        segments that arrive complete in one go (a fast stream, a reopened answer) with more
        than two screens of text after them. They would be rendered only to be put to sleep at
        once, so they get their height from an estimate instead (exact for what Rich renders,
        app/display/markdown_height.py) and are rendered if the reader scrolls to them."""
        width = self.content_size.width - 2 * SEGMENT_PADDING
        if not self.lazy or len(pieces) < 2 or width <= 0:
            return 0
        budget = 2 * self.screen.size.height
        below = 0
        for index in range(len(pieces) - 1, 0, -1):
            below += estimate_rows(pieces[index], width) + 1
            if below > budget:
                return index
        return 0

    def _estimated_height(self, index: int) -> int:
        """Segment `index`'s height as rendered at the current width, without rendering it."""
        width = self._width()
        return segment_rows(
            self.sources[index],
            width,
            continued=index > 0,
            fence=self.fences[index],
            ends_in_fence=self.ends_in_fence[index],
            carry=self.carries[index],
            joins=self.joins(index, width),
        )

    @property
    def source(self) -> str:
        """The Markdown shown, exactly as streamed (after sanitising)."""
        return "".join(self.sources)

    def show_found(
        self, pattern: re.Pattern[str] | None, current: tuple[int, int] | None = None
    ) -> None:
        """Highlight the find bar's matches (None: no more), `current` (segment, match in it)
        as the current one; segments woken later highlight theirs as they are drawn."""
        self._found = None if pattern is None else (pattern, current)
        for index, widget in enumerate(self.segments):
            if isinstance(widget, StreamedMarkdown):
                widget.find = self.marks_of(index)

    def marks_of(self, index: int) -> FindMarks | None:
        found = self._found
        if found is None:
            return None
        pattern, current = found
        nth = current[1] if current is not None and current[0] == index else None
        return FindMarks(pattern, nth)

    async def virtualize(self, near: Region) -> None:
        """Put to sleep the sealed segments far from `near` (screen coordinates of the viewport
        grown by a margin), and wake the sleeping ones that are inside it."""
        async with self._virtualizing:  # one pass at a time: each awaits mounts and removals
            await self._virtualize(near)

    async def _virtualize(self, near: Region) -> None:
        last = len(self.segments) - (0 if self.sealed else 1)
        index = 0
        while index < last:
            widget = self.segments[index]
            region = widget.region if widget.is_mounted else Region()
            if isinstance(widget, SegmentPlaceholder):
                ahead = min(widget.end, last)
                if region and region.overlaps(near):
                    near_ones = [
                        number
                        for number in range(index, ahead)
                        if Region(
                            region.x,
                            region.y + widget.row_of(number),
                            region.width,
                            widget.height_of(number),
                        ).overlaps(near)
                    ]
                    for number in near_ones:
                        await self._wake(number)
                index = max(ahead, index + 1)  # always forward, whatever the runs say
                continue
            if region and not region.overlaps(near):
                await self._sleep(index, widget)
            index += 1

    def remeasure(self) -> None:
        """After a width change: give every sleeping segment its height at the new width
        (estimated; the ones near the viewport are woken and rendered next)."""
        width = self.content_size.width
        for run in self._runs():
            if run.measured_width != width:
                run.set_heights([self._estimated_height(i) for i in range(run.first, run.end)])
                run.measured_width = width

    def on_resize(self) -> None:
        """The answer's own width changed (the window, or a scrollbar that came or went
        around it): sleeping heights were estimated at the old one."""
        self.remeasure()

    def _runs(self) -> list[SegmentPlaceholder]:
        runs: list[SegmentPlaceholder] = []
        for widget in self.segments:
            if isinstance(widget, SegmentPlaceholder) and (not runs or runs[-1] is not widget):
                runs.append(widget)
        return runs

    async def _sleep(self, index: int, widget: StreamedMarkdown) -> None:
        """Segment `index` joins the run of sleepers before or after it, or starts one."""
        if not (self.is_attached and widget.is_attached):
            return  # see `_swap`
        height = widget.outer_size.height
        before = self.segments[index - 1] if index > 0 else None
        after = self.segments[index + 1] if index + 1 < len(self.segments) else None
        if isinstance(before, SegmentPlaceholder) and before.is_attached:
            before.heights.append(height)
            self.segments[index] = before
            if isinstance(after, SegmentPlaceholder) and after.is_attached:
                before.heights.extend(after.heights)  # the two runs become one
                for number in range(after.first, after.end):
                    self.segments[number] = before
                await after.remove()
            before.set_heights(before.heights)
            await widget.remove()
            widget.release()
            return
        if isinstance(after, SegmentPlaceholder) and after.is_attached:
            after.first = index
            after.heights.insert(0, height)
            after.set_heights(after.heights)
            self.segments[index] = after
            await widget.remove()
            widget.release()
            return
        placeholder = SegmentPlaceholder(index, [height], self.content_size.width)
        await self._swap(index, widget, placeholder)

    async def _wake(self, index: int) -> None:
        """Render segment `index` again, cutting it out of its run of sleepers."""
        run = self.segments[index]
        if not isinstance(run, SegmentPlaceholder) or not (self.is_attached and run.is_attached):
            return  # awake already, or see `_swap`
        markdown = StreamedMarkdown(
            self.sources[index],
            continued=index > 0,
            fence=self.fences[index],
            look=self.markdown_look,
            carry=self.carries[index],
            joins=self._joins_of(index),
        )
        markdown.ends_in_fence = self.ends_in_fence[index]
        markdown.find = self.marks_of(index)
        cut = index - run.first
        left, right = run.heights[:cut], run.heights[cut + 1 :]
        # Every segment's entry and every run's span are set before the first await: while a
        # mount is awaited, the loop runs other work, a virtualize from another caller among it,
        # which must not find a run that no longer covers the index that points to it.
        self.segments[index] = markdown
        if not left and not right:
            await self.mount(markdown, after=run)
            await run.remove()
            return
        if not left:  # the run goes on after it
            run.first = index + 1
            run.set_heights(right)
            await self.mount(markdown, before=run)
            return
        run.set_heights(left)
        rest = SegmentPlaceholder(index + 1, right, run.measured_width) if right else None
        if rest is not None:
            for number in range(rest.first, rest.end):
                self.segments[number] = rest
        await self.mount(markdown, after=run)
        if rest is not None:
            await self.mount(rest, after=markdown)

    async def _swap(
        self, index: int, old: Widget, new: StreamedMarkdown | SegmentPlaceholder
    ) -> None:
        """Nothing to do when this answer has left the screen meanwhile (e.g. a comparison
        closed while its panes were still waking segments) or the app is exiting (Ctrl+Q
        right after a long answer, while segments are still being put to sleep): Textual
        refuses to mount then."""
        if not (self.is_attached and old.is_attached):
            return
        self.segments[index] = new
        await self.mount(new, after=old)
        await old.remove()
        if isinstance(old, StreamedMarkdown):
            old.release()


__all__ = ["AnswerView", "SegmentPlaceholder"]
