"""The history screen in the real app: newest first, a search that filters as you type, rename,
delete behind a confirmation, and Enter reopening a conversation into the chat pane."""

from __future__ import annotations

import itertools
from pathlib import Path

from textual.widgets import Input

from app.store import Store
from app.ui.screens.chat import ChatScreen
from app.ui.screens.history import HistoryScreen
from app.ui.widgets.history_dialogs import ConfirmDelete, RenameDialog
from app.ui.widgets.history_list import HistoryList
from app.ui.widgets.user_message import UserMessage
from app.ui.widgets.welcome import Welcome
from app.wire.events import EndOfStream, Finish, TextDelta, Usage
from app.wire.turn import Turn
from tests.fakes.provider import FakeProvider
from tests.ui.helpers import SIZE, fake_config, make_app, screen_text, wait_until

CHATS = (
    ("How do bananas ripen?", "Ethylene gas, mostly."),
    ("Explain SSE comments", "A line starting with a colon is a comment."),
    ("Write a haiku about [bold]markup[/bold]", "Brackets stay literal\nno style leaks"),
)


def seed(path: Path) -> list[int]:
    """Three finished chats, oldest first, written the way the app writes them."""
    clock = itertools.count(1_700_000_000, 10)
    store = Store.open(path, clock=lambda: float(next(clock)))
    ids = []
    for prompt, answer in CHATS:
        conv = store.create_conversation()
        store.add_user_message(conv, prompt)
        turn_id = store.start_turn(conv, provider="fake", model="m-1", api="chat")
        turn = Turn()
        turn.apply_all([TextDelta(answer), Usage(5, 7, 0), Finish("stop"), EndOfStream()])
        turn.end()
        store.save_turn(turn_id, turn, ttft_ms=120, duration_ms=900, final=True)
        ids.append(conv)
    store.close()
    return ids


def history_list(app: object) -> HistoryList:
    screen = app.screen  # type: ignore[attr-defined]
    assert isinstance(screen, HistoryScreen)
    return screen.results


async def test_list_search_rename_delete_and_open(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    db = tmp_path / "history.sqlite3"
    ids = seed(db)
    app = make_app(fake_config(fake_provider), tmp_path, history_file=db)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert "^o history" in screen_text(app)  # the key is in the footer
        await pilot.press("ctrl+o")
        await wait_until(pilot, lambda: isinstance(app.screen, HistoryScreen))
        await pilot.pause()
        listed = history_list(app)
        assert [s.id for s in listed.summaries] == ids[::-1]  # newest first
        text = screen_text(app)
        assert "How do bananas ripen?" in text
        assert "[bold]markup[/bold]" in text  # stored text is never markup
        assert "fake" in text
        assert "3 conversations" in text

        # the search filters as you type (FTS over prompts and answers)
        await pilot.press(*"ethyl")
        await wait_until(pilot, lambda: len(listed.summaries) == 1, what="the search")
        assert listed.summaries[0].id == ids[0]
        assert "Ethylene" in screen_text(app)  # the snippet where it matched
        for _ in range(5):
            await pilot.press("backspace")
        await wait_until(pilot, lambda: len(listed.summaries) == 3, what="the cleared search")

        # the highlight stayed on the conversation it was on; rename it
        await pilot.press("down")
        assert listed.has_focus
        target = listed.highlighted_summary
        assert target is not None
        assert target.id == ids[0]
        await pilot.press("r")
        await wait_until(pilot, lambda: isinstance(app.screen, RenameDialog))
        title_input = app.screen.query_one("#title", Input)
        assert title_input.value == "How do bananas ripen?"
        title_input.value = ""
        await pilot.press(*"Fruit")
        await pilot.press("enter")
        await wait_until(pilot, lambda: "Fruit" in [s.title for s in listed.summaries])
        check = Store.open(db)
        assert check.load(ids[0]).title == "Fruit"

        # delete asks first; Esc keeps it, so does Enter (the focus starts on Cancel)
        await pilot.press("up", "up")  # the newest: the haiku
        for keep in ("escape", "enter"):
            await pilot.press("d")
            await wait_until(pilot, lambda: isinstance(app.screen, ConfirmDelete))
            assert "[bold]markup[/bold]" in screen_text(app)
            await pilot.press(keep)
            await wait_until(pilot, lambda: isinstance(app.screen, HistoryScreen))
            assert len(listed.summaries) == 3
        await pilot.press("d")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmDelete))
        await pilot.press("y")
        await wait_until(pilot, lambda: len(listed.summaries) == 2, what="the deletion")
        assert [s.id for s in check.list_conversations()] == [ids[1], ids[0]]

        # Enter opens the highlighted conversation in the chat pane
        await pilot.press("down")
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, ChatScreen))
        await wait_until(pilot, lambda: len(app.pane.transcript.query(UserMessage)) == 1)
        await pilot.pause(0.1)
        assert app.pane.transcript.query_one(UserMessage).text == "How do bananas ripen?"
        assert "Ethylene gas, mostly." in screen_text(app)
        assert app.pane.history.record.conv_id == ids[0]
        check.close()


async def test_deleting_the_open_conversation_clears_the_chat(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    db = tmp_path / "history.sqlite3"
    ids = seed(db)
    app = make_app(fake_config(fake_provider), tmp_path, history_file=db, continue_last=True)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.pane.history.record.conv_id == ids[2])
        await pilot.press("ctrl+o")
        await wait_until(pilot, lambda: isinstance(app.screen, HistoryScreen))
        await pilot.press("down", "d")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmDelete))
        await pilot.press("y")
        await wait_until(pilot, lambda: len(history_list(app).summaries) == 2)
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, ChatScreen))
        await wait_until(
            pilot,
            lambda: [type(c) for c in app.pane.transcript.children] == [Welcome],
            what="a cleared chat, with only the welcome card",
        )
        assert app.pane.history.record.conv_id is None
