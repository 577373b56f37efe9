"""The leaderboard screen: the standings fitted from votes, literal names, intervals drawn on one
scale, and a plain sentence when there are no votes."""

from __future__ import annotations

from collections.abc import Callable

from rich.text import Text
from textual.app import App
from textual.widgets import DataTable, Static

from app.compare.leaderboard import standings
from app.store.votes import Vote, VotePane
from app.ui.screens.leaderboard import NO_VOTES, LeaderboardScreen

A = VotePane("alpha", "a-1", ttft_ms=300, tok_s=80.0, cost=0.002)
B = VotePane("[red]beta[/red]", "b-2", ttft_ms=500, tok_s=40.0)
C = VotePane("gamma", "c-3", ttft_ms=200, tok_s=120.0, cost=0.004)
VOTES = [
    *(Vote("q", (A, B), "winner", 0) for _ in range(6)),
    *(Vote("q", (A, B), "winner", 1) for _ in range(2)),
    *(Vote("q", (B, C), "winner", 1) for _ in range(5)),
    Vote("q", (A, C), "tie"),
    Vote("q", (A, B, C), "skipped"),
]


class Host(App[None]):
    def __init__(self, screen: LeaderboardScreen) -> None:
        super().__init__()
        self.board = screen

    def on_mount(self) -> None:
        self.push_screen(self.board)


async def test_the_table_is_the_standings_with_literal_names() -> None:
    rows = standings(VOTES, rounds=50)
    app = Host(LeaderboardScreen(rows))
    async with app.run_test(size=(140, 20)) as pilot:
        await pilot.pause()
        table = app.screen.query_one(DataTable)
        assert table.row_count == 3
        cells = [[str(c) for c in table.get_row_at(i)] for i in range(3)]
        names = [line[1] for line in cells]
        assert "[red]beta[/red]:b-2" in names  # shown as written, not as markup
        assert names == [f"{r.provider}:{r.model}" for r in rows]
        assert [line[2] for line in cells] == [f"{r.rating:.0f}" for r in rows]
        assert all("●" in line[4] for line in cells)
        cell = table.get_row_at(0)[1]
        assert isinstance(cell, Text)
        assert not cell.spans  # no styles smuggled in from the name
        await pilot.press("escape")
        assert not isinstance(app.screen, LeaderboardScreen)


async def test_no_votes_says_what_to_do() -> None:
    app = Host(LeaderboardScreen([]))
    async with app.run_test(size=(100, 10)) as pilot:
        await pilot.pause()
        assert str(app.screen.query_one("#leaderboard-empty", Static).render()) == NO_VOTES


def test_leaderboard_snapshot(snap_compare: Callable[..., bool]) -> None:
    assert snap_compare(
        Host(LeaderboardScreen(standings(VOTES, rounds=50))), terminal_size=(140, 12)
    )
