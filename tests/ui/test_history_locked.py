"""A history file another program holds does not freeze the screen: the app opens it on a
thread after its first frame, where opening may wait up to the store's busy timeout (10 s), and
the prompt takes keys meanwhile. Once the other program lets go, the history opens as usual."""

from __future__ import annotations

import sqlite3
import time
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from textual.worker import WorkerState

from app.demo.names import with_demo_providers
from app.settings.config import Config
from app.store.db import Store
from app.ui.widgets.prompt import PromptInput
from tests.ui.helpers import SIZE, make_app, send, wait_drawn, wait_until


async def test_the_prompt_takes_keys_while_the_history_waits_for_its_file(
    tmp_path: Path,
) -> None:
    db = tmp_path / "history.db"
    Store.open(db).close()
    other = sqlite3.connect(db, isolation_level=None)
    with closing(other):
        other.execute("PRAGMA locking_mode = EXCLUSIVE")  # as another program may hold it
        other.execute("BEGIN EXCLUSIVE")
        other.execute("CREATE TABLE held (x)")
        app = make_app(with_demo_providers(Config(path=None)), tmp_path, history_file=db)
        async with app.run_test(size=SIZE) as pilot:
            await wait_until(pilot, lambda: app.workers, what="the history opening")
            (opening,) = [w for w in app.workers if w.group == "history"]
            await pilot.press("h", "i")
            assert app.screen.query_one("#prompt", PromptInput).text == "hi"
            assert opening.state is WorkerState.RUNNING  # still waiting for the file
            other.close()  # the other program lets go
            await wait_until(pilot, lambda: opening.state is WorkerState.SUCCESS)
            assert app.history.problem is None
            assert app.history.store is not None


async def test_a_prompt_sent_while_the_history_opens_is_saved(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Sent at once after the first frame, while the thread is still opening the file: the
    prompt waits for the store rather than finding none (the real TUI lost its answers so)."""
    db = tmp_path / "history.db"
    Store.open(db).close()
    opening = Store.open.__func__  # type: ignore[attr-defined]

    def slow_open(cls: type[Store], path: Path, **kwargs: Any) -> Store:
        time.sleep(0.5)  # a big file, a slow disk
        return opening(cls, path, **kwargs)  # type: ignore[no-any-return]

    monkeypatch.setattr(Store, "open", classmethod(slow_open))
    app = make_app(with_demo_providers(Config(path=None)), tmp_path, history_file=db)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.workers, what="the history opening")
        assert app.history.waiting  # still opening
        await send(pilot, "hello")
        await wait_drawn(pilot)
        app.history.wait(5)
    with closing(sqlite3.connect(db)) as conn:
        saved = conn.execute("SELECT role, text FROM messages ORDER BY id").fetchall()
    assert saved[0] == ("user", "hello")
    assert [role for role, _ in saved] == ["user", "assistant"]
