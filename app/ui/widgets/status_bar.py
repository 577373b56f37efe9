"""The one-line status bar under a conversation: provider · model · state · speed · usage."""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Static

from app.display.status_fit import fit_status
from app.display.status_line import DIM, ERROR, GOOD, SEPARATOR, STATE, WARN, Segment

_STYLES = {
    DIM: "$text-muted",
    STATE: "bold $text-primary",
    GOOD: "bold $text-success",
    WARN: "bold $text-warning",
    ERROR: "bold $text-error",
}


def segments_content(segments: list[Segment]) -> Content:
    """Literal text only: segments are never parsed as markup."""
    pieces: list[Content] = []
    for index, (text, role) in enumerate(segments):
        if index:
            pieces.append(Content.styled(SEPARATOR, "$text-muted"))
        pieces.append(Content.styled(text, _STYLES.get(role, "")))
    return Content.assemble(*pieces)


class StatusBar(Static):
    DEFAULT_CSS = """
    StatusBar {
        height: 1;
        width: 1fr;
        &.-wrap { height: auto; max-height: 3; }
        padding: 0 1;
        background: $panel;
        color: $foreground;
    }
    """

    def __init__(self, *, fit: bool = False, id: str | None = None) -> None:
        """`fit`: shorten the chat's status to one line (`fit_status`); a comparison pane's
        own segments wrap instead."""
        super().__init__("", id=id, markup=False)
        self.fit = fit
        self.segments: list[Segment] = []  # as shown: fitted to the bar's width
        self._full: list[Segment] = []  # everything the pane said

    def show(self, segments: list[Segment]) -> None:
        """Redraw if changed, shortened to one line of the bar (`fit_status`). One line needs
        no layout pass (a full reflow of the screen); only a status that still does not fit
        (a long error code) grows the bar."""
        self._full = segments
        if self.fit:
            segments = fit_status(segments, self.size.width)  # the width inside the padding
        if segments == self.segments:
            return
        self.segments = segments
        wrap = len(self.plain) + (0 if self.fit else 2) > self.size.width > 0
        layout = wrap or self.has_class("-wrap")
        self.set_class(wrap, "-wrap")
        self.update(segments_content(segments), layout=layout)

    def on_resize(self) -> None:
        self.show(self._full)  # a wider bar shows more again, a narrower one less

    @property
    def plain(self) -> str:
        return SEPARATOR.join(text for text, _ in self.segments)


__all__ = ["StatusBar", "segments_content"]
