"""A disk that fills while an answer is saved: the history says "disk full", not a side effect.

SQLite rolls the transaction back by itself when a write fails half-way through a statement
(a big answer spills the page cache to the log), so the store's own ROLLBACK then failed with
"cannot rollback - no transaction is active", and that was what the user was told.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from app.store import Store, StoreError
from app.wire.events import TextDelta
from app.wire.turn import Turn

ROOT = Path(__file__).resolve().parents[2]

# Saves a 3 MiB answer (more than SQLite's page cache, so it spills mid-statement) after the
# process is forbidden to grow any file past 1 MiB: a real write failure from the OS.
LIMITED_WRITER = """
import resource, signal, sys
from pathlib import Path
from app.store import Store, StoreError
from app.wire.events import TextDelta
from app.wire.turn import Turn

store = Store.open(Path(sys.argv[1]))
conv = store.create_conversation()
store.add_user_message(conv, "a question whose answer will not fit")
turn_id = store.start_turn(conv, provider="p", model="m", api="chat")
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a failed write, not a killed process
resource.setrlimit(resource.RLIMIT_FSIZE, (1024 * 1024, resource.RLIM_INFINITY))
turn = Turn()
turn.apply(TextDelta("x" * 3 * 1024 * 1024))
try:
    store.save_turn(turn_id, turn)
except StoreError as exc:
    print("ERROR", exc)
else:
    print("SAVED")
resource.setrlimit(resource.RLIMIT_FSIZE, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
store.rename(conv, "the connection still works")
print("RENAMED", store.load(conv).title)
"""


def big_turn(size: int) -> Turn:
    turn = Turn()
    turn.apply(TextDelta("x" * size))
    return turn


def test_a_full_disk_while_saving_a_big_answer_says_disk_full(tmp_path: Path) -> None:
    store = Store.open(tmp_path / "history.sqlite3")
    conv = store.create_conversation()
    store.add_user_message(conv, "q")
    turn_id = store.start_turn(conv, provider="p", model="m", api="chat")
    pages = store._conn.execute("PRAGMA page_count").fetchone()[0]
    store._conn.execute(f"PRAGMA max_page_count = {pages + 20}")  # SQLite's own SQLITE_FULL
    with pytest.raises(StoreError) as caught:
        store.save_turn(turn_id, big_turn(1024 * 1024))
    message = str(caught.value)
    assert "disk full" in message
    assert str(tmp_path / "history.sqlite3") in message
    assert "rollback" not in message
    assert message.endswith("this session runs without history.")
    assert store.load(conv).messages[0].text == "q"  # what was saved before is intact
    store.close()


def test_a_write_failing_half_way_reports_its_own_error_not_cannot_rollback(
    tmp_path: Path,
) -> None:
    path = tmp_path / "history.sqlite3"
    done = subprocess.run(
        [sys.executable, "-c", LIMITED_WRITER, str(path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    error, renamed = done.stdout.splitlines()
    assert error.startswith("ERROR ")
    assert "rollback" not in error
    assert "no transaction" not in error
    assert str(path) in error
    assert renamed == "RENAMED the connection still works"  # not left inside a dead transaction
