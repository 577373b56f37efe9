"""The scrolling conversation. It follows a stream (stays at the bottom) until the user scrolls
up; Textual releases the anchor then, and re-anchors when they scroll back to the end.

The anchor is only set once the content overflows: an anchored container with short content is
drawn bottom-aligned (negative scroll), which would leave a short chat hanging above the prompt
with a blank screen over it.
"""

from __future__ import annotations

from textual.containers import VerticalScroll


class Transcript(VerticalScroll):
    DEFAULT_CSS = """
    Transcript {
        height: 1fr;
        background: $background;
        scrollbar-size-vertical: 1;
    }
    """

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


__all__ = ["Transcript"]
