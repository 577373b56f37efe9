"""A streaming answer saved as appended parts, and read back as if its row held the whole turn.

Rewriting the whole row once a second made the writes grow with the square of the answer's
length: the row itself and, through its trigger, the full-text index (24.7 MB written for one
20,000-token answer at 200 tok/s, 110.8 MB for 40,000; bench/bench_disk.py). Now, while an
answer streams, its row keeps no text of its own: each save appends to `message_parts` what
arrived since the previous save (text, reasoning, each tool call's arguments), and writes the
row's small columns only when they change or the liveness heartbeat is due. The final save
writes the whole turn once (the index takes it then) and drops the parts; the next start does
the same for an answer whose writer died (`Store._recover_orphans`). Readers see a streaming
row through `overlaid`, as it would read had it been rewritten.

A part means "from character `start` on, the field is `data`": an append starts where the
saved value ends; an earlier `start` replaces the rest (a tool call's arguments, which the
provider may restate whole when the call ends). The table holds only answers still streaming,
so it is nearly always empty: it needs no index (which would add a page to every save), and
no foreign key (SQLite empties a table with one row by row, writing each page out); a
trigger on `messages` drops an answer's parts with it instead.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

Key = tuple[str, int]  # (field, tool call index; -1 for text and reasoning)
TEXT: Key = ("text", -1)
REASONING: Key = ("reasoning", -1)
ARGUMENTS = "arguments"
STREAMING = "streaming"
_CHUNK = 500  # under SQLite's smallest limit on bound parameters (999)


@dataclass(slots=True)
class Saved:
    """What has been written of one streaming answer: each streamed field's value as saved,
    the row's other columns as last written, and when its `updated_at` was. The Store keeps
    one per answer it streams, so a save costs no read."""

    values: dict[Key, str]
    columns: dict[str, Any]
    touched: float


def split_columns(columns: Mapping[str, Any]) -> tuple[dict[Key, str], dict[str, Any]]:
    """A snapshot's streamed fields, and the row's other columns (its tool calls with their
    arguments left out: those go to parts)."""
    values: dict[Key, str] = {TEXT: columns["text"] or "", REASONING: columns["reasoning"] or ""}
    rest = {k: v for k, v in columns.items() if k not in ("text", "reasoning")}
    calls = _calls(columns.get("tool_calls"))
    if calls is not None:
        for call in calls:
            values[(ARGUMENTS, int(call["index"]))] = str(call["arguments"])
            call["arguments"] = ""
        rest["tool_calls"] = _dump(calls)
    return values, rest


def changes(saved: Saved, values: Mapping[Key, str], message_id: int) -> list[tuple[Any, ...]]:
    """The part rows that bring what is saved up to `values` (none when nothing arrived)."""
    rows: list[tuple[Any, ...]] = []
    for (name, call), value in values.items():
        before = saved.values.get((name, call), "")
        if value == before:
            continue
        start = len(before) if value.startswith(before) else 0
        rows.append((message_id, name, call, start, value[start:]))
    return rows


def read_saved(conn: sqlite3.Connection, message_id: int) -> Saved | None:
    """What the file holds of a streaming answer (the first save by this Store), or None when
    the answer is gone."""
    row = conn.execute(
        "SELECT * FROM messages WHERE id = ? AND role = 'assistant'", (message_id,)
    ).fetchone()
    if row is None:
        return None
    found = _parts(conn, [message_id]).get(message_id, [])
    values, rest = split_columns(_row_dict(row))
    return Saved(_apply(values, found), rest, row["updated_at"])


def assembled(row: sqlite3.Row, found: Sequence[tuple[int, str, int, int, str]]) -> dict[str, Any]:
    """A streaming row's text, reasoning and tool calls with its parts put back in."""
    values, _ = split_columns(_row_dict(row))
    values = _apply(values, found)
    out: dict[str, Any] = {"text": values[TEXT], "reasoning": values[REASONING]}
    calls = _calls(row["tool_calls"])
    if calls is not None:
        for call in calls:
            call["arguments"] = values.get((ARGUMENTS, int(call["index"])), call["arguments"])
        out["tool_calls"] = _dump(calls)
    return out


def overlaid(conn: sqlite3.Connection, rows: list[sqlite3.Row]) -> list[sqlite3.Row]:
    """Message rows as readers know them: a streaming answer's with what its parts add."""
    streaming = [r["id"] for r in rows if _is_streaming(r)]
    if not streaming:
        return rows
    found = _parts(conn, streaming)
    out: list[sqlite3.Row] = []
    for row in rows:
        if row["id"] in found:
            row = _as_row(conn, {**_row_dict(row), **assembled(row, found[row["id"]])})
        out.append(row)
    return out


