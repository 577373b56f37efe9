"""A history file damaged or edited by hand, row by row (with sqlite3, in a copy of a real
file): `triptych export` in a process of its own still exports every message, and says which
part of which answer could not be read; the store loads it for the app the same way."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from app.store import Store
from app.wire.events import (
    END_OF_STREAM,
    Source,
    Sources,
    TextDelta,
    ToolCallArgsDelta,
    ToolCallEnd,
    ToolCallStart,
    Usage,
)
from app.wire.turn import Turn, TurnStatus

DAMAGED = "damaged in the history"  # how a rebuilt answer says so


def finished(*events: object) -> Turn:
    turn = Turn()
    turn.apply_all(list(events))  # type: ignore[arg-type]
    turn.end()
    return turn


@pytest.fixture
def original(tmp_path: Path) -> Path:
    """A history with one chat: a prompt, an answer with a tool call, sources and usage, and
    a second prompt with a plain answer."""
    path = tmp_path / "original" / "history.sqlite3"
    store = Store.open(path)
    chat = store.create_conversation(title="Weather")
    store.add_user_message(chat, "Weather in Paris?")
    first = store.start_turn(chat, provider="p", model="m", api="chat")
    store.save_turn(first, finished(
        TextDelta("Let me look."), ToolCallStart(0, "call_1", "get_weather"),
        ToolCallArgsDelta(0, '{"city": "Paris"}'), ToolCallEnd(0),
        Sources((Source("https://w.example/paris", "Forecast"),)), Usage(11, 22, None),
        END_OF_STREAM,
    ), final=True)  # fmt: skip
    store.add_user_message(chat, "And tomorrow?")
    second = store.start_turn(chat, provider="p", model="m", api="chat")
    store.save_turn(second, finished(TextDelta("Rain."), END_OF_STREAM), final=True)
    store.close()
    return path


DAMAGE = {
    "tool calls not JSON": ("UPDATE messages SET tool_calls = '[{\"index\": 0,' WHERE id = 2",
                            "its tool calls cannot be read"),
    "tool calls of another shape": ("UPDATE messages SET tool_calls = '{\"a\": 1}' WHERE id = 2",
                                    "its tool calls cannot be read"),
    "params not JSON": ("UPDATE messages SET params = 'temperature=0.2' WHERE id = 2",
                        "its params cannot be read"),
    "unknown status": ("UPDATE messages SET status = 'exploded' WHERE id = 4",
                       "its status 'exploded' is not one Triptych knows"),
    "sources and usage": ("UPDATE messages SET sources = '[1, 2]', usage = '\"many\"' "
                          "WHERE id = 2", "its sources cannot be read; its usage cannot be read"),
}  # fmt: skip


def damaged_copy(original: Path, tmp_path: Path, statement: str) -> Path:
    data = tmp_path / "data"
    data.mkdir()
    shutil.copy(original, data / "history.sqlite3")
    with sqlite3.connect(data / "history.sqlite3") as conn:
        conn.execute(statement)
    return data


def export(data: Path, *argv: str) -> tuple[int, str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TRIPTYCH_")}
    env.update(TRIPTYCH_DATA_DIR=str(data), XDG_CONFIG_HOME=str(data / "ch"))
    done = subprocess.run(
        [sys.executable, "-m", "app", "export", *argv],
        env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    return done.returncode, done.stdout, done.stderr


@pytest.mark.parametrize("damage", list(DAMAGE))
def test_export_of_a_damaged_row_keeps_every_message_and_says_what_was_unreadable(
    original: Path, tmp_path: Path, damage: str
) -> None:
    statement, said = DAMAGE[damage]
    data = damaged_copy(original, tmp_path, statement)

    code, markdown, err = export(data, "1")
    assert (code, err) == (0, "")
    for text in ("Weather in Paris?", "Let me look.", "And tomorrow?", "Rain."):
        assert text in markdown
    assert f"{DAMAGED}: {said}" in markdown

    code, out, err = export(data, "1", "--format", "json", "--raw")
    assert (code, err) == (0, "")
    messages = json.loads(out)["messages"]
    assert [m["text"] for m in messages] == [
        "Weather in Paris?", "Let me look.", "And tomorrow?", "Rain.",
    ]  # fmt: skip
    assert any(said in (m.get("interruption") or "") for m in messages)


def test_the_app_loads_a_damaged_row_with_its_readable_parts(
    original: Path, tmp_path: Path
) -> None:
    data = damaged_copy(original, tmp_path, DAMAGE["params not JSON"][0])
    store = Store.open(data / "history.sqlite3")
    answer = store.load(1).messages[1]
    assert answer.turn is not None
    assert answer.turn.status is TurnStatus.COMPLETE
    assert [c.name for c in answer.turn.tool_calls] == ["get_weather"]  # the rest is read
    assert answer.turn.params == {}
    assert answer.turn.interruption == f"{DAMAGED}: its params cannot be read"
    store.close()
    with sqlite3.connect(data / "history.sqlite3") as conn:  # the row itself is left as it was
        assert conn.execute("SELECT params FROM messages WHERE id = 2").fetchone() == (
            "temperature=0.2",
        )
