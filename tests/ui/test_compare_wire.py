"""The wire in a comparison: F2 opens the inspector beside the panes on the selected
pane's stream and follows the selection, while streaming and on a reopened comparison; F4 puts
a timeline row under every pane's header on one shared time axis; a blind round keeps the wire
shut. Real app, fake providers over loopback HTTP, a history file."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Sparkline, Static

from app.demo.loopback import Pause
from app.ui.app import TriptychApp
from app.ui.screens.compare import CompareScreen
from app.ui.screens.compare_wire import HIDDEN, visible_rows
from app.ui.widgets.frame_list import FrameList
from app.ui.widgets.inspector import Inspector
from app.ui.widgets.timeline import PaneTimeline
from app.wire.engine import Api
from tests.fakes import provider as fake
from tests.fakes.provider import FakeProvider
from tests.ui.compare_helpers import PLAIN, all_drawn, answer, ask, compare_screen, config_for
from tests.ui.helpers import make_app, screen_text, wait_until

WIDE = (200, 60)


def two_panes(fakes: dict[Api, FakeProvider], tmp_path: Path, **kwargs: Any) -> TriptychApp:
    return make_app(
        config_for(fakes),
        tmp_path,
        compare=["cc", "am"],
        history_file=tmp_path / "history.sqlite3",
        **kwargs,
    )


def text_of(inspector: Inspector, selector: str) -> str:
    return str(inspector.query_one(selector, Static).render())


async def test_f2_shows_the_selected_panes_stream_and_follows_the_selection(
    fakes: dict[Api, FakeProvider], tmp_path: Path
) -> None:
    fakes[Api.CHAT].push(fake.stream(Api.CHAT, answer(*(f"w{i} " for i in range(60))), delay=0.05))
    fakes[Api.MESSAGES].push(fake.stream(Api.MESSAGES, PLAIN))
    app = two_panes(fakes, tmp_path)
    async with app.run_test(size=WIDE) as pilot:
        screen = compare_screen(app)
        first, second = screen.panes
        await ask(pilot, "hello both")
        await wait_until(pilot, lambda: first.turn is not None and first.turn.exchange)
        await pilot.press("f2")
        inspector = screen.query_one(Inspector)
        assert inspector is screen.inspector
        assert inspector.display
        frames = inspector.query_one(FrameList)
        assert app.focused is frames
        turn = first.turn
        assert turn is not None
        assert turn.exchange is not None
        assert inspector.exchange is turn.exchange
        seen: set[int] = set()  # the list grew in place while the pane streamed
        while not turn.done:
            seen.add(len(frames.rows))
            await pilot.pause(0.05)
        await wait_until(pilot, lambda: len(frames.rows) == len(turn.exchange.frames))
        assert len(seen) >= 2
        assert text_of(inspector, "#inspector-request-text").startswith(
            f"POST {fakes[Api.CHAT].url}"
        )
        assert not screen.tabs.display  # both panes still side by side beside the inspector
        assert "hello both" in screen_text(app)

        await pilot.press("alt+right")  # select the other pane: the inspector follows
        assert second.turn is not None
        await wait_until(
            pilot, lambda: inspector.exchange is second.turn.exchange, what="the selection"
        )
        await pilot.pause()
        request = text_of(inspector, "#inspector-request-text")
        assert request.startswith(f"POST {fakes[Api.MESSAGES].url}")
        assert "content_block_delta" in screen_text(app)
        await pilot.press("s")
        await pilot.pause()
        saved = list((tmp_path / "recordings").glob("triptych-am-*.jsonl"))
        assert len(saved) == 1, list((tmp_path / "recordings").glob("*"))
        assert "content_block_delta" in saved[0].read_text()
        await pilot.press("f2")
        assert not inspector.display
        assert app.focused is screen.query_one("#prompt")


async def test_a_reopened_comparison_shows_each_panes_kept_stream(
    fakes: dict[Api, FakeProvider], tmp_path: Path
) -> None:
    fakes[Api.CHAT].push(fake.stream(Api.CHAT, PLAIN))
    fakes[Api.MESSAGES].push(fake.stream(Api.MESSAGES, PLAIN))
    first_run = two_panes(fakes, tmp_path)
    async with first_run.run_test(size=WIDE) as pilot:
        await ask(pilot, "an old question")
        await all_drawn(pilot)
        live = []
        for pane in compare_screen(first_run).panes:
            assert pane.turn is not None
            assert pane.turn.exchange is not None
            live.append([(f.event, f.data) for f in pane.turn.exchange.frames])
    again = make_app(
        config_for(fakes), tmp_path, history_file=tmp_path / "history.sqlite3", continue_last=True
    )
    async with again.run_test(size=WIDE) as pilot:
        await wait_until(pilot, lambda: "complete" in screen_text(again), what="reopened")
        screen = compare_screen(again)
        await pilot.press("f2")
        inspector = screen.inspector
        for index, frames in enumerate(live):
            await wait_until(
                pilot,
                lambda frames=frames: (
                    inspector.exchange is not None
                    and [(f.event, f.data) for f in inspector.exchange.frames] == frames
                ),
                what=f"pane {index + 1}'s kept stream",
            )
            await pilot.press("alt+right")
        await pilot.press("f4")  # the timelines of reopened answers, from their kept streams
        await pilot.pause(0.3)
        rows = visible_rows(screen.panes)
        assert len(rows) == 2
        for row in rows:
            assert row.timeline.first is not None


async def test_f4_rows_share_one_axis_so_the_late_and_stalled_pane_shows(
    fakes: dict[Api, FakeProvider], tmp_path: Path
) -> None:
    fakes[Api.CHAT].push(fake.stream(Api.CHAT, PLAIN))
    late = fake.silent_after_start(Api.MESSAGES, 1.1, PLAIN)
    fakes[Api.MESSAGES].push(replace(late, steps=(Pause(0.3), *late.steps)))
    app = two_panes(fakes, tmp_path)
    async with app.run_test(size=(160, 40)) as pilot:
        screen = compare_screen(app)
        await pilot.press("f4")
        rows = visible_rows(screen.panes)
        assert len(rows) == 2  # there before any answer, empty
        await ask(pilot, "race")
        await all_drawn(pilot, timeout=10)
        await pilot.pause(0.6)  # a poll of the rows after the last frame
        fast, slow = (pane.query_one(PaneTimeline) for pane in screen.panes)
        assert fast.span == slow.span == slow.timeline.span  # one axis: the longest stream
        for row in (fast, slow):
            spark = row.query_one(Sparkline)
            assert spark.data is not None
            assert len(spark.data) == spark.size.width > 20
            children = list(row.parent.children) if row.parent else []
            assert children.index(row) == 1  # right under the pane's header
        fast_marks = str(fast.query_one(".timeline--marks", Static).render())
        slow_marks = str(slow.query_one(".timeline--marks", Static).render())
        assert fast_marks.index("▲") < slow_marks.index("▲")  # who started first
        assert "─" in slow_marks  # and who stalled
        assert "─" not in fast_marks
        assert "stall 1." in str(slow.query_one(".timeline--figures", Static).render())
        await pilot.press("f4")
        await pilot.pause()
        assert visible_rows(screen.panes) == []


async def test_a_blind_round_keeps_the_wire_shut(
    fakes: dict[Api, FakeProvider], tmp_path: Path
) -> None:
    fakes[Api.CHAT].push(fake.stream(Api.CHAT, PLAIN))
    fakes[Api.MESSAGES].push(fake.stream(Api.MESSAGES, PLAIN))
    app = two_panes(fakes, tmp_path, blind=True)
    async with app.run_test(size=WIDE) as pilot:
        screen = compare_screen(app)
        await ask(pilot, "who is who")
        await all_drawn(pilot)
        assert screen.hidden
        await pilot.press("f2")
        await pilot.pause()
        assert not screen.inspector.display
        assert HIDDEN in [n.message for n in app._notifications]
        assert "Inspect the wire" not in [c.name for c in screen.commands()]
        await pilot.press("f4")  # the rows name nobody: they may show
        await pilot.pause()
        assert len(visible_rows(screen.panes)) == 2


async def test_a_blind_start_selects_its_first_pane_once(
    fakes: dict[Api, FakeProvider], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The tab row's own first activation arrives after the screen selected its first pane (a
    shuffled one): taken at its word, it selected another pane, whose activation then came
    back the same way, without end."""
    selects: list[int] = []
    select = CompareScreen._select

    def counted(screen: CompareScreen, index: int) -> None:
        selects.append(index)
        select(screen, index)

    monkeypatch.setattr(CompareScreen, "_select", counted)
    app = make_app(config_for(fakes), tmp_path, compare=["cc", "am", "rs"], blind=True)
    async with app.run_test(size=WIDE) as pilot:
        for _ in range(20):
            await pilot.pause()
        screen = compare_screen(app)
        assert len(selects) <= 2, selects[:10]
        assert screen.tabs.active == screen._tab_ids[id(screen.selected_pane)]