def streaming_texts(conn: sqlite3.Connection) -> dict[int, tuple[int, str]]:
    """Each streaming answer's text so far, by message id, with its conversation's id."""
    rows = conn.execute(
        "SELECT * FROM messages WHERE status = 'streaming' AND role = 'assistant'"
    ).fetchall()
    return {r["id"]: (r["conversation_id"], r["text"]) for r in overlaid(conn, rows)}


def texts(conn: sqlite3.Connection, ids: Sequence[int]) -> dict[int, str]:
    """The text of these messages, a streaming answer's with its parts."""
    found: dict[int, str] = {}
    for start in range(0, len(ids), _CHUNK):
        chunk = list(ids[start : start + _CHUNK])
        marks = ",".join("?" * len(chunk))
        rows = conn.execute(
            f"SELECT id, text, status, reasoning, tool_calls FROM messages WHERE id IN ({marks})",
            chunk,
        ).fetchall()
        found.update((r["id"], r["text"]) for r in overlaid(conn, rows))
    return found


def drop(conn: sqlite3.Connection, message_id: int) -> None:
    """Forget an answer's parts once its row holds them. When it was the only answer
    streaming (nearly always), the table is emptied whole, which SQLite does without writing
    out each page it frees unless its build zeroes freed pages (`secure_delete`, on in
    Debian's): 51 pages of log for a 20,000-token answer's final save instead of 63 row by
    row (84 where freed pages are zeroed)."""
    others = conn.execute(
        "SELECT 1 FROM message_parts WHERE message_id != ? LIMIT 1", (message_id,)
    ).fetchone()
    if others is None:
        conn.execute("DELETE FROM message_parts")
    else:
        conn.execute("DELETE FROM message_parts WHERE message_id = ?", (message_id,))


def _calls(text: str | None) -> list[dict[str, Any]] | None:
    """A row's tool calls, or None when it has none or they cannot be read (a damaged row is
    left as it is, for its reader to deal with)."""
    if not text:
        return None
    try:
        calls = json.loads(text)
        if isinstance(calls, list) and all(
            isinstance(c, dict) and isinstance(c.get("index"), int) and "arguments" in c
            for c in calls
        ):
            return calls
    except ValueError:
        pass
    return None


def _is_streaming(row: sqlite3.Row) -> bool:
    return bool(row["status"] == STREAMING)


def _parts(
    conn: sqlite3.Connection, ids: Sequence[int]
) -> dict[int, list[tuple[int, str, int, int, str]]]:
    found: dict[int, list[tuple[int, str, int, int, str]]] = {}
    for start in range(0, len(ids), _CHUNK):
        chunk = list(ids[start : start + _CHUNK])
        marks = ",".join("?" * len(chunk))
        for row in conn.execute(
            "SELECT message_id, seq, field, call, start, data FROM message_parts "
            f"WHERE message_id IN ({marks}) ORDER BY message_id, seq",
            chunk,
        ):
            found.setdefault(row[0], []).append((row[1], row[2], row[3], row[4], row[5]))
    return found


def _apply(
    values: dict[Key, str], found: Iterable[tuple[int, str, int, int, str]]
) -> dict[Key, str]:
    """Each field's value once its parts, in order, are applied (appends joined once, so a
    long answer of many parts costs no more than its length)."""
    pieces: dict[Key, list[str]] = {key: [value] for key, value in values.items()}
    lengths: dict[Key, int] = {key: len(value) for key, value in values.items()}
    for _seq, name, call, start, data in found:
        key = (name, call)
        held = pieces.setdefault(key, [])
        length = lengths.get(key, 0)
        if start != length:  # a replacement (or a damaged part): cut what it replaces
            joined = "".join(held)[:start]
            held[:] = [joined]
            length = len(joined)
        held.append(data)
        lengths[key] = length + len(data)
    return {key: "".join(held) for key, held in pieces.items()}


def _row_dict(row: sqlite3.Row) -> dict[str, Any]:
    return dict(zip(row.keys(), row, strict=True))


def _as_row(conn: sqlite3.Connection, values: Mapping[str, Any]) -> sqlite3.Row:
    """A sqlite3.Row holding `values` (made by SQLite itself, so it reads like any other)."""
    names = list(values)
    select = ", ".join(f'? AS "{name}"' for name in names)
    cursor = conn.cursor()
    cursor.row_factory = sqlite3.Row
    row: sqlite3.Row = cursor.execute(f"SELECT {select}", [values[n] for n in names]).fetchone()
    return row


def _dump(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


__all__ = [
    "Saved",
    "assembled",
    "changes",
    "drop",
    "overlaid",
    "read_saved",
    "split_columns",
    "streaming_texts",
    "texts",
]
