"""A stream's timeline: Textual's own Sparkline of tokens per interval, a row of marks under it
(▲ first token, ─ stalls, ┃ end) and the figures beside them.

Sparkline is used as it is: it is handed exactly one value per column, so each bar is one
interval and lines up with its mark below. Panes side by side pass one shared `span`.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Sparkline, Static

from app.display.timeline import Timeline, figures_line


class StreamTimeline(Vertical):
    DEFAULT_CSS = """
    StreamTimeline {
        height: auto;
        padding: 0 1;
        & > Sparkline { height: 2; width: 1fr; }
        & > .timeline--marks { height: 1; color: $text-warning; }
        & > .timeline--figures { height: auto; color: $text-muted; }
        & > .timeline--label { height: 1; color: $text-primary; text-style: bold; }
    }
    """

    def __init__(self, label: str = "", *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.label = label
        self.timeline = Timeline(())
        self.span: float | None = None

    def compose(self) -> ComposeResult:
        if self.label:
            yield Static(self.label, markup=False, classes="timeline--label")
        yield Sparkline([])
        yield Static("", markup=False, classes="timeline--marks")
        yield Static("", markup=False, classes="timeline--figures")

    def show(self, timeline: Timeline, span: float | None = None) -> None:
        """Draw `timeline` on the axis [0, span] (its own length when None)."""
        self.timeline, self.span = timeline, span
        self._draw()

    def on_resize(self) -> None:
        self._draw()

    def _draw(self) -> None:
        if not self.is_mounted:
            return
        columns = self.query_one(Sparkline).size.width or max(self.size.width - 2, 1)
        self.query_one(Sparkline).data = self.timeline.bins(columns, self.span)
        self.query_one(".timeline--marks", Static).update(self.timeline.marks(columns, self.span))
        self.query_one(".timeline--figures", Static).update(figures_line(self.timeline.figures()))


__all__ = ["StreamTimeline"]
