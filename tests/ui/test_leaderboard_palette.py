"""The palette's "Leaderboard" opens the ratings of the votes stored in the history."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.pilot import Pilot
from textual.widgets import DataTable, Static

from app.store import Store
from app.store.votes import Vote, VotePane
from app.ui.screens.leaderboard import NO_VOTES, LeaderboardScreen
from tests.fakes.provider import FakeProvider
from tests.ui.helpers import SIZE, fake_config, make_app, wait_until

A, B = VotePane("alpha", "a-1"), VotePane("beta", "b-1")


async def open_leaderboard(pilot: Pilot[Any]) -> None:
    await pilot.press("ctrl+p")
    await pilot.press(*"Leaderboard")
    await pilot.pause(0.3)
    await pilot.press("enter")


async def test_the_leaderboard_shows_the_stored_votes(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    db = tmp_path / "history.sqlite3"
    store = Store.open(db)
    for winner in (0, 0, 0, 1):
        store.record_vote(Vote("which?", (A, B), "winner", winner))
    store.close()
    app = make_app(fake_config(fake_provider), tmp_path, history_file=db)
    async with app.run_test(size=SIZE) as pilot:
        await open_leaderboard(pilot)
        await wait_until(pilot, lambda: isinstance(app.screen, LeaderboardScreen), what="board")
        table = app.screen.query_one(DataTable)
        names = [str(table.get_row_at(i)[1]) for i in range(table.row_count)]
        assert names == ["alpha:a-1", "beta:b-1"]  # three wins of four rate alpha first


async def test_no_votes_yet(fake_provider: FakeProvider, tmp_path: Path) -> None:
    app = make_app(fake_config(fake_provider), tmp_path, history_file=tmp_path / "h.sqlite3")
    async with app.run_test(size=SIZE) as pilot:
        await open_leaderboard(pilot)
        await wait_until(pilot, lambda: isinstance(app.screen, LeaderboardScreen), what="board")
        text = str(app.screen.query_one("#leaderboard-empty", Static).render())
        assert text == NO_VOTES
