"""The app on a history that breaks: a damaged page is found at start (not whenever it happens
to be read) and a disk that fills while an answer is saved says "disk full"; either way history
goes off with one clear notice and the answer stays on screen. Over the fake provider."""

from __future__ import annotations

import sqlite3
from dataclasses import replace
from pathlib import Path

from app.store import Store
from app.wire.engine import Api
from app.wire.turn import TurnStatus
from tests.fakes import provider as fake
from tests.fakes.provider import ANSWER, FakeProvider
from tests.ui.helpers import SIZE, fake_config, make_app, screen_text, send, wait_drawn, wait_until

PLAIN = replace(ANSWER, reasoning=(), tool=None)


def damaged_history(path: Path) -> None:
    """Thirty conversations, then one leaf page of `messages` overwritten with garbage: the
    file opens fine, and only reading that page fails."""
    store = Store.open(path)
    for i in range(30):
        conv = store.create_conversation(title=f"talk {i}")
        store.add_user_message(conv, f"question {i} " + "q" * 3000)
    store.close()
    with sqlite3.connect(path) as conn:
        pages = [
            row[0]
            for row in conn.execute(
                "SELECT pageno FROM dbstat WHERE name = 'messages' AND pagetype = 'leaf' "
                "ORDER BY pageno"
            )
        ]
        page_size = conn.execute("PRAGMA page_size").fetchone()[0]
    with path.open("r+b") as f:
        f.seek((pages[len(pages) // 2] - 1) * page_size)
        f.write(b"\xde\xad" * (page_size // 2))


async def test_a_damaged_page_turns_history_off_at_start_and_chatting_goes_on(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    db = tmp_path / "history.sqlite3"
    damaged_history(db)
    fake_provider.push(fake.stream(Api.CHAT, PLAIN))
    app = make_app(fake_config(fake_provider), tmp_path, history_file=db)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await wait_until(pilot, lambda: "History is off" in screen_text(app), what="the notice")
        assert not app.history.enabled
        assert "is damaged" in (app.history.problem or "")
        await send(pilot, "still there?")
        await wait_drawn(pilot)
        assert app.pane.turn is not None
        assert app.pane.turn.status is TurnStatus.COMPLETE
        assert "Hello, world." in screen_text(app)


async def test_an_intact_history_raises_no_alarm(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    db = tmp_path / "history.sqlite3"
    store = Store.open(db)
    store.add_user_message(store.create_conversation(), "an old question")
    store.close()
    fake_provider.push(fake.stream(Api.CHAT, PLAIN))
    app = make_app(fake_config(fake_provider), tmp_path, history_file=db)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await send(pilot, "hello")
        await wait_drawn(pilot)
        app.history.wait()
        assert app.history.enabled
        assert len(app.history.conversations()) == 2
        assert "History is off" not in screen_text(app)


async def test_disk_full_while_saving_a_big_answer_says_so_and_keeps_it_on_screen(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    db = tmp_path / "history.sqlite3"
    big = replace(PLAIN, text=("A long answer. " * 40 + "\n\n",) * 200 + ("The end.",))
    fake_provider.push(fake.stream(Api.CHAT, big))
    app = make_app(fake_config(fake_provider), tmp_path, history_file=db)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        store = app.history.store
        assert store is not None
        pages = store._conn.execute("PRAGMA page_count").fetchone()[0]
        store._conn.execute(f"PRAGMA max_page_count = {pages + 12}")  # room for a prompt only
        await send(pilot, "a big one")
        await wait_until(pilot, lambda: "History is off" in screen_text(app), what="the notice")
        problem = app.history.problem or ""
        assert "disk full" in problem
        assert "rollback" not in problem
        await wait_drawn(pilot, timeout=15)
        assert app.pane.turn is not None
        assert app.pane.turn.status is TurnStatus.COMPLETE
        assert app.pane.current is not None
        assert app.pane.current.answer.source == "".join(big.text)  # the whole answer is kept
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT text FROM messages WHERE role = 'user'").fetchall() == [
            ("a big one",)
        ]
