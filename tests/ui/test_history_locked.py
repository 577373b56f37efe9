"""A history file another program holds does not freeze the screen: the app opens it on a
thread after its first frame, where opening may wait up to the store's busy timeout (10 s), and
the prompt takes keys meanwhile. Once the other program lets go, the history opens as usual."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

from textual.worker import WorkerState

from app.demo.names import with_demo_providers
from app.settings.config import Config
from app.store.db import Store
from app.ui.widgets.prompt import PromptInput
from tests.ui.helpers import SIZE, make_app, wait_until


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
