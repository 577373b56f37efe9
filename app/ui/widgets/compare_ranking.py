"""The line under a comparison that ranks the panes once every one of them is done.

One line at any width: the whole ranking when it fits, else the longest of its shorter forms
that does (the best pane of each figure); the whole ranking is always in the tooltip.
"""

from __future__ import annotations

from collections.abc import Sequence

from textual import events
from textual.content import Content
from textual.widgets import Static

from app.compare.stats import PaneStats, ranking_forms
from app.display.sanitize import clean_line

LABEL = "ranking "


class CompareRanking(Static):
    DEFAULT_CSS = """
    CompareRanking {
        height: 1;
        width: 1fr;
        padding: 0 1;
        background: $panel;
        color: $text-muted;
        text-wrap: nowrap;
        text-overflow: ellipsis;
        display: none;
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("", id=id, markup=False)
        self.text = ""  # the whole ranking
        self.forms: list[str] = []  # it and its shorter forms, longest first

    def rank(self, stats: Sequence[PaneStats]) -> None:
        self.forms = [clean_line(form) for form in ranking_forms(stats)]
        self.text = self.forms[0]
        self.tooltip = Content(self.text)
        self.display = True
        self._show()

    def on_resize(self, event: events.Resize) -> None:
        if self.text:
            self._show()

    def _show(self) -> None:
        width = self.content_region.width or self.app.size.width - 2
        fits = [form for form in self.forms if len(LABEL) + len(form) <= width]
        text = fits[0] if fits else self.forms[-1]
        label = Content.styled(LABEL, "bold $text-primary")
        self.update(Content.assemble(label, Content(text)))

    def clear(self) -> None:
        self.text = ""
        self.forms = []
        self.tooltip = None
        self.display = False


__all__ = ["CompareRanking"]
