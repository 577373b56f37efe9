"""The glue between panes and the store (app/store/session.py), without a screen: prompts go
in first, answers are saved while they stream and finally once, and a broken file turns history
off with one message instead of an exception."""

from __future__ import annotations

import sqlite3
import stat
from pathlib import Path

from app.providers.client import Timing
from app.store import Store, StoredConversation, StoredMessage
from app.store.session import History, PaneHistory, continued_conversation
from app.ui.widgets.history_turn import window_start
from app.wire.events import StreamError, TextDelta
from app.wire.turn import Turn, TurnStatus


def rows(path: Path, sql: str) -> list[tuple[object, ...]]:
    """Read with a connection of our own, as another process would."""
    with sqlite3.connect(path) as conn:
        return list(conn.execute(sql))


def answers(path: Path) -> list[tuple[str, str]]:
    """Each answer's status and text as another instance reads them (a streaming answer's
    saves are parts appended beside its row, put together when read)."""
    store = Store.open(path)
    try:
        return [
            (str(m.turn.status), m.text)
            for summary in store.list_conversations()
            for m in store.load(summary.id).messages
            if m.turn is not None
        ]
    finally:
        store.close()


def test_without_a_path_history_is_off_and_silent() -> None:
    history = History.open(None)
    assert not history.enabled
    assert history.start_notices() == []
    record = history.record()
    assert record.prompt("hello") is None
    turn_record = record.start_turn(pane=0, provider="p", model="m", api="chat")
    turn = Turn()
    turn.apply(TextDelta("hi"))
    turn.end()
    turn_record.tick(turn, 5.0)
    turn_record.finish(turn)
    assert history.conversations() == []


def test_a_damaged_file_is_reported_once_at_start(tmp_path: Path) -> None:
    path = tmp_path / "history.sqlite3"
    path.write_bytes(b"this is not a database" * 100)
    history = History.open(path)
    assert not history.enabled
    [notice] = history.start_notices()
    assert notice.severity == "error"
    assert str(path) in notice.text
    assert "without history" in notice.text


def test_prompt_first_then_the_answer_while_it_streams_then_final(tmp_path: Path) -> None:
    path = tmp_path / "history.sqlite3"
    history = History.open(path)
    record = history.record(system="be brief")
    assert rows(path, "SELECT count(*) FROM conversations") == [(0,)]  # nothing until a prompt
    prompt_id = record.prompt("What is SSE?")
    assert prompt_id is not None
    history.wait()  # writes run on the history's writer thread
    assert rows(path, "SELECT role, text FROM messages") == [("user", "What is SSE?")]
    turn_record = record.start_turn(pane=0, provider="demo", model="demo-1", api="chat")
    turn = Turn()
    turn.apply(TextDelta("Server-"))
    turn_record.tick(turn, 10.0)
    turn.apply(TextDelta("sent events"))
    turn_record.tick(turn, 10.5)  # within a second of the last save: skipped
    history.wait()
    assert answers(path) == [("streaming", "Server-")]
    turn_record.tick(turn, 11.1)
    history.wait()
    assert answers(path) == [("streaming", "Server-sent events")]
    turn.end()
    turn_record.finish(turn, Timing(started=1.0, first_token=1.25, ended=3.0))
    history.wait()
    final = rows(path, "SELECT status, ttft_ms, duration_ms, provider FROM messages WHERE id > 1")
    assert final == [("interrupted", 250, 2000, "demo")]
    turn_record.tick(turn, 20.0)  # after the final save nothing more is written
    stored = Store.open(path).load(record.conv_id or 0)
    assert stored.system == "be brief"
    assert [m.role for m in stored.messages] == ["user", "assistant"]


def test_an_unsettled_error_waits_for_the_final_save(tmp_path: Path) -> None:
    path = tmp_path / "history.sqlite3"
    history = History.open(path)
    record = history.record()
    record.prompt("hi")
    turn_record = record.start_turn(pane=0, provider="p", model="m", api="chat")
    turn = Turn()
    turn.apply(TextDelta("partial"))
    turn.fail("auth", "bad key sk-secret")  # the client scrubs the key only as the turn settles
    turn_record.tick(turn, 100.0)
    history.wait()
    assert answers(path) == [("streaming", "")]
    turn.error = StreamError("auth", "bad key ***")
    turn.end()
    turn_record.finish(turn)
    history.wait()
    assert rows(path, "SELECT status, error_message FROM messages WHERE role = 'assistant'") == [
        ("failed", "bad key ***")
    ]


def test_a_store_failure_mid_session_turns_history_off_with_one_message(tmp_path: Path) -> None:
    history = History.open(tmp_path / "history.sqlite3")
    told: list[str] = []
    history.on_problem = told.append
    record = history.record()
    record.prompt("first")
    assert history.store is not None
    history.store.close()  # every later call fails inside SQLite
    record.prompt("second")
    history.wait()  # the failure is met on the writer thread
    assert not history.enabled
    assert record.prompt("third") is None
    turn_record = record.start_turn(pane=0, provider="p", model="m", api="chat")
    turn = Turn()
    turn.end()
    turn_record.finish(turn)
    assert history.conversations() == []
    assert len(told) == 1
    assert "history" in told[0]


