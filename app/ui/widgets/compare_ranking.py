"""The ranking under a comparison once every pane is done: every figure's whole order (first
token, total, output tokens, cost), on one row when it fits, else on two. A row still too long
for a narrow terminal is cut; "Show the full ranking" (the palette) opens it whole, one figure
a line, as the tooltip shows it too.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static

from app.compare.stats import LOWER_IS_BETTER, PaneStats, ranking_line, ranking_parts, ranking_rows
from app.display.sanitize import clean_line

LABEL = "ranking "


class CompareRanking(Static):
    DEFAULT_CSS = """
    CompareRanking {
        height: auto;
        max-height: 2;
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
        self.text = ""  # the whole ranking on one line
        self.parts: list[str] = []  # each figure's whole order
        self.rows: list[str] = []  # as shown now: one row or two

    def rank(self, stats: Sequence[PaneStats]) -> None:
        self.parts = [clean_line(part) for part in ranking_parts(stats)]
        self.text = clean_line(ranking_line(stats))
        self.tooltip = Content(self.whole())
        self.display = True
        self._show()

    def whole(self) -> str:
        """The ranking one figure a line, as the full view shows it."""
        if len(self.parts) == 1:
            return self.parts[0]
        return "\n".join([f"time and cost: {LOWER_IS_BETTER}", *self.parts])

    def on_resize(self, event: events.Resize) -> None:
        if self.text:
            self._show()

    def _show(self) -> None:
        width = self.content_region.width or self.app.size.width - 2
        self.rows = ranking_rows(self.parts, width - len(LABEL))
        label = Content.styled(LABEL, "bold $text-primary")
        lines = [Content.assemble(label, Content(self.rows[0]))]
        lines += [Content(" " * len(LABEL) + row) for row in self.rows[1:]]
        self.update(Content("\n").join(lines))

    def clear(self) -> None:
        self.text = ""
        self.parts = []
        self.rows = []
        self.tooltip = None
        self.display = False


class FullRanking(ModalScreen[None]):
    """The whole ranking, one figure a line, however narrow the terminal; Esc closes it."""

    DEFAULT_CSS = """
    FullRanking {
        align: center middle;
        & > Vertical {
            width: 90%;
            height: auto;
            max-height: 90%;
            padding: 1 2;
            background: $panel;
            border: round $primary;
        }
        & Static { width: 1fr; height: auto; }
        & .ranking--title { text-style: bold; color: $text-primary; }
        & .ranking--keys { color: $text-muted; margin-top: 1; }
    }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "dismiss", "close"),
        Binding("enter", "dismiss", "close", show=False),
    ]

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static("Ranking", classes="ranking--title", markup=False)
            yield Static(self.text, id="full-ranking", markup=False)
            yield Static("Esc closes", classes="ranking--keys", markup=False)

    async def action_dismiss(self, result: None = None) -> None:
        self.dismiss(result)


__all__ = ["CompareRanking", "FullRanking"]
