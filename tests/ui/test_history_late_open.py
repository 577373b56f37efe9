"""The history opens after the first frame (sqlite3 and the store are not loaded for
the first screen), or on its first use when that comes sooner: a prompt sent before it opened
is stored like any other, and a damaged file still says so. Over the fake provider on loopback.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from contextlib import closing
from pathlib import Path

from app.ui.app import TriptychApp
from app.wire.engine import Api
from tests.fakes import provider as fake
from tests.fakes.provider import ANSWER, FakeProvider
from tests.ui.helpers import SIZE, fake_config, make_app, send, wait_drawn, wait_until


def late_app(
    server: FakeProvider, tmp_path: Path, db: Path
) -> tuple[TriptychApp, Callable[[], None]]:
    """An app that holds back what it does after its first frame (opening the history among
    it) until the test calls the function returned: a prompt can be sent before the file is
    open, as on a slow disk."""
    app = make_app(fake_config(server), tmp_path, history_file=db)
    after_first_frame = app._first_frame_shown
    app._first_frame_shown = lambda: None  # type: ignore[method-assign]
    return app, after_first_frame


def prompts(db: Path) -> list[str]:
    with closing(sqlite3.connect(db)) as conn:
        return [text for (text,) in conn.execute("SELECT text FROM messages WHERE role='user'")]


async def test_a_prompt_sent_before_the_history_opened_is_stored(tmp_path: Path) -> None:
    db = tmp_path / "history.sqlite3"
    with FakeProvider() as server:
        server.push(fake.stream(Api.CHAT, ANSWER))
        app, after_first_frame = late_app(server, tmp_path, db)
        async with app.run_test(size=SIZE, notifications=True) as pilot:
            await pilot.pause()
            assert app.history.waiting  # the first frame opened nothing
            assert not db.exists()
            await send(pilot, "asked before the history opened")
            await wait_drawn(pilot)
            assert not app.history.waiting  # its first use opened it
            app.history.wait(5)
            assert prompts(db) == ["asked before the history opened"]
            after_first_frame()  # later: opening again changes nothing
            assert app.history.enabled
            assert "History is off" not in str(app._notifications)
        assert prompts(db) == ["asked before the history opened"]


async def test_the_history_opens_after_the_first_frame_and_tells_of_a_damaged_file(
    tmp_path: Path,
) -> None:
    db = tmp_path / "history.sqlite3"
    db.write_bytes(b"this is not a database" * 100)
    with FakeProvider() as server:
        app, after_first_frame = late_app(server, tmp_path, db)
        async with app.run_test(size=SIZE, notifications=True) as pilot:
            await pilot.pause()
            assert app.history.waiting
            after_first_frame()
            await wait_until(pilot, lambda: app._notifications, what="the notice")
            assert not app.history.waiting
            assert not app.history.enabled
            assert "History is off" in [n.title for n in app._notifications]
