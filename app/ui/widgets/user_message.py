"""The user's prompt as it appears in the transcript (literal text, never markup)."""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Static

from app.display.sanitize import clean
from app.ui.widgets.attachment_chips import attachments_line
from app.wire.attachment import Attachment


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
        content = Content(clean(text))
        if attachments:  # the files sent with it, on a dim line of their own
            content += Content("\n") + Content.styled(attachments_line(attachments), "dim")
        super().__init__(content, markup=False)
        self.text = text
        self.attachments = attachments


__all__ = ["UserMessage"]
