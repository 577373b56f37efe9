"""The answer: streamed Markdown split over several segment widgets, the ones far out of view
swapped for blank placeholders of the same height.

Each segment renders its own source (app/ui/widgets/markdown_view.py), so appending re-renders
only the last one, and a new segment is started at safe points (see app/display/segments.py).
A sealed segment more than half a screen away from the viewport is replaced by a placeholder and
rebuilt from its source when it comes back near, so what stays in memory and in every layout
depends on the screen, not on the length of the conversation.
"""

from __future__ import annotations

from textual.containers import Vertical
from textual.geometry import Region
from textual.widget import Widget
from textual.widgets import Static

from app.display.markdown_height import estimate_rows
from app.display.markdown_render import MarkdownLook
from app.display.segments import SegmentCutter
from app.ui.widgets.markdown_view import (
    SEGMENT_PADDING,
    StreamedMarkdown,
    look_of,
    segment_rows,
)


class SegmentPlaceholder(Static):
    """Blank space standing in for a segment out of view, as tall as the segment."""

    BLANK = True

    def __init__(self, height: int, width: int) -> None:
        super().__init__("", markup=False)
        self.styles.height = height
        self.measured_width = width


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
        self.segments: list[StreamedMarkdown | SegmentPlaceholder] = []
        self.sealed = False  # the stream is over: the last segment may sleep too
        self._look: tuple[str, MarkdownLook] | None = None  # (theme name, its look)

    def markdown_look(self) -> MarkdownLook:
        """The theme's look, worked out once per theme for all segments."""
        theme = self.app.theme
        if self._look is None or self._look[0] != theme:
            self._look = (theme, look_of(self.app))
        return self._look[1]

    async def append(self, text: str, *, final: bool = False) -> None:
        """Append streamed text; `final` also releases what the cutter held back."""
        pieces = self._cutter.feed(text)
        openers = self._cutter.openers
        if final:
            pieces[-1] += self._cutter.flush()
        asleep = self._born_asleep(pieces)
        for index, piece in enumerate(pieces):
            if not self.is_attached:  # the app is exiting: keep the text, mount nothing more
                self._keep("".join(pieces[index:]))
                break
            if index or not self.segments:
                if not piece and index:
                    continue
                fence = openers[index] if index else ""
                if fence:  # a code block cut in two: the segment before it loses its padding
                    self._carry_on(len(self.segments) - 1)
                self.fences.append(fence)
                self.ends_in_fence.append(False)
                if index < asleep:
                    self.sources.append(piece)
                    self.ends_in_fence[-1] = bool(openers[index + 1]) and bool(pieces[index + 1])
                    placeholder = SegmentPlaceholder(
                        self._estimated_height(len(self.segments)), self.content_size.width
                    )
                    self.born_asleep += 1
                    self.segments.append(placeholder)
                    await self.mount(placeholder)
                    continue
                segment = StreamedMarkdown(
                    continued=bool(self.segments), fence=fence, look=self.markdown_look
                )
                self._seal_last()
                self.segments.append(segment)
                self.sources.append("")
                await self.mount(segment)
            if piece:
                live = self.segments[-1]
                assert isinstance(live, StreamedMarkdown)  # the last one never sleeps while live
                self.sources[-1] += piece
                live.streaming = True
                live.append(piece)
        if final:
            self._seal_last()
        # Sealed only now: a virtualize pass running while the appends above were awaited must
        # not put the last segment to sleep under an append still in flight.
        self.sealed = self.sealed or final

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
            widget.styles.height = self._estimated_height(index)

    def _born_asleep(self, pieces: list[str]) -> int:
        """How many of `pieces` (counting from the first) may start asleep: new segments that
        arrive complete in one go (a fast stream, a reopened answer) with more than two
        screens of text after them. They would be rendered only to be put to sleep at once, so
        they get their height from an estimate instead (exact for what Rich renders,
        app/display/markdown_height.py) and are rendered if the reader scrolls to them."""
        width = self.content_size.width - 2 * SEGMENT_PADDING
        if not self.lazy or len(pieces) < 3 or width <= 0:
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
        return segment_rows(
            self.sources[index],
            max(1, self.content_size.width - 2 * SEGMENT_PADDING),
            continued=index > 0,
            fence=self.fences[index],
            ends_in_fence=self.ends_in_fence[index],
        )

    @property
    def source(self) -> str:
        """The Markdown shown, exactly as streamed (after sanitising)."""
        return "".join(self.sources)

    async def virtualize(self, near: Region) -> None:
        """Put to sleep the sealed segments far from `near` (screen coordinates of the viewport
        grown by a margin), and wake the sleeping ones that are inside it."""
        last = len(self.segments) - (0 if self.sealed else 1)
        for index in range(last):
            widget = self.segments[index]
            region = widget.region if widget.is_mounted else Region()
            if not region:
                continue
            if isinstance(widget, StreamedMarkdown) and not region.overlaps(near):
                await self._sleep(index, widget)
            elif isinstance(widget, SegmentPlaceholder) and region.overlaps(near):
                await self._wake(index, widget)

    def remeasure(self) -> None:
        """After a width change: give every sleeping segment its height at the new width
        (estimated; the ones near the viewport are woken and rendered next)."""
        width = self.content_size.width
        for index, widget in enumerate(self.segments):
            if isinstance(widget, SegmentPlaceholder) and widget.measured_width != width:
                widget.styles.height = self._estimated_height(index)
                widget.measured_width = width

    async def _sleep(self, index: int, widget: StreamedMarkdown) -> None:
        placeholder = SegmentPlaceholder(widget.outer_size.height, self.content_size.width)
        await self._swap(index, widget, placeholder)

    async def _wake(self, index: int, widget: SegmentPlaceholder) -> None:
        markdown = StreamedMarkdown(
            self.sources[index],
            continued=index > 0,
            fence=self.fences[index],
            look=self.markdown_look,
        )
        markdown.ends_in_fence = self.ends_in_fence[index]
        await self._swap(index, widget, markdown)

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


__all__ = ["AnswerView", "SegmentPlaceholder"]
