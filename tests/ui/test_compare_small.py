"""A comparison on a small terminal: below the width side by side needs, the
selected pane shows whole under a row of tabs naming every pane and its state, and the ranking
takes at most two lines. Against three fake providers over loopback, one per format."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from textual.widgets import Tab

from app.ui.app import TriptychApp
from app.ui.screens.compare import SIDE_BY_SIDE_WIDTH, CompareScreen
from app.wire.engine import Api
from tests.fakes import provider as fake
from tests.fakes.provider import FakeProvider
from tests.ui.compare_helpers import PLAIN, all_drawn, ask, compare_screen, config_for, reached
from tests.ui.helpers import make_app, screen_text, wait_until

SMALL = (80, 24)
WIDE = (160, 48)


def compare_app(fakes: dict[Api, FakeProvider], tmp_path: Path) -> TriptychApp:
    return make_app(config_for(fakes), tmp_path, compare=["cc", "am", "rs"])


def answers(fakes: dict[Api, FakeProvider]) -> None:
    """Each pane's answer is eight lines ending in a line naming the pane."""
    for api, server in fakes.items():
        lines = [f"line {n} of {api.value}\n\n" for n in range(1, 8)]
        server.push(fake.stream(api, replace(PLAIN, text=(*lines, f"end of {api.value}"))))


def tab_labels(screen: CompareScreen) -> list[str]:
    return [tab.label.plain for tab in screen.query(Tab)]


def shown(screen: CompareScreen) -> list[int]:
    return [pane.number for pane in screen.panes if pane.display and pane.region.height > 0]


async def test_at_80x24_the_selected_pane_shows_whole_under_a_tab_row(
    fakes: dict[Api, FakeProvider], tmp_path: Path
) -> None:
    answers(fakes)
    app = compare_app(fakes, tmp_path)
    async with app.run_test(size=SMALL) as pilot:
        screen = compare_screen(app)
        await pilot.pause()
        assert screen.tabs.display
        assert tab_labels(screen) == ["1 cc · ready", "2 am · ready", "3 rs · ready"]
        await ask(pilot, "eight lines please")
        await all_drawn(pilot)
        await wait_until(pilot, lambda: screen.ranking.display, what="the ranking")
        await wait_until(
            pilot,
            lambda: tab_labels(screen) == ["1 cc · complete", "2 am · complete", "3 rs · complete"],
            what="every tab complete",
        )
        assert shown(screen) == [1]
        pane = screen.panes[0]
        assert screen.ranking.region.height == 2  # every figure's order: two rows at 80
        assert pane.region.bottom <= screen.ranking.region.y
        # The whole answer, down to its last line (the pane follows it to its end).
        await wait_until(pilot, lambda: "end of chat" in screen_text(app), what="its last line")
        text = screen_text(app)
        assert "1 cc · complete" in text
        assert "3 rs · complete" in text
        assert "ranking " in text

        await pilot.press("alt+right")
        await wait_until(pilot, lambda: shown(screen) == [2], what="pane 2 shown")
        assert screen.selected == 1
        await wait_until(pilot, lambda: "end of messages" in screen_text(app), what="its end")
        assert screen.tabs.active_tab is not None
        assert screen.tabs.active_tab.label.plain == "2 am · complete"

        tabs = list(screen.query(Tab))
        await pilot.click(tabs[2])
        await wait_until(pilot, lambda: shown(screen) == [3], what="pane 3 shown")
        assert screen.selected == 2
        # A pane shown again goes to its end once it is laid out.
        await wait_until(pilot, lambda: "end of responses" in screen_text(app), what="its end")


async def test_tab_reaches_the_tab_row_and_arrows_there_change_pane(
    fakes: dict[Api, FakeProvider], tmp_path: Path
) -> None:
    app = compare_app(fakes, tmp_path)
    async with app.run_test(size=SMALL) as pilot:
        screen = compare_screen(app)
        await pilot.pause()
        assert app.focused is screen.prompt
        for _ in range(4):
            if app.focused is screen.tabs:
                break
            await pilot.press("tab")
        assert app.focused is screen.tabs
        await pilot.press("right")
        await wait_until(pilot, lambda: shown(screen) == [2], what="pane 2 shown")
        assert screen.selected == 1


async def test_the_tab_row_tells_a_streaming_pane_from_finished_ones(
    fakes: dict[Api, FakeProvider], tmp_path: Path
) -> None:
    fakes[Api.CHAT].push(fake.stream(Api.CHAT, PLAIN))
    fakes[Api.MESSAGES].push(fake.paced_forever(Api.MESSAGES, PLAIN, delay=0.05))
    fakes[Api.RESPONSES].push(fake.stream(Api.RESPONSES, PLAIN))
    app = compare_app(fakes, tmp_path)
    async with app.run_test(size=SMALL) as pilot:
        screen = compare_screen(app)
        await ask(pilot, "go")
        await reached(pilot, screen.panes[1], "word3")
        await wait_until(
            pilot,
            lambda: (
                tab_labels(screen) == ["1 cc · complete", "2 am · streaming", "3 rs · complete"]
            ),
            what="the tab states",
        )
        await pilot.press("escape")
        await all_drawn(pilot)
        await wait_until(pilot, lambda: "2 am · stopped" in tab_labels(screen))


async def test_wide_enough_for_every_pane_side_by_side_there_are_no_tabs(
    fakes: dict[Api, FakeProvider], tmp_path: Path
) -> None:
    assert SIDE_BY_SIDE_WIDTH == 50
    app = compare_app(fakes, tmp_path)
    async with app.run_test(size=WIDE) as pilot:
        screen = compare_screen(app)
        await pilot.pause()
        assert not screen.tabs.display
        assert shown(screen) == [1, 2, 3]
        assert len({p.region.y for p in screen.panes}) == 1
        await pilot.resize_terminal(3 * SIDE_BY_SIDE_WIDTH - 1, 40)
        await wait_until(pilot, lambda: shown(screen) == [1], what="one pane shown")
        assert screen.tabs.display
        await screen.remove_pane()  # the selected one, cc: two panes fit in 149 columns
        await wait_until(pilot, lambda: shown(screen) == [1, 2], what="two panes shown")
        assert not screen.tabs.display
        assert tab_labels(screen) == ["1 am · ready", "2 rs · ready"]


async def test_adding_a_pane_adds_its_tab_and_selects_it(
    fakes: dict[Api, FakeProvider], tmp_path: Path
) -> None:
    app = compare_app(fakes, tmp_path)
    async with app.run_test(size=SMALL) as pilot:
        screen = compare_screen(app)
        await pilot.pause()
        cc = app.config.providers["cc"]
        added = await screen.add_pane(replace(cc, model="other"), "other")
        assert added is not None
        await wait_until(pilot, lambda: shown(screen) == [4], what="the new pane shown")
        assert tab_labels(screen) == [
            "1 cc:cc-model · ready",
            "2 am · ready",
            "3 rs · ready",
            "4 cc:other · ready",
        ]
        assert shown(screen) == [4]
        assert screen.tabs.active_tab is not None
        assert screen.tabs.active_tab.label.plain.startswith("4 ")
