"""TurnSaver: a streaming turn is saved at most about a second behind, not on every token."""

from __future__ import annotations

import itertools
import sqlite3
from pathlib import Path

import pytest

from app.store import Store, TurnSaver
from app.store.saver import HEARTBEAT
from app.wire.events import END_OF_STREAM, TextDelta, ToolCallArgsDelta, ToolCallStart
from app.wire.turn import Turn


@pytest.fixture
def saver(tmp_path: Path) -> TurnSaver:
    store = Store.open(tmp_path / "history.sqlite3")
    conv = store.create_conversation()
    store.add_user_message(conv, "go")
    return TurnSaver(store, store.start_turn(conv, provider="p", model="m", api="chat"))


def stored_text(saver: TurnSaver) -> str:
    """What another instance reading the file would see right now (a streaming answer's row
    holds no text of its own: its saves are appended parts, put together when read)."""
    other = Store.open(saver.store.path)
    try:
        [answer] = [m for m in other.load(1).messages if m.id == saver.turn_id]
    finally:
        other.close()
    return answer.text


def test_render_ticks_save_about_once_a_second(saver: TurnSaver) -> None:
    turn = Turn()
    saved_at: list[float] = []
    for tick in range(200):  # 10 s of 50 ms render ticks, a token on each
        now = tick * 0.05
        turn.apply(TextDelta(f"{tick},"))
        if saver.maybe_save(turn, now):
            saved_at.append(now)
            assert stored_text(saver) == turn.text
        # Never more than about a second behind what has arrived.
        assert stored_text(saver).count(",") >= tick + 1 - 21
    assert 9 <= len(saved_at) <= 11
    gaps = [b - a for a, b in itertools.pairwise(saved_at)]
    assert all(0.99 <= gap <= 1.06 for gap in gaps)


def test_nothing_new_means_no_write_until_the_heartbeat(saver: TurnSaver) -> None:
    turn = Turn()
    turn.apply(TextDelta("x"))
    assert saver.maybe_save(turn, 0.0)
    assert not saver.maybe_save(turn, 5.0)  # unchanged
    turn.apply_all([ToolCallStart(0, "c", "f"), ToolCallArgsDelta(0, "{")])
    assert saver.maybe_save(turn, 6.0)  # a tool call fragment is a change too
    assert not saver.maybe_save(turn, 6.0 + HEARTBEAT - 0.1)
    assert saver.maybe_save(turn, 6.0 + HEARTBEAT + 0.1)  # still alive: touch the row
    assert saver.saves == 3


def test_final_save_settles_the_row_with_timings(saver: TurnSaver) -> None:
    turn = Turn()
    turn.apply(TextDelta("partial"))
    saver.maybe_save(turn, 0.0)
    turn.apply_all([TextDelta(" and the rest"), END_OF_STREAM])
    turn.end()
    saver.final(turn, ttft_ms=40, duration_ms=900)
    row = sqlite3.connect(saver.store.path).execute(
        "SELECT text, status, ttft_ms, duration_ms, owner FROM messages WHERE id = ?",
        (saver.turn_id,),
    )
    assert row.fetchone() == ("partial and the rest", "complete", 40, 900, None)


def test_a_conversation_deleted_while_streaming_stops_nothing(saver: TurnSaver) -> None:
    turn = Turn()
    turn.apply(TextDelta("abc"))
    assert saver.maybe_save(turn, 0.0)
    assert not saver.gone
    saver.store.delete(saver.store.last_conversation_id() or 0)
    turn.apply(TextDelta("def"))
    saver.maybe_save(turn, 1.0)
    assert saver.gone
    turn.end()
    saver.final(turn)
    assert saver.gone
    assert saver.store.list_conversations() == []
