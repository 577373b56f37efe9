"""The ranking under a comparison shows every figure's whole order (not only each figure's
winner, the rest once in a mouse-only tooltip): one row when it fits, two when it does not, and
the palette's "Show the full ranking" opens it whole. The leaderboard opens from the
comparison's palette and from the vote bar once a vote is in. Real app, fake providers over
loopback HTTP."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.pilot import Pilot
from textual.widgets import Static

from app.ui.screens.leaderboard import LeaderboardScreen
from app.ui.widgets.compare_ranking import FullRanking
from app.ui.widgets.vote_bar import VoteBar
from app.wire.engine import Api
from tests.fakes.provider import FakeProvider
from tests.ui.compare_helpers import (
    NAMES,
    all_drawn,
    ask,
    compare_screen,
    config_for,
    push_each,
)
from tests.ui.helpers import make_app, wait_until
from tests.ui.test_compare_blind import blind_app, voted_round

NARROW = (120, 36)
FIGURES = ("first token", "total", "output tokens", "cost")


async def command(pilot: Pilot[Any], name: str) -> None:
    await pilot.press("ctrl+p")
    await pilot.press(*name)
    await pilot.pause(0.3)
    await pilot.press("enter")


async def test_a_ranking_too_long_for_one_row_takes_two_with_every_order(
    fakes: dict[Api, FakeProvider], tmp_path: Path
) -> None:
    push_each(fakes, "says one.")
    config = config_for(fakes, price_in=3.0, price_out=15.0)
    app = make_app(config, tmp_path, compare=list(NAMES.values()))
    async with app.run_test(size=NARROW) as pilot:
        screen = compare_screen(app)
        await ask(pilot, "first")
        await all_drawn(pilot)
        await wait_until(pilot, lambda: screen.ranking.display, what="the ranking")
        ranking = screen.ranking
        assert len("ranking " + ranking.text) > NARROW[0]  # one row cannot hold it
        assert len(ranking.rows) == 2
        assert ranking.size.height == 2
        shown = " · ".join(ranking.rows)
        for part in ranking.parts:  # each figure's whole order, every pane named in it
            assert part in shown
            assert all(label in part for label in NAMES.values())
        assert [p.split(": ")[0] for p in ranking.parts] == list(FIGURES)

        await command(pilot, "Show the full ranking")
        await wait_until(pilot, lambda: isinstance(app.screen, FullRanking), what="the ranking")
        whole = str(app.screen.query_one("#full-ranking", Static).render())
        assert whole.splitlines()[1:] == ranking.parts
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is screen, what="the comparison again")


async def test_the_ranking_keeps_one_row_when_it_fits(
    fakes: dict[Api, FakeProvider], tmp_path: Path
) -> None:
    push_each(fakes, "says one.")
    app = make_app(config_for(fakes), tmp_path, compare=["cc", "am"])
    async with app.run_test(size=(220, 36)) as pilot:
        screen = compare_screen(app)
        await ask(pilot, "first")
        await all_drawn(pilot)
        await wait_until(pilot, lambda: screen.ranking.display, what="the ranking")
        assert screen.ranking.rows == [screen.ranking.text]
        assert screen.ranking.size.height == 1


async def test_the_leaderboard_opens_from_the_comparison_palette_and_the_vote_bar(
    fakes: dict[Api, FakeProvider], tmp_path: Path
) -> None:
    app = blind_app(fakes, tmp_path, blind=True)
    async with app.run_test(size=(160, 40)) as pilot:
        screen = compare_screen(app)
        await voted_round(pilot, fakes, "which")
        # blind: its figures (median TTFT, cost) would say which letter is whose
        assert "Leaderboard" not in [choice.name for choice in screen.commands()]
        await pilot.press("alt+1")
        await wait_until(pilot, lambda: screen.vote_bar.undoable, what="the vote cast")
        text = str(screen.vote_bar.render())
        assert text.endswith(" · leaderboard"), text
        await pilot.click(VoteBar, offset=(1 + text.index("leaderboard") + 2, 0))
        await wait_until(pilot, lambda: isinstance(app.screen, LeaderboardScreen), what="board")
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is screen, what="the comparison again")
        await command(pilot, "Leaderboard")
        await wait_until(pilot, lambda: isinstance(app.screen, LeaderboardScreen), what="board")
