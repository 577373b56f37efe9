"""A streaming answer's saves append what arrived since the last one (app/store/parts.py), and
every reader sees the answer as if its row had been rewritten whole."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.store import Store, parts
from app.store.records import turn_columns
from app.wire.events import (
    END_OF_STREAM,
    Event,
    ReasoningDelta,
    Source,
    Sources,
    TextDelta,
    ToolCallArgsDelta,
    ToolCallEnd,
    ToolCallStart,
    Usage,
)
from app.wire.turn import Turn, TurnStatus


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    opened = Store.open(tmp_path / "history.sqlite3")
    yield opened
    opened.close()


def streaming(store: Store) -> tuple[int, int]:
    conv = store.create_conversation()
    store.add_user_message(conv, "go")
    return conv, store.start_turn(conv, provider="p", model="m", api="chat")


def log_frames(store: Store) -> int:
    """The frames in the -wal file (nothing checkpoints it while an answer streams)."""
    wal = Path(f"{store.path}-wal")
    page = sqlite3.connect(store.path).execute("PRAGMA page_size").fetchone()[0]
    return (wal.stat().st_size - 32) // (24 + page) if wal.stat().st_size else 0


def test_a_streaming_save_writes_what_arrived_not_the_whole_answer(store: Store) -> None:
    """Rewriting the row (and, through its trigger, the full-text index) on every save wrote
    more with each save: the last of these 30 saves wrote 62 frames of log (a 4 KiB page
    each), more than five times the whole answer. Appending, a save writes about a page."""
    _conv, turn_id = streaming(store)
    turn = Turn()
    frames: list[int] = []
    for second in range(30):
        turn.apply_all([TextDelta(f" word{second}-{i}") for i in range(150)])  # ~1.6 KB
        before = log_frames(store)
        assert store.save_turn(turn_id, turn)
        frames.append(log_frames(store) - before)
    assert len(turn.text) > 40_000
    assert max(frames[-10:]) <= 3, frames  # not growing with what was saved before
    assert sum(frames) <= 2 * len(frames) + 4, frames


def test_another_instance_reads_a_streaming_answer_as_it_stands(store: Store) -> None:
    """After each save, an instance opening the file reads the turn as it was saved: text,
    reasoning, tool calls with their arguments (restated whole by the provider at the end),
    sources and usage."""
    conv, turn_id = streaming(store)
    steps: list[list[Event]] = [
        [ReasoningDelta("Let me "), ReasoningDelta("think")],
        [ReasoningDelta(" hard."), TextDelta("The answer")],
        [TextDelta(" is"), ToolCallStart(0, "call_a", "lookup"), ToolCallArgsDelta(0, '{"q"')],
        [ToolCallArgsDelta(0, ': "x'), Sources((Source("https://a.example", "A"),))],
        [ToolCallEnd(0, '{"q": "xyz"}'), ToolCallStart(1, "call_b", "other")],
        [ToolCallArgsDelta(1, "{}"), TextDelta(" 42 — ünïcode ✓."), Usage(5, 6, None)],
    ]
    turn = Turn()
    other = Store.open(store.path)
    try:
        for events in steps:
            turn.apply_all(events)
            assert store.save_turn(turn_id, turn)
            [answer] = [m for m in other.load(conv).messages if m.id == turn_id]
            assert answer.turn is not None
            assert turn_columns(answer.turn) == turn_columns(turn)
            assert answer.text == turn.text
        assert other.load(conv).messages[1].turn.calls[0].value == {"q": "xyz"}  # type: ignore[union-attr]
    finally:
        other.close()


def test_the_index_takes_an_answer_once_it_settles(store: Store) -> None:
    """While it streams the answer is not in the full-text index, yet a search finds what
    it has saved so far (with a snippet); once settled the index has it and no parts stay."""
    conv, turn_id = streaming(store)
    turn = Turn()
    turn.apply(TextDelta("Emperor penguins huddle "))
    store.save_turn(turn_id, turn)
    turn.apply(TextDelta("through the polar winter."))
    store.save_turn(turn_id, turn)
    raw = sqlite3.connect(store.path)
    indexed = "SELECT rowid FROM messages_fts WHERE messages_fts MATCH ?"
    assert raw.execute(indexed, ("polar",)).fetchall() == []
    hits = store.search("polar huddle")
    assert [(h.id, h.hit_id) for h in hits] == [(conv, turn_id)]
    assert "huddle through the polar winter" in hits[0].snippet

    turn.apply(END_OF_STREAM)
    turn.end()
    store.save_turn(turn_id, turn, final=True)
    assert raw.execute(indexed, ("polar",)).fetchall() == [(turn_id,)]
    assert raw.execute("SELECT count(*) FROM message_parts").fetchone()[0] == 0
    assert raw.execute("SELECT text FROM messages WHERE id = ?", (turn_id,)).fetchone()[0] == (
        turn.text
    )
    assert [h.id for h in store.search("polar")] == [conv]


def test_the_log_is_checkpointed_when_an_answer_settles(store: Store) -> None:
    _conv, turn_id = streaming(store)
    turn = Turn()
    for i in range(20):
        turn.apply(TextDelta(f"chunk {i} " * 200))
        store.save_turn(turn_id, turn)
    wal = Path(f"{store.path}-wal")
    assert wal.stat().st_size > 100_000
    turn.apply(END_OF_STREAM)
    turn.end()
    store.save_turn(turn_id, turn, final=True)
    assert wal.stat().st_size == 0
    assert store.load(1).messages[1].text == turn.text


def test_a_copy_of_a_streaming_answer_reads_as_far_as_it_arrived(store: Store) -> None:
    conv = store.create_conversation(kind="compare")
    prompt = store.add_user_message(conv, "go")
    turn_id = store.start_turn(conv, provider="p", model="m", api="chat")
    turn = Turn()
    turn.apply(TextDelta("so far"))
    store.save_turn(turn_id, turn)
    turn.apply(TextDelta(", and on"))
    store.save_turn(turn_id, turn)
    copy = store.copy_turn(turn_id, pane=1, reply_to=prompt)
    texts = {m.id: m.text for m in store.load(conv).messages}
    assert texts[copy] == texts[turn_id] == "so far, and on"


def test_a_save_after_a_restart_carries_on_from_what_the_file_holds(tmp_path: Path) -> None:
    """A second Store writing the same answer (a TurnSaver made anew) appends after what the
    first saved, without repeating it."""
    path = tmp_path / "history.sqlite3"
    first = Store.open(path)
    conv, turn_id = streaming(first)
    turn = Turn()
    turn.apply(TextDelta("one "))
    first.save_turn(turn_id, turn)
    first.close()
    second = Store.open(path)  # the same process: the answer is not an orphan
    turn.apply(TextDelta("two"))
    second.save_turn(turn_id, turn)
    assert second.load(conv).messages[1].text == "one two"
    parts = sqlite3.connect(path).execute("SELECT data FROM message_parts ORDER BY seq")
    assert [row[0] for row in parts] == ["one ", "two"]
    turn.apply(END_OF_STREAM)
    turn.end()
    second.save_turn(turn_id, turn, final=True)
    stored = second.load(conv).messages[1].turn
    assert stored is not None
    assert (stored.status, stored.text) == (TurnStatus.COMPLETE, "one two")
    second.close()


def test_deleting_a_streaming_answer_deletes_its_parts(store: Store) -> None:
    """Message ids are reused once the newest is deleted: parts left behind would be read
    into the next message that takes the id."""
    conv, turn_id = streaming(store)
    turn = Turn()
    turn.apply(TextDelta("half an answer"))
    store.save_turn(turn_id, turn)
    store.delete(conv)
    raw = sqlite3.connect(store.path)
    assert raw.execute("SELECT count(*) FROM message_parts").fetchone()[0] == 0
    again, reused = streaming(store)
    assert reused == turn_id  # the next answer takes the same id
    assert store.load(again).messages[1].text == ""


def test_a_streaming_row_with_damaged_tool_calls_is_left_for_its_reader() -> None:
    """Putting parts back never fails on a row it cannot read: its tool calls stay as stored
    (the reader of damaged rows decides), its text still gets its parts."""
    conn = sqlite3.connect(":memory:")
    conn.row_factory = sqlite3.Row
    row = conn.execute(
        "SELECT 'Half' AS text, '' AS reasoning, '[{\"index\": 0, \"argum' AS tool_calls"
    ).fetchone()
    whole = parts.assembled(row, [(1, "text", -1, 4, " done"), (2, "arguments", 0, 0, "{}")])
    assert whole == {"text": "Half done", "reasoning": ""}
