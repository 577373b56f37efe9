"""The history list at 80x24: two rows per conversation (title, facts) that never wrap to a
third, a one-prompt attempt that did not complete says how it ended, and a search snippet is
shown without the Markdown marks of the answer it was cut from."""

from __future__ import annotations

import itertools
from pathlib import Path

from app.store import Store
from app.ui.screens.history import HistoryScreen
from app.wire.events import EndOfStream, Finish, StreamError, TextDelta, Usage
from app.wire.turn import Turn
from tests.fakes.provider import FakeProvider
from tests.ui.helpers import fake_config, make_app, screen_text, wait_until

SMALL = (80, 24)
LONG_TITLE = "How do bananas ripen? " + "A question that goes on and on " * 3
ANSWER = "## Ethylene\n\nA **gas**, mostly `C2H4`: see [the wiki](https://example.org).\n- ripe\n"


def seed(path: Path) -> dict[str, int]:
    clock = itertools.count(1_700_000_000, 10)
    store = Store.open(path, clock=lambda: float(next(clock)))
    ids: dict[str, int] = {}

    def chat(name: str, prompt: str, events: list[object], *, stopped: bool = False) -> None:
        conv = store.create_conversation()
        store.add_user_message(conv, prompt)
        turn_id = store.start_turn(
            conv, provider="a-provider-with-a-rather-long-name", model="m-1", api="chat"
        )
        turn = Turn()
        turn.apply_all(events)  # type: ignore[arg-type]
        turn.end(stopped=stopped)
        store.save_turn(turn_id, turn, ttft_ms=120, duration_ms=900, final=True)
        ids[name] = conv

    done = [Usage(5, 7, 0), Finish("stop"), EndOfStream()]
    chat("long", LONG_TITLE, [TextDelta(ANSWER), *done])
    chat("failed", "error please", [TextDelta("half"), StreamError("overloaded", "Overloaded")])
    chat("stopped", "long please", [TextDelta("a start")], stopped=True)
    chat("interrupted", "cut please", [TextDelta("a start")])
    chat("fine", "hello", [TextDelta("Hi"), *done])
    store.close()
    return ids


def entry_rows(text: str, title_start: str) -> list[str]:
    """The rows from a conversation's title row down to the rule under it."""
    lines = [line.strip(" ▊▎") for line in text.splitlines()]  # the focused list's border
    top = next(i for i, line in enumerate(lines) if line.startswith(title_start))
    rows = []
    for line in lines[top:]:
        if line.startswith("─") or not line:
            break
        rows.append(line)
    return rows


async def test_two_rows_per_conversation_and_how_an_attempt_ended(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    db = tmp_path / "history.sqlite3"
    ids = seed(db)
    app = make_app(fake_config(fake_provider), tmp_path, history_file=db)
    async with app.run_test(size=SMALL) as pilot:
        await pilot.press("ctrl+o")
        await wait_until(pilot, lambda: isinstance(app.screen, HistoryScreen))
        await pilot.pause()
        text = screen_text(app)
        for title in ("hello", "cut please", "long please", "error please"):
            rows = entry_rows(text, title)
            assert len(rows) == 2, rows
            assert rows[1].startswith("#")
            assert rows[1].endswith("…") or len(rows[1]) < 76
        assert "· failed" in entry_rows(text, "error please")[1]
        assert "· stopped" in entry_rows(text, "long please")[1]
        assert "· interrupted" in entry_rows(text, "cut please")[1]
        for title in ("hello",):
            facts = entry_rows(text, title)[1]
            assert not any(word in facts for word in ("failed", "stopped", "interrupted"))
        info = text.splitlines()[4]
        assert info.rstrip().endswith(("one", "opens")), info  # the hint is not cut off

        # the long title is cut to one row; scroll to it
        screen = app.screen
        assert isinstance(screen, HistoryScreen)
        screen.results.focus()
        await pilot.press("end")
        await pilot.pause()
        rows = entry_rows(screen_text(app), "How do bananas")
        assert len(rows) == 2, rows
        assert rows[0].endswith("…")

        # a search: title, facts and a snippet without Markdown marks, one row each
        screen.search.focus()
        await pilot.press(*"ethylene")
        listed = screen.results
        await wait_until(pilot, lambda: [s.id for s in listed.summaries] == [ids["long"]])
        await pilot.pause()
        rows = entry_rows(screen_text(app), "How do bananas")
        assert len(rows) == 3, rows
        assert rows[2] == "Ethylene A gas, mostly C2H4: see the wiki. ripe"
