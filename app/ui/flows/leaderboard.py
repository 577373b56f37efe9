"""Opening the leaderboard: the votes read from the history, fitted in a thread (the bootstrap
refits a thousand samples, which would hold up drawing), then the screen pushed with the rows."""

from __future__ import annotations

import asyncio

from app.compare.leaderboard import Standing, standings
from app.store import StoreError
from app.ui.flows.host import ChatHost
from app.ui.screens.leaderboard import LeaderboardScreen


async def show_leaderboard(host: ChatHost) -> None:
    history = host.history
    store = history.store
    if store is None:
        host.notify(
            history.problem or "History is off in this session: there are no votes to rate.",
            severity="warning",
        )
        return
    history.wait(0.5)  # the votes just cast are written
    try:
        votes = store.votes()  # on the loop, as the history's other reads
    except StoreError as exc:
        history.fail(exc)
        return
    rows: list[Standing] = await asyncio.to_thread(standings, votes)  # pure: safe in a thread
    await host.push_screen(LeaderboardScreen(rows))


__all__ = ["show_leaderboard"]
