"""A damaged write-ahead log: SQLite silently drops every change from the damage on, so the
history must say so on start (and what it kept), not just show fewer conversations.

A real process writes three conversations, each answer still streaming, and is killed with
SIGKILL, so they are only in the -wal file (the log is checkpointed when an answer settles, and
none did); then one byte of the third conversation's first frame is flipped.
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

from app.store import Store
from app.store.session import History

ROOT = Path(__file__).resolve().parents[2]
HEADER, FRAME_HEADER = 32, 24

# Three conversations with an answer saved mid-stream, the log's size after each (in frames),
# then SIGKILL: no checkpoint.
WRITER = """
import os, signal, sys
from pathlib import Path
from app.store import Store
from app.wire.events import TextDelta
from app.wire.turn import Turn

path = Path(sys.argv[1])
store = Store.open(path)
wal = Path(str(path) + "-wal")
page = store._conn.execute("PRAGMA page_size").fetchone()[0]
for i in range(3):
    conv = store.create_conversation(title=f"talk {i}")
    store.add_user_message(conv, f"question {i}")
    turn_id = store.start_turn(conv, provider="p", model="m", api="chat")
    turn = Turn()
    turn.apply(TextDelta(f"answer {i}"))
    store.save_turn(turn_id, turn)
    print("FRAMES", (wal.stat().st_size - 32) // (24 + page), page, flush=True)
os.kill(os.getpid(), signal.SIGKILL)
"""


def killed_after_three(path: Path) -> tuple[list[int], int]:
    done = subprocess.run(
        [sys.executable, "-c", WRITER, str(path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == -signal.SIGKILL, done.stderr
    lines = [line.split() for line in done.stdout.splitlines()]
    return [int(frames) for _, frames, _ in lines], int(lines[0][2])


def flip_a_byte_in_frame(path: Path, frame: int, page: int) -> None:
    wal = Path(str(path) + "-wal")
    at = HEADER + frame * (FRAME_HEADER + page) + FRAME_HEADER + page // 2  # in the page data
    with wal.open("r+b") as f:
        f.seek(at)
        byte = f.read(1)
        f.seek(at)
        f.write(bytes([byte[0] ^ 0xFF]))


def test_a_damaged_log_is_reported_on_start_with_what_was_kept(tmp_path: Path) -> None:
    path = tmp_path / "history.sqlite3"
    frames, page = killed_after_three(path)
    assert frames[0] < frames[1] < frames[2]
    flip_a_byte_in_frame(path, frames[1], page)  # the first frame of the third conversation

    history = History.open(path)
    assert history.store is not None
    titles = [c.title for c in history.conversations()]
    assert sorted(titles) == ["talk 0", "talk 1"]  # what SQLite could read back
    warnings = [n for n in history.start_notices() if "damaged" in n.text]
    assert len(warnings) == 1
    text = warnings[0].text
    assert warnings[0].severity == "warning"
    assert str(path) in text
    assert "2 conversations" in text  # what was kept
    copies = list(tmp_path.glob("history.sqlite3-wal.damaged*"))
    assert len(copies) == 1  # the log as it was, for anyone who wants to dig
    assert str(copies[0]) in text
    assert os.stat(copies[0]).st_mode & 0o077 == 0
    history.close()

    again = Store.open(path)  # said once: the next start finds nothing new to report
    assert not [w for w in again.warnings if "damaged" in w]
    assert len(again.list_conversations()) == 2
    again.close()


def test_an_intact_log_left_by_a_kill_is_not_damage(tmp_path: Path) -> None:
    path = tmp_path / "history.sqlite3"
    killed_after_three(path)
    store = Store.open(path)
    assert [w for w in store.warnings if "damaged" in w] == []
    assert len(store.list_conversations()) == 3
    store.close()


def test_a_log_cut_mid_transaction_by_a_crash_is_not_damage(tmp_path: Path) -> None:
    path = tmp_path / "history.sqlite3"
    frames, page = killed_after_three(path)
    wal = Path(str(path) + "-wal")
    with wal.open("r+b") as f:  # the last transaction's commit frame never made it to disk
        f.truncate(HEADER + (frames[2] - 1) * (FRAME_HEADER + page))
    store = Store.open(path)
    assert [w for w in store.warnings if "damaged" in w] == []
    assert len(store.list_conversations()) == 3  # only the last save of the third was lost
    store.close()


def test_the_cli_says_so_too(tmp_path: Path) -> None:
    path = tmp_path / "history.sqlite3"
    frames, page = killed_after_three(path)
    flip_a_byte_in_frame(path, frames[1], page)
    env = {k: v for k, v in os.environ.items() if not k.startswith("TRIPTYCH_")}
    env["TRIPTYCH_DATA_DIR"] = str(tmp_path)
    done = subprocess.run(
        [sys.executable, "-m", "app", "history"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "triptych: warning: The history file" in done.stderr
    assert "damaged" in done.stderr
    assert "talk 1" in done.stdout
    assert "talk 2" not in done.stdout
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT count(*) FROM conversations").fetchone()[0] == 2
