"""The user's prompt as it appears in the transcript (literal text, never markup)."""

from __future__ import annotations

import re

from textual.content import Content
from textual.widgets import Static

from app.display.sanitize import clean
from app.ui.widgets.attachment_chips import attachments_line
from app.wire.attachment import Attachment

FOUND_STYLE = "on $warning 35%"  # as an answer's matches (app/ui/widgets/markdown_view.py)
CURRENT_STYLE = "bold $background on $warning"


class UserMessage(Static):
    DEFAULT_CSS = """
    UserMessage {
        height: auto;
        margin: 1 1 1 1;
        padding: 0 1;
        border-left: thick $accent;
        background: $boost;
        color: $foreground;
    }
    UserMessage.-branched { margin: 0 1 1 1; }  /* its `‹ 2/3 ›` marker sits right above it */
    UserMessage.-selected { border-left: thick $warning; background: $accent 20%; }
    """

    def __init__(self, text: str, attachments: tuple[Attachment, ...] = ()) -> None:
        super().__init__(self._content(clean(text), attachments), markup=False)
        self.text = text
        self.attachments = attachments
        self.shown = clean(text)  # what the find bar searches: the prompt as drawn
        self._marked = False

    @staticmethod
    def _content(
        text: str, attachments: tuple[Attachment, ...], marks: Content | None = None
    ) -> Content:
        content = marks if marks is not None else Content(text)
        if attachments:  # the files sent with it, on a dim line of their own
            content += Content("\n") + Content.styled(attachments_line(attachments), "dim")
        return content

    def show_found(self, pattern: re.Pattern[str] | None, current: int | None = None) -> None:
        """Highlight the find bar's matches (None: no more), the `current`-th as current."""
        if pattern is None and not self._marked:
            return  # nothing to take off
        self._marked = pattern is not None
        marks = None
        if pattern is not None:
            marks = Content(self.shown)
            for nth, match in enumerate(pattern.finditer(self.shown)):
                style = CURRENT_STYLE if nth == current else FOUND_STYLE
                marks = marks.stylize(style, *match.span())
        # The same text in other colours: the same size, so no layout of the whole screen.
        self.update(self._content(self.shown, self.attachments, marks), layout=False)


__all__ = ["UserMessage"]
