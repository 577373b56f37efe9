"""The history file under real processes: one killed mid-stream, two writing at once, the TUI
killed right after a fast long answer."""

from __future__ import annotations

import itertools
import os
import shlex
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
import uuid
from dataclasses import replace
from pathlib import Path

from app.store import INTERRUPTED_BY_EXIT, Store
from app.wire.engine import Api
from app.wire.turn import TurnStatus
from tests.fakes import provider as fake
from tests.fakes.provider import FakeProvider
from tests.ui.test_tmux_e2e import Terminal, console_script

ROOT = Path(__file__).resolve().parents[2]

# Stores a prompt, then streams words forever, saving through TurnSaver as the UI's render
# clock would (a tick every 10 ms, the default one-second interval). Reports each save.
STREAMER = """
import sys, time
from pathlib import Path
from app.store import Store, TurnSaver
from app.wire.events import ReasoningDelta, TextDelta
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
    turn.apply_all([ReasoningDelta(f"thought{word} "), TextDelta(f"word{word} ")])
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
    words = text.count(" ")  # its reasoning as far as the same save
    assert answer.turn.reasoning == "".join(f"thought{i} " for i in range(words))
    last = f"word{words - 1}"  # now in the full-text index with the rest
    assert [s.id for s in store.search(last)] == [store.last_conversation_id()]
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


def test_a_fast_long_answer_is_saved_from_the_stream_and_survives_kill_9(tmp_path: Path) -> None:
    """The real TUI in tmux; the fake server on loopback sends a 1 MiB answer as fast as the
    socket allows, and the app is killed with SIGKILL as soon as the final save (the one with
    timings) is in the file: nothing is lost, and the next start finds it complete. The final
    save comes from the stream ending: before, it waited until the screen had drawn the answer
    (a megabyte of paragraphs: 4-7 s after the last byte on the test machine, with not a word
    of the answer in the file meanwhile). That it never waits for the screen is shown
    deterministically in tests/ui/test_store_writes.py; the screen cannot show it here, as it
    paints nothing while the loop lays the answer out."""
    assert shutil.which("tmux"), "tmux is required (.ci/run installs it)"
    paragraphs = (f"Paragraph {i} " + "some words here " * 4 + "\n\n" for i in range(12_000))
    text = "".join(paragraphs)[: 1024 * 1024]
    answer = replace(fake.ANSWER, reasoning=(), tool=None, text=(text,))
    db = tmp_path / "data" / "history.sqlite3"
    with FakeProvider() as server:
        server.push(fake.stream(Api.CHAT, answer))
        config = tmp_path / "config.toml"
        config.write_text(
            f'default = "fake"\n[providers.fake]\napi = "chat"\nbase_url = "{server.url}"\n'
            'model = "m-1"\n',
            encoding="utf-8",
        )
        term = Terminal(f"triptych-store-{uuid.uuid4().hex[:8]}")
        term.tmux("new-session", "-d", "-s", "app", "-x", "100", "-y", "30", tui(tmp_path, config))
        try:
            term.wait_for("Ask anything", "fake · m-1", timeout=60)
            term.keys("a megabyte please", "Enter")
            request = server.last_request(timeout=20)
            assert request.done.wait(30), "the fake server never sent the last byte"
            deadline = time.monotonic() + 60
            while final_save(db) is None:
                assert time.monotonic() < deadline, "the answer never got its final save"
                time.sleep(0.02)
            pid = int(term.tmux("list-panes", "-t", "app", "-F", "#{pane_pid}").strip())
            os.kill(pid, signal.SIGKILL)
        finally:
            term.tmux("kill-server")
    assert final_save(db) == ("complete", text)
    store = Store.open(db)  # the next start
    assert store.recovered == []  # complete, not an orphan
    [prompt, stored] = store.load(store.last_conversation_id() or 0).messages
    assert prompt.text == "a megabyte please"
    assert stored.turn is not None
    assert stored.turn.status is TurnStatus.COMPLETE
    assert stored.turn.text == text
    store.close()


def tui(tmp_path: Path, config: Path) -> str:
    env = {
        "TRIPTYCH_CONFIG": str(config),
        "TRIPTYCH_DATA_DIR": str(tmp_path / "data"),
        "TERM": "xterm-256color",
        "LANG": "C.UTF-8",
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(tmp_path),
        "XDG_CONFIG_HOME": str(tmp_path / "xdg"),
    }
    line = "env -i " + " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items())
    return f"{line} {shlex.quote(console_script())}"


def final_save(db: Path) -> tuple[str, str] | None:
    """The answer's status and text once its final save (the one with timings) is in."""
    if not db.exists():
        return None
    with sqlite3.connect(db) as conn:
        row = conn.execute(
            "SELECT status, text FROM messages WHERE role = 'assistant' AND duration_ms IS NOT NULL"
        ).fetchone()
    return None if row is None else (row[0], row[1])
