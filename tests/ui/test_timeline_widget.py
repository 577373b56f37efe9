"""The timeline widget: one Sparkline bar per column, marks lined up under them, panes on a shared
axis, and the figures beside them."""

from __future__ import annotations

from collections.abc import Callable

from textual.app import App, ComposeResult
from textual.widgets import Sparkline, Static

from app.display.timeline import Arrival, Timeline, shared_span
from app.ui.widgets.timeline import StreamTimeline

FAST = Timeline(tuple(Arrival(0.2 + i * 0.02, 4) for i in range(100)), ended=2.3)
SLOW = Timeline(
    (
        *(Arrival(1.0 + i * 0.02, 4) for i in range(50)),
        *(Arrival(4.0 + i * 0.02, 4) for i in range(50)),
    ),
    ended=5.0,
)


class Rows(App[None]):
    def compose(self) -> ComposeResult:
        yield StreamTimeline("fast · demo-1", id="fast")
        yield StreamTimeline("slow · demo-2", id="slow")

    def on_mount(self) -> None:
        span = shared_span([FAST, SLOW])
        self.query_one("#fast", StreamTimeline).show(FAST, span)
        self.query_one("#slow", StreamTimeline).show(SLOW, span)


async def test_rows_share_an_axis_and_mark_first_token_stall_and_end() -> None:
    app = Rows()
    async with app.run_test(size=(60, 12)) as pilot:
        await pilot.pause()
        fast, slow = app.query_one("#fast", StreamTimeline), app.query_one("#slow", StreamTimeline)
        for row in (fast, slow):
            spark = row.query_one(Sparkline)
            assert spark.data is not None
            assert len(spark.data) == spark.size.width == 58  # one interval per column
        fast_marks = str(fast.query_one(".timeline--marks", Static).render())
        slow_marks = str(slow.query_one(".timeline--marks", Static).render())
        assert fast_marks.index("▲") < slow_marks.index("▲")  # who started first
        assert fast_marks.index("┃") < slow_marks.index("┃")  # and who ended first
        assert "─" in slow_marks  # the slow one stalled for 2 s
        assert "─" not in fast_marks
        figures = str(slow.query_one(".timeline--figures", Static).render())
        assert figures.startswith("TTFT 1000 ms")
        assert "longest silence 2.0 s" in figures
        await pilot.resize_terminal(40, 20)
        await pilot.pause()
        spark = slow.query_one(Sparkline)
        assert spark.data is not None
        assert len(spark.data) == spark.size.width == 38  # redrawn for the new width


def test_timeline_rows_snapshot(snap_compare: Callable[..., bool]) -> None:
    assert snap_compare(Rows(), terminal_size=(60, 12))
