"""The scrolling conversation. It follows a stream (stays at the bottom) until the reader
scrolls up, and then holds their place, however the content grows or changes height, until they
come back: End, PageDown or the wheel reaching the end, or a click on the "▼ new text below"
marker, shown while text arrives below the view.

`following` is ours, not Textual's anchor: the anchor is only the means (it keeps the view at the
end inside the layout, with no second frame). Textual releases it when the reader scrolls, but
would re-anchor whenever the position touches the end, e.g. when shrinking content clamps it there;
only a move of the reader's does that here. The anchor is only set once the content overflows: an
anchored container with short content is drawn bottom-aligned (negative scroll), which would leave
a short chat hanging above the prompt with a blank screen over it.

It also keeps the number of live widgets bounded: answers put segments far from the viewport to
sleep and wake them when they come near (see answer.py), on every render tick and on scrolling.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from textual.await_remove import AwaitRemove
from textual.containers import VerticalScroll
from textual.events import Click, MouseScrollDown, MouseScrollUp, Resize
from textual.geometry import Region, Size
from textual.widget import AwaitMount, Widget
from textual.widgets import Static

from app.ui.widgets.assistant_turn import AssistantTurn
from app.ui.widgets.user_message import UserMessage

if TYPE_CHECKING:
    from app.ui.widgets.answer import AnswerView

NEW_TEXT_BELOW = "▼ new text below"


class NewTextMarker(Static):
    """The row under a transcript scrolled back while text arrives below; a click follows the
    stream again."""

    DEFAULT_CSS = """
    NewTextMarker {
        height: 1;
        width: 1fr;
        display: none;
        content-align: center middle;
        background: $primary-muted;
        color: $text;
        text-style: bold;
    }
    """

    def __init__(self, transcript: Transcript) -> None:
        super().__init__(NEW_TEXT_BELOW, markup=False)
        self.transcript = transcript

    async def on_click(self, event: Click) -> None:
        event.stop()
        await self.transcript.follow_end()


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
        self.following = True  # the view stays at the end as text arrives
        self.reading_width: int = 0  # columns the content may use; 0: all of them
        self._height_left = 0  # the content's height when the reader scrolled back
        self.marker = NewTextMarker(self)  # composed by the pane, under the transcript

    @property
    def overflowing(self) -> bool:
        return self.virtual_size.height > self.scrollable_content_region.height

    def settle_anchor(self) -> None:
        """After a frame: anchor once the content overflows (while following); drop the anchor
        if it no longer does; show the marker when text arrived below a held view."""
        overflowing = self.overflowing
        if overflowing and self.following and not self.is_anchored:
            self.anchor()
        elif not overflowing and self.is_anchored:
            self.anchor(False)
            self.scroll_to(y=0, animate=False, immediate=True)
        if (
            not self.following
            and self.virtual_size.height > self._height_left
            and self.scroll_y < self.max_scroll_y
        ):
            self.marker.display = True

    def _scroll_update(self, virtual_size: Size) -> None:
        """Textual's hook for a new virtual size (a layout changed the content's height): settle
        the anchor then too. The render clock settles it only on its ticks, and a fast answer's
        last frame can be laid out after its last settle, leaving the view short of the end."""
        super()._scroll_update(virtual_size)
        self.call_after_refresh(self.settle_anchor)

    def remove_children(self, selector: str | type[Widget] | Iterable[Widget] = "*") -> AwaitRemove:
        """What is left may be shorter than the view: drop the anchor first (settled again
        after the next refresh), or Textual draws it bottom-aligned under blank rows meanwhile."""
        if self.is_anchored:
            self.anchor(False)
        self.call_after_refresh(self.settle_anchor)
        return super().remove_children(selector)

    def follow(self) -> None:
        """Back to the bottom and following, e.g. when the user sends a new prompt."""
        self._following_again()
        if self.is_anchored:
            self.scroll_end(animate=False, immediate=False)
        self.call_after_refresh(self.settle_anchor)

    def hold(self) -> None:
        """The reader scrolled up (or tried to, on a short chat): stop following."""
        if self.following:
            self.following = False
            self._height_left = self.virtual_size.height

    async def follow_end(self) -> None:
        """The reader asked for the end (End, the marker): wake what it shows, go there and
        follow again."""
        with self.app.batch_update():
            await self.virtualize(round(self.max_scroll_y - self.scroll_y))
        self._follow_now()

    def _following_again(self) -> None:
        self.following = True
        self.marker.display = False

    def _follow_now(self) -> None:
        """Follow from where the view is, which is the end or will be at once."""
        self._following_again()
        if self.overflowing:
            self.anchor()  # scrolls to the end now, and re-engages a released anchor
        self.virtualize_later()

    def on_mouse_scroll_up(self, event: MouseScrollUp) -> None:
        """Before Textual scrolls (or cannot, on a short chat): the reader wants to read back."""
        self.hold()

    def on_mouse_scroll_down(self, event: MouseScrollDown) -> None:
        """At the end already (a short chat, or held there), the wheel follows again; further
        up, reaching the end does (watch_scroll_y)."""
        if not self.following and self.scroll_y >= self.max_scroll_y:
            self._follow_now()

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

    async def bring_into_view(self, widget: Widget, row: int = 0) -> None:
        """Scroll row `row` of `widget` (a message, a segment, or a run of sleeping ones) to
        the middle of the view, unless it shows already; what the view will show is woken
        first, as for a page. The find bar jumps to a match this way."""
        region = widget.region
        if not region:
            return  # not laid out (yet)
        y = region.y - self.content_region.y + round(self.scroll_y) + row
        y -= self._scrolled_since_layout()
        top, height = round(self.scroll_y), self.scrollable_content_region.height
        if top <= y < top + height - 1:  # the last row may be under the marker
            return
        target = max(0, min(self.max_scroll_y, y - height // 2))
        self.hold()
        if self.is_anchored:
            self.release_anchor()
        with self.app.batch_update():
            await self.virtualize(round(target - self.scroll_y))
        self.scroll_to(y=target, animate=False, immediate=True)

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
        if direction < 0:
            self.hold()  # also on a short chat, where nothing moves
        with self.app.batch_update():
            await self.virtualize(round(target - self.scroll_y))
        # At once, not after the next refresh: reaching the end must re-anchor after Textual
        # has released the anchor for this scroll, not before.
        self.scroll_to(y=target, animate=False, immediate=True)
        if direction > 0 and target >= self.max_scroll_y and not self.following:
            self._follow_now()  # PageDown at the end already (a short chat): nothing moved

    def watch_scroll_y(self, old: float, new: float) -> None:
        """Every scroll, whoever made it. Content growing never moves `scroll_y`, and the
        anchor sets it without this watcher, so a move up below the end is the reader's; a
        clamp (content shrank under the view) lands exactly on the end and is not."""
        super().watch_scroll_y(old, new)
        if new < old and new < self.max_scroll_y:
            self.hold()
        elif new > old and new >= self.max_scroll_y and not self.following:
            self._follow_now()
        elif not self.following and self.is_anchored and new >= self.max_scroll_y:
            self.release_anchor()  # Textual re-anchors on touching the end: not ours to do
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

    def mount(
        self,
        *widgets: Widget,
        before: int | str | Widget | None = None,
        after: int | str | Widget | None = None,
    ) -> AwaitMount:
        """Every prompt and answer keeps to `reading_width` columns, left-aligned: long lines
        of prose are hard to follow on a wide terminal (the scrollbar stays at the edge). Set
        by a chat; a comparison's panes are narrow anyway."""
        for widget in widgets:
            if isinstance(widget, AssistantTurn | UserMessage):  # the welcome card: its own
                widget.styles.max_width = self.reading_width or None
        return super().mount(*widgets, before=before, after=after)

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


__all__ = ["NEW_TEXT_BELOW", "NewTextMarker", "Transcript"]
