"""Opening the history while another process holds the file: never "database is locked".

Switching a new file to WAL needs the file to itself, and SQLite does not apply the busy timeout
to that switch, so a second instance starting at the same moment used to fail at once and run
without history. The holder here is a real second process, so the locks are the real ones.
"""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

import pytest

from app.store import Store, StoreError

ROOT = Path(__file__).resolve().parents[2]

# Holds a write transaction on a new file still in the default (rollback) journal mode, as an
# instance half-way through creating the history does, until told to let go.
HOLDER = """
import sqlite3, sys
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
conn.execute("BEGIN IMMEDIATE")
conn.execute("CREATE TABLE IF NOT EXISTS half_made (x)")
print("HOLDING", flush=True)
sys.stdin.readline()
conn.execute("ROLLBACK")
print("RELEASED", flush=True)
"""


def test_opening_a_new_history_waits_for_another_instance_switching_it_to_wal(
    tmp_path: Path,
) -> None:
    path = tmp_path / "history.sqlite3"
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(path)],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdin is not None
    assert holder.stdout is not None
    try:
        assert holder.stdout.readline().strip() == "HOLDING"
        outcome: list[Store | StoreError] = []

        def open_it() -> None:
            try:
                outcome.append(Store.open(path))
            except StoreError as exc:
                outcome.append(exc)

        opener = threading.Thread(target=open_it)
        opener.start()
        opener.join(0.5)  # it either failed at once (the bug) or is waiting for the lock
        holder.stdin.write("go\n")
        holder.stdin.flush()
        assert holder.stdout.readline().strip() == "RELEASED"
        opener.join(30)
        assert not opener.is_alive()
    finally:
        holder.kill()
        holder.wait(timeout=10)
    [result] = outcome
    assert isinstance(result, Store), str(result)
    try:
        assert result.create_conversation(title="after the wait") > 0
        mode = result._conn.execute("PRAGMA journal_mode").fetchone()[0]
        assert mode == "wal"
    finally:
        result.close()


def test_a_lock_held_past_the_busy_timeout_is_still_a_clear_store_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import app.store.db as db

    path = tmp_path / "history.sqlite3"
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(path)],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdin is not None
    assert holder.stdout is not None
    try:
        assert holder.stdout.readline().strip() == "HOLDING"
        monkeypatch.setattr(db, "BUSY_TIMEOUT_MS", 200)
        with pytest.raises(StoreError, match=r"locked.*runs without history"):
            Store.open(path)
    finally:
        holder.kill()
        holder.wait(timeout=10)
