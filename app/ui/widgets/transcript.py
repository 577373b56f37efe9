"""The scrolling conversation. It follows a stream (stays at the bottom) until the user scrolls
up; Textual releases the anchor then, and re-anchors when they scroll back to the end.

The anchor is only set once the content overflows: an anchored container with short content is
drawn bottom-aligned (negative scroll), which would leave a short chat hanging above the prompt
with a blank screen over it.

It also keeps the number of live widgets bounded: answers put segments far from the viewport to
sleep and wake them when they come near (see answer.py), on every render tick and on scrolling.
"""

from __future__ import annotations

from textual.containers import VerticalScroll
from textual.events import Resize
from textual.geometry import Region

from app.ui.widgets.answer import AnswerView
from app.ui.widgets.assistant_turn import AssistantTurn


class Transcript(VerticalScroll):
    BLANK = True  # a large container with no content of its own: skip rendering its lines
    DEFAULT_CSS = """
    Transcript {
        height: 1fr;
        background: $background;
        scrollbar-size-vertical: 1;
    }
    """

    def __init__(self) -> None:
        super().__init__()
        self._virtualize_queued = False
        self._virtualize_requests = 0  # scrolls and stream ends since start
        self._virtualize_seen = 0  # ... as of the queued run
        self._width = 0

    def settle_anchor(self) -> None:
        """Anchor once the content overflows; drop the anchor if it no longer does."""
        overflowing = self.virtual_size.height > self.scrollable_content_region.height
        if overflowing and not self.is_anchored:
            self.anchor()
        elif not overflowing and self.is_anchored:
            self.anchor(False)
            self.scroll_to(y=0, animate=False, immediate=True)

    def follow(self) -> None:
        """Back to the bottom and following, e.g. when the user sends a new prompt."""
        if self.is_anchored:
            self.scroll_end(animate=False, immediate=False)
        self.call_after_refresh(self.settle_anchor)

    def answers(self) -> list[AnswerView]:
        return [child.answer for child in self.children if isinstance(child, AssistantTurn)]

    async def virtualize(self, shift: int = 0) -> None:
        """Sleep segments more than half a screen away from the viewport (moved by `shift`
        rows, for a scroll about to happen); wake those within it."""
        viewport = self.region
        if not viewport:
            return
        shift += self._scrolled_since_layout()
        margin = viewport.height // 2 + 1
        near = Region(
            viewport.x, viewport.y + shift - margin, viewport.width, viewport.height + 2 * margin
        )
        for answer in self.answers():
            await answer.virtualize(near)

    def _scrolled_since_layout(self) -> int:
        """Rows scrolled since the regions were last laid out. Regions come from the last
        layout, so right after a jump (a fast answer mounted at once, then the scroll to its
        end) they still stand where the view was: without this the segments now in view would
        be judged far and put to sleep, and the screen left blank."""
        first = next(iter(self.children), None)
        if first is None or not first.region:
            return 0
        laid_out_at = self.content_region.y + first.virtual_region.y - first.region.y
        return round(self.scroll_y) - laid_out_at

    async def page(self, direction: int) -> None:
        """Page up or down, waking what the new page will show before it is drawn."""
        page = direction * self.scrollable_content_region.height
        # Shift only by how far the scroll will really go: at the top or bottom it stops early,
        # and a full-page shift would put to sleep what stays in view.
        target = max(0.0, min(float(self.max_scroll_y), self.scroll_y + page))
        with self.app.batch_update():
            await self.virtualize(round(target - self.scroll_y))
        if direction < 0:
            self.scroll_page_up(animate=False)
        else:
            self.scroll_page_down(animate=False)

    def watch_scroll_y(self, old: float, new: float) -> None:
        super().watch_scroll_y(old, new)
        self.virtualize_later()

    def virtualize_later(self) -> None:
        """Virtualize once the next layout is known (after a scroll, or a stream's last frame,
        which may have mounted many segments at once). Regions are only right after a refresh
        that followed the latest scroll, so a request made while one is queued defers it."""
        self._virtualize_requests += 1
        if not self._virtualize_queued:
            self._virtualize_queued = True
            self._virtualize_seen = self._virtualize_requests
            self.call_after_refresh(self._virtualize_queued_now)

    async def _virtualize_queued_now(self) -> None:
        if self._virtualize_seen != self._virtualize_requests:  # scrolled since: wait again
            self._virtualize_seen = self._virtualize_requests
            self.call_after_refresh(self._virtualize_queued_now)
            return
        self._virtualize_queued = False
        with self.app.batch_update():
            await self.virtualize()

    async def on_resize(self, event: Resize) -> None:
        """Sleeping heights were measured at the old width: estimate them again at the new
        one, and wake what is near."""
        if event.size.width != self._width:
            self._width = event.size.width
            self.call_after_refresh(self._remeasure)

    def _remeasure(self) -> None:
        for answer in self.answers():
            answer.remeasure()
        self.virtualize_later()


__all__ = ["Transcript"]