def test_a_conversation_deleted_elsewhere_continues_as_a_new_one(tmp_path: Path) -> None:
    path = tmp_path / "history.sqlite3"
    history = History.open(path)
    record = history.record()
    record.prompt("one")
    history.wait()
    first = record.conv_id
    assert first is not None
    other = Store.open(path)
    other.delete(first)
    assert record.prompt("two") is not None
    history.wait()
    assert rows(path, "SELECT count(*) FROM conversations") == [(1,)]
    assert rows(path, "SELECT conversation_id, text FROM messages") == [(record.conv_id, "two")]
    assert history.enabled


def test_drop_last_exchange_removes_the_last_prompt_and_its_answers(tmp_path: Path) -> None:
    path = tmp_path / "history.sqlite3"
    history = History.open(path)
    record = history.record()
    for prompt in ("one", "two"):
        record.prompt(prompt)
        turn_record = record.start_turn(pane=0, provider="p", model="m", api="chat")
        turn = Turn()
        turn.apply(TextDelta(f"answer {prompt}"))
        turn.end()
        turn_record.finish(turn)
    record.drop_last_exchange()
    history.wait()
    assert rows(path, "SELECT text FROM messages ORDER BY id") == [("one",), ("answer one",)]
    stored = history.load(record.conv_id or 0)
    assert stored is not None
    resumed = history.resume(stored)
    assert resumed.prompt_ids == [stored.messages[0].id]


def test_a_pane_without_history_still_hands_out_turn_records() -> None:
    off = PaneHistory.off()
    turn_record = off.start_turn("p", "m", "chat")
    assert turn_record.turn_id is None
    assert turn_record.finished


def _assistant(msg_id: int, text: str, status: TurnStatus, pane: int = 0) -> StoredMessage:
    turn = Turn(status=status, text_parts=[text] if text else [])
    return StoredMessage(msg_id, "assistant", text, 0.0, turn=turn, pane=pane, provider="p")


def test_the_continued_history_leaves_out_retried_and_empty_answers() -> None:
    stored = StoredConversation(
        id=1,
        title="",
        kind="chat",
        system="sys",
        created_at=0.0,
        updated_at=0.0,
        messages=[
            StoredMessage(1, "user", "q1", 0.0),
            _assistant(2, "half an ans", TurnStatus.STOPPED),  # retried: not sent again
            _assistant(3, "the answer", TurnStatus.COMPLETE),
            _assistant(4, "other pane", TurnStatus.COMPLETE, pane=1),
            StoredMessage(5, "user", "q2", 0.0),
            _assistant(6, "", TurnStatus.FAILED),  # nothing was said: nothing to send
            StoredMessage(7, "user", "q3", 0.0),
            _assistant(8, "cut sho", TurnStatus.INTERRUPTED),  # kept: the model should know
        ],
    )
    conversation = continued_conversation(stored)
    assert conversation.system == "sys"
    assert [(m.role, m.text) for m in conversation.messages] == [
        ("user", "q1"),
        ("assistant", "the answer"),
        ("user", "q2"),
        ("user", "q3"),
        ("assistant", "cut sho"),
    ]
    other = continued_conversation(stored, pane=1)
    assert [m.text for m in other.messages] == ["q1", "other pane", "q2", "q3"]


def test_export_writes_a_private_file_named_after_the_conversation(tmp_path: Path) -> None:
    history = History.open(tmp_path / "data" / "history.sqlite3")
    record = history.record()
    record.prompt("How do SSE comments work?\nmore")
    history.wait()
    conv_id = record.conv_id
    assert conv_id is not None
    first = history.export(conv_id, "md")
    second = history.export(conv_id, "json")
    again = history.export(conv_id, "md")
    exports = tmp_path / "data" / "exports"
    assert first == exports / f"triptych-{conv_id}-how-do-sse-comments-work.md"
    assert second.suffix == ".json"
    assert again.name.endswith("-2.md")
    assert "How do SSE comments work?" in first.read_text()
    assert stat.S_IMODE(first.stat().st_mode) == 0o600
    assert '"role": "user"' in second.read_text()


def test_a_long_conversation_is_drawn_from_the_start_of_an_exchange() -> None:
    def exchange(first_id: int, size: int) -> list[StoredMessage]:
        return [
            StoredMessage(first_id, "user", "q", 0.0),
            _assistant(first_id + 1, "x" * size, TurnStatus.COMPLETE),
        ]

    messages = exchange(1, 500) + exchange(3, 500) + exchange(5, 500)
    assert window_start(messages, budget=10_000) == 0  # it all fits
    assert window_start(messages, budget=1_100) == 2  # the last two exchanges fit
    assert window_start(messages, budget=10) == 4  # the last one, whatever its size
    assert window_start([], budget=10) == 0
    retried = [*exchange(1, 500), _assistant(3, "y" * 500, TurnStatus.COMPLETE)]
    assert window_start(retried, budget=600) == 0  # an exchange is never split
