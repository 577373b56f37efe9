"""The history file under real processes: one killed mid-stream, two writing at once."""

from __future__ import annotations

import itertools
import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

from app.store import INTERRUPTED_BY_EXIT, Store
from app.wire.turn import TurnStatus

ROOT = Path(__file__).resolve().parents[2]

# Stores a prompt, then streams words forever, saving through TurnSaver as the UI's render
# clock would (a tick every 10 ms, the default one-second interval). Reports each save.
STREAMER = """
import sys, time
from pathlib import Path
from app.store import Store, TurnSaver
from app.wire.events import TextDelta
from app.wire.turn import Turn

store = Store.open(Path(sys.argv[1]))
conv = store.create_conversation()
store.add_user_message(conv, "Tell me a long story")
turn_id = store.start_turn(conv, provider="demo", model="storyteller", api="chat")
print("TURN", turn_id, flush=True)
saver = TurnSaver(store, turn_id)
turn = Turn()
word = 0
while True:
    turn.apply(TextDelta(f"word{word} "))
    word += 1
    if saver.maybe_save(turn):
        print("SAVED", len(turn.text), time.monotonic(), flush=True)
    time.sleep(0.01)
"""

# Writes whole conversations as fast as it can: prompt, a streaming turn saved a few times, final.
WRITER = """
import sys
from pathlib import Path
from app.store import Store
from app.wire.events import END_OF_STREAM, TextDelta
from app.wire.turn import Turn

store = Store.open(Path(sys.argv[1]))
name = sys.argv[2]
for i in range(int(sys.argv[3])):
    conv = store.create_conversation(title=f"{name}-{i}")
    store.add_user_message(conv, f"prompt {name} {i}")
    turn_id = store.start_turn(conv, provider=name, model="m", api="chat")
    turn = Turn()
    for piece in range(3):
        turn.apply(TextDelta(f"{piece} "))
        store.save_turn(turn_id, turn)
        store.list_conversations(5)
    turn.apply(END_OF_STREAM)
    turn.end()
    store.save_turn(turn_id, turn, final=True)
print("DONE", name, flush=True)
"""


def spawn(script: str, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", script, *args],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def expected_story(words: int) -> str:
    return "".join(f"word{i} " for i in range(words))


def test_a_process_killed_mid_stream_keeps_its_partial_answer(tmp_path: Path) -> None:
    path = tmp_path / "history.sqlite3"
    child = spawn(STREAMER, str(path))
    assert child.stdout is not None
    turn_id = int(child.stdout.readline().split()[1])
    saves: list[tuple[float, int]] = []
    while len(saves) < 3:  # the first save is immediate, then about one a second
        line = child.stdout.readline()
        assert line.startswith("SAVED"), line + child.stderr.read() if child.stderr else line
        saves.append((float(line.split()[2]), int(line.split()[1])))
    os.kill(child.pid, signal.SIGKILL)
    assert child.wait(timeout=10) == -signal.SIGKILL

    gaps = [b[0] - a[0] for a, b in itertools.pairwise(saves)]
    assert all(1.0 <= gap < 1.5 for gap in gaps), gaps  # about a second apart

    # Before the next start the row still says streaming: nobody has looked yet.
    raw = sqlite3.connect(path).execute("SELECT status FROM messages WHERE id = ?", (turn_id,))
    assert raw.fetchone()[0] == "streaming"

    store = Store.open(path)  # the next start
    assert store.recovered == [turn_id]
    prompt, answer = store.load(store.last_conversation_id() or 0).messages
    assert prompt.text == "Tell me a long story"
    assert answer.turn is not None
    assert answer.turn.status is TurnStatus.INTERRUPTED
    assert answer.turn.interruption == INTERRUPTED_BY_EXIT
    text = answer.turn.text
    assert len(text) >= saves[-1][1]  # everything the last save reported is there
    assert text == expected_story(text.count(" "))  # and it is exactly what streamed
    store.close()
    assert Store.open(path).recovered == []  # marked once, not on every start


def test_a_live_writer_is_not_marked_interrupted_by_another_instance(tmp_path: Path) -> None:
    path = tmp_path / "history.sqlite3"
    child = spawn(STREAMER, str(path))
    try:
        assert child.stdout is not None
        turn_id = int(child.stdout.readline().split()[1])
        assert child.stdout.readline().startswith("SAVED")
        other = Store.open(path)  # a second app instance starting while the first streams
        assert other.recovered == []
        turn = other.load(other.last_conversation_id() or 0).messages[1].turn
        assert turn is not None
        assert turn.status is TurnStatus.STREAMING
        assert other.load(1).messages[1].id == turn_id
    finally:
        child.kill()
        child.wait(timeout=10)


def test_two_processes_writing_at_once_never_hit_database_is_locked(tmp_path: Path) -> None:
    path = tmp_path / "history.sqlite3"  # not created yet: both race to create and migrate it
    count = 100
    writers = [spawn(WRITER, str(path), name, str(count)) for name in ("alpha", "beta")]
    results = [w.communicate(timeout=120) for w in writers]

    for writer, (out, err) in zip(writers, results, strict=True):
        assert writer.returncode == 0, err
        assert "locked" not in err
        assert out.startswith("DONE")
    conn = sqlite3.connect(path)
    rows = conn.execute(
        "SELECT provider, count(*), sum(status = 'complete'), sum(text = '0 1 2 ') "
        "FROM messages WHERE role = 'assistant' GROUP BY provider ORDER BY provider"
    ).fetchall()
    assert rows == [("alpha", count, count, count), ("beta", count, count, count)]
    assert conn.execute("SELECT count(*) FROM conversations").fetchone()[0] == 2 * count
