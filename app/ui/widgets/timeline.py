"""A stream's timeline: Textual's own Sparkline of tokens per interval, a row of marks under it
(▲ first token, ─ stalls, ┃ end) and the figures beside them.

Sparkline is used as it is: it is handed exactly one value per column, so each bar is one
interval and lines up with its mark below. Panes side by side pass one shared `span`.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Sparkline, Static

from app.display.timeline import Timeline, figures_line, short_figures


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
        marks = self.timeline.marks(columns, self.span)
        self.query_one(".timeline--marks", Static).update(marks, layout=False)  # one line
        self.query_one(".timeline--figures", Static).update(figures_line(self.timeline.figures()))


FIGURES_WIDTH = 25  # "TTFT 1234 ms · ~123 tok/s" and a space before it (the CSS's width)


class PaneTimeline(Horizontal):
    """The compact row under a comparison pane's header: a one-line Sparkline over its marks,
    the short figures beside them. Every pane's row is drawn on the comparison's shared `span`,
    so the rows read as one chart: who started first, who stalled, who ended last."""

    DEFAULT_CSS = """
    PaneTimeline {
        height: 2;
        padding: 0 1;
        background: $panel 40%;
        & > Vertical { width: 1fr; height: 2; }
        & Sparkline { height: 1; width: 1fr; }
        & .timeline--marks { height: 1; color: $text-warning; }
        & > .timeline--figures { width: 25; height: 2; padding: 0 0 0 1; color: $text-muted; }
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.timeline = Timeline(())
        self.span: float | None = None

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Sparkline([])
            yield Static("", markup=False, classes="timeline--marks")
        yield Static("", markup=False, classes="timeline--figures")

    def show(self, timeline: Timeline, span: float | None = None) -> None:
        self.timeline, self.span = timeline, span
        self._draw()

    def on_resize(self) -> None:
        self._draw()

    def _draw(self) -> None:
        if not self.is_mounted:
            return
        # From the row's own width (what on_resize follows): the chart's is not laid out yet.
        columns = self.content_region.width - FIGURES_WIDTH
        if columns <= 0:
            return  # not laid out yet: on_resize draws it
        self.query_one(Sparkline).data = self.timeline.bins(columns, self.span)
        marks = self.timeline.marks(columns, self.span)
        self.query_one(".timeline--marks", Static).update(marks, layout=False)  # one line
        figures = short_figures(self.timeline.figures())
        self.query_one(".timeline--figures", Static).update(figures, layout=False)  # 25x2


__all__ = ["PaneTimeline", "StreamTimeline"]
