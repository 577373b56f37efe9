"""History writes never hold up the app, and follow the stream rather than the screen.

Another process holding the history's write lock used to freeze drawing and typing for the
busy timeout (ten seconds), since the save ran on the UI loop; and an answer was saved finally
only once the screen had caught up with it, so a fast long answer could be lost to a kill while
the display was still behind. Over the fake provider on loopback, with a real second process
holding the lock.
"""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import threading
from dataclasses import replace
from pathlib import Path

import pytest

from app.demo.loopback import Reply, SeenRequest
from app.ui.screens.history import HistoryScreen
from app.ui.widgets.prompt import PromptInput
from app.wire.engine import Api
from app.wire.turn import TurnStatus
from tests.fakes import provider as fake
from tests.fakes.provider import ANSWER, FakeProvider
from tests.ui.helpers import SIZE, fake_config, make_app, screen_text, send, wait_until

ROOT = Path(__file__).resolve().parents[2]
WORDS = tuple(f"word{i} " for i in range(40))
SLOW = replace(ANSWER, reasoning=(), tool=None, text=WORDS)

# Takes the history's write lock and keeps it until told (another Triptych, a sqlite3 shell).
HOLDER = """
import sqlite3, sys
conn = sqlite3.connect(sys.argv[1], isolation_level=None, timeout=30)
conn.execute("BEGIN IMMEDIATE")
print("HOLDING", flush=True)
sys.stdin.readline()
conn.execute("COMMIT")
print("RELEASED", flush=True)
"""


def answer_rows(db: Path) -> list[tuple[str, str]]:
    """What another process reading the file sees (WAL readers never wait for a writer)."""
    with sqlite3.connect(db) as conn:
        return list(conn.execute("SELECT status, text FROM messages WHERE role = 'assistant'"))


class GatedProvider(FakeProvider):
    """Answers a request only once the test opens the gate."""

    def __init__(self) -> None:
        self.gate = threading.Event()
        super().__init__()

    def _route(self, request: SeenRequest) -> Reply:
        self.gate.wait(30)
        return super()._route(request)


class LockHolder:
    def __init__(self, db: Path) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-c", HOLDER, str(db)],
            cwd=ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.process.stdout is not None
        assert self.process.stdout.readline().strip() == "HOLDING"

    def release(self) -> None:
        assert self.process.stdin is not None
        assert self.process.stdout is not None
        self.process.stdin.write("go\n")
        self.process.stdin.flush()
        assert self.process.stdout.readline().strip() == "RELEASED"
        self.process.wait(timeout=10)

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=10)


async def test_a_write_lock_held_elsewhere_never_stops_drawing_or_typing(tmp_path: Path) -> None:
    db = tmp_path / "history.sqlite3"
    with GatedProvider() as server:
        server.push(fake.stream(Api.CHAT, SLOW, delay=0.005))
        app = make_app(fake_config(server), tmp_path, history_file=db)
        async with app.run_test(size=SIZE, notifications=True) as pilot:
            await send(pilot, "tell me while the file is locked")
            await wait_until(pilot, lambda: server.requests, what="the request")  # prompt stored
            holder = LockHolder(db)  # from here on every write waits for the lock
            try:
                server.gate.set()
                prompt = app.screen.query_one("#prompt", PromptInput)
                prompt.focus()
                await pilot.press(*"typed meanwhile")
                await wait_until(pilot, lambda: prompt.text == "typed meanwhile", what="typing")
                await wait_until(
                    pilot,
                    lambda: app.pane.current is not None and app.pane.current.drawn,
                    what="the answer drawn while the lock is held",
                )
                assert app.pane.turn is not None
                assert app.pane.turn.status is TurnStatus.COMPLETE
                assert "word39" in screen_text(app)
                # Nothing could be saved meanwhile, and history is still on: it waits.
                assert [status for status, _ in answer_rows(db)] == ["streaming"]
                assert app.history.enabled
                assert "History is off" not in screen_text(app)
                # Reading is not held up either: the history screen opens and lists it.
                await pilot.press("ctrl+o")
                await wait_until(pilot, lambda: isinstance(app.screen, HistoryScreen))
                await wait_until(
                    pilot,
                    lambda: "tell me while the file is locked" in screen_text(app),
                    what="the conversation listed while the lock is held",
                )
                await pilot.press("escape")
                await wait_until(pilot, lambda: not isinstance(app.screen, HistoryScreen))
                assert [status for status, _ in answer_rows(db)] == ["streaming"]  # still held
                holder.release()
            finally:
                holder.kill()
            await wait_until(
                pilot,
                lambda: answer_rows(db) == [("complete", "".join(WORDS))],
                timeout=10,
                what="the answer saved once the lock was released",
            )
            assert app.history.enabled
            assert prompt.text == "typed meanwhile"


async def test_the_final_save_follows_the_stream_not_the_screen(
    fake_provider: FakeProvider, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "history.sqlite3"
    big = replace(ANSWER, reasoning=(), tool=None, text=tuple(["x" * 1023 + "\n"] * 1024))
    fake_provider.push(fake.stream(Api.CHAT, big))
    app = make_app(fake_config(fake_provider), tmp_path, history_file=db)
    async with app.run_test(size=SIZE) as pilot:
        pane = app.pane
        drawn: list[float] = []

        async def display_never_catches_up(now: float) -> bool:
            drawn.append(now)
            return False  # the screen stays behind for as long as the test looks

        monkeypatch.setattr(pane, "flush", display_never_catches_up)
        await send(pilot, "a megabyte, fast")
        await wait_until(
            pilot,
            lambda: answer_rows(db) == [("complete", "".join(big.text))],
            timeout=15,
            what="the whole answer saved as complete",
        )
        assert drawn, "the render clock ran; it just never finished drawing"
        assert pane.current is not None
        assert not pane.current.drawn
        monkeypatch.undo()
