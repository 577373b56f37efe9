"""The line under a comparison that ranks the panes once every one of them is done."""

from __future__ import annotations

from collections.abc import Sequence

from textual.content import Content
from textual.widgets import Static

from app.compare.stats import PaneStats, ranking_line
from app.display.sanitize import clean_line


class CompareRanking(Static):
    DEFAULT_CSS = """
    CompareRanking {
        height: auto;
        max-height: 3;
        width: 1fr;
        padding: 0 1;
        background: $panel;
        color: $text-muted;
        display: none;
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("", id=id, markup=False)
        self.text = ""

    def rank(self, stats: Sequence[PaneStats]) -> None:
        self.text = clean_line(ranking_line(stats))
        label = Content.styled("ranking ", "bold $text-primary")
        self.update(Content.assemble(label, Content(self.text)))
        self.display = True

    def clear(self) -> None:
        self.text = ""
        self.display = False


__all__ = ["CompareRanking"]
