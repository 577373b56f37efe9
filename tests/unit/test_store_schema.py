"""Schema migrations, damaged files and the search index's life across SQLite builds."""

from __future__ import annotations

import gzip
import sqlite3
from pathlib import Path

import pytest

from app.store import Store, StoreError, db
from app.store.schema import LATEST_VERSION, MIGRATIONS
from app.store.search_index import NO_FTS5_WARNING
from app.wire.events import END_OF_STREAM, TextDelta
from app.wire.turn import Turn, TurnStatus

# The schema as the first release wrote it, spelled out here (not taken from app.store.schema) so
# that an accidental edit of a released migration shows up as a failing test.
V1_SCHEMA = """
CREATE TABLE conversations (
    id INTEGER PRIMARY KEY,
    title TEXT NOT NULL DEFAULT '',
    system TEXT,
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL
);
CREATE TABLE messages (
    id INTEGER PRIMARY KEY,
    conversation_id INTEGER NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
    role TEXT NOT NULL CHECK (role IN ('user', 'assistant')),
    text TEXT NOT NULL DEFAULT '',
    provider TEXT, model TEXT, api TEXT, status TEXT,
    reasoning TEXT NOT NULL DEFAULT '',
    reasoning_signature TEXT, redacted_reasoning TEXT, tool_calls TEXT, sources TEXT, usage TEXT,
    finish_reason TEXT, finish_detail TEXT NOT NULL DEFAULT '',
    error_code TEXT, error_message TEXT,
    interruption TEXT NOT NULL DEFAULT '',
    terminal_seen INTEGER NOT NULL DEFAULT 0,
    ttft_ms INTEGER, duration_ms INTEGER, owner TEXT,
    created_at REAL NOT NULL, updated_at REAL NOT NULL
);
CREATE INDEX messages_by_conversation ON messages (conversation_id, id);
CREATE INDEX messages_streaming ON messages (status) WHERE status = 'streaming';
CREATE INDEX conversations_by_update ON conversations (updated_at, id);
PRAGMA user_version = 1;
INSERT INTO conversations VALUES (1, 'Old chat', 'sys', 1600000000, 1600000100);
INSERT INTO messages (conversation_id, role, text, created_at, updated_at)
    VALUES (1, 'user', 'Migrate the penguins', 1600000000, 1600000000);
INSERT INTO messages (conversation_id, role, text, provider, model, api, status, tool_calls,
                      usage, error_code, error_message, ttft_ms, duration_ms, terminal_seen,
                      created_at, updated_at)
    VALUES (1, 'assistant', 'Penguins migrated.', 'openai', 'gpt-old', 'chat', 'complete',
            '[{"index":0,"id":"c","name":"f","arguments":"{\\"n\\":1}","closed":true}]',
            '[7,8,null]', NULL, NULL, 90, 900, 1, 1600000001, 1600000100);
"""


def test_a_first_release_database_migrates_with_its_data(tmp_path: Path) -> None:
    path = tmp_path / "history.sqlite3"
    old = sqlite3.connect(path)
    old.executescript(V1_SCHEMA)
    old.close()

    store = Store.open(path)

    assert sqlite3.connect(path).execute("PRAGMA user_version").fetchone()[0] == LATEST_VERSION
    loaded = store.load(1)
    assert (loaded.title, loaded.system, loaded.kind) == ("Old chat", "sys", "chat")
    user, answer = loaded.messages
    assert user.text == "Migrate the penguins"
    assert answer.pane == 0  # old answers become pane 0 of a chat
    assert answer.turn is not None
    assert answer.turn.status is TurnStatus.COMPLETE
    assert answer.turn.text == "Penguins migrated."
    assert answer.turn.calls[0].value == {"n": 1}
    assert answer.turn.usage is not None
    assert answer.turn.usage.output_tokens == 8
    assert (answer.ttft_ms, answer.duration_ms) == (90, 900)
    # The search index is built over rows written before it existed.
    assert [s.id for s in store.search("penguins")] == [1]
    # And the migrated file takes new writes of the new shape.
    conv = store.create_conversation(kind="compare")
    store.start_turn(conv, provider="p", model="m", api="chat", pane=2)
    assert store.load(conv).panes[0].pane == 2


def test_a_v2_comparison_migrates_and_reads_in_the_order_it_was_written(
    tmp_path: Path,
) -> None:
    """Version 3 adds `reply_to`; rows written before it have none and keep their order."""
    path = tmp_path / "history.sqlite3"
    old = sqlite3.connect(path)
    old.executescript(V1_SCHEMA)
    old.executescript(
        """
        ALTER TABLE conversations ADD COLUMN kind TEXT NOT NULL DEFAULT 'chat'
            CHECK (kind IN ('chat', 'compare'));
        ALTER TABLE messages ADD COLUMN pane INTEGER;
        UPDATE messages SET pane = 0 WHERE role = 'assistant';
        PRAGMA user_version = 2;
        INSERT INTO conversations (id, title, kind, created_at, updated_at)
            VALUES (2, '', 'compare', 1600000200, 1600000300);
        INSERT INTO messages (conversation_id, role, text, created_at, updated_at)
            VALUES (2, 'user', 'q', 1600000200, 1600000200);
        INSERT INTO messages (conversation_id, role, text, provider, status, pane, created_at,
                              updated_at)
            VALUES (2, 'assistant', 'from b', 'b', 'complete', 1, 1600000201, 1600000201),
                   (2, 'assistant', 'from a', 'a', 'complete', 0, 1600000202, 1600000202);
        """
    )
    old.close()

    store = Store.open(path)
    loaded = store.load(2)
    assert [(m.text, m.pane, m.reply_to) for m in loaded.messages] == [
        ("q", None, None),
        ("from b", 1, None),
        ("from a", 0, None),
    ]
    first = store.load(1).messages[0].id
    copy = store.copy_turn(store.load(1).messages[1].id, pane=1, reply_to=first)
    assert store.load(1).messages[-1].id == copy  # the migrated file takes the new column
    store.close()


def test_migrations_are_numbered_in_order() -> None:
    assert [m.version for m in MIGRATIONS] == list(range(1, len(MIGRATIONS) + 1))


def test_a_database_from_a_newer_triptych_is_refused_clearly(tmp_path: Path) -> None:
    path = tmp_path / "history.sqlite3"
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version = {LATEST_VERSION + 5}")
    conn.close()
    with pytest.raises(StoreError, match="newer Triptych") as caught:
        Store.open(path)
    assert str(path) in str(caught.value)


def test_a_corrupt_file_raises_a_clear_error_and_the_app_can_carry_on(tmp_path: Path) -> None:
    path = tmp_path / "history.sqlite3"
    path.write_bytes(b"this is not sqlite at all \x00\xff" * 200)

    with pytest.raises(StoreError) as caught:
        Store.open(path)

    message = str(caught.value)
    assert str(path) in message
    assert "Move it aside" in message
    assert "without history" in message
    assert path.read_bytes().startswith(b"this is not sqlite")  # never overwritten
    # Carrying on: a history elsewhere still works in the same process.
    other = Store.open(tmp_path / "fresh.sqlite3")
    assert other.list_conversations() == []


def test_a_database_damaged_after_its_header_raises_store_error_on_use(tmp_path: Path) -> None:
    path = tmp_path / "history.sqlite3"
    store = Store.open(path)
    conv = store.create_conversation()
    for i in range(300):
        store.add_user_message(conv, f"message {i} " + "x" * 200)
    store.close()
    sqlite3.connect(path).execute("PRAGMA wal_checkpoint(TRUNCATE)").close()
    data = bytearray(path.read_bytes())
    data[4096:] = b"\xde\xad" * ((len(data) - 4096) // 2)  # pages after the first are garbage
    path.write_bytes(bytes(data))

    def open_and_read() -> None:  # the damage shows at open or at the first read of it
        Store.open(path).load(conv)

    with pytest.raises(StoreError, match="damaged") as caught:
        open_and_read()
    assert str(path) in str(caught.value)


def test_a_folder_that_cannot_be_created_is_a_store_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("a file where a folder should be")
    with pytest.raises(StoreError, match="cannot be used"):
        Store.open(blocker / "history.sqlite3")


def test_without_fts5_writes_work_and_search_falls_back_then_recovers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "history.sqlite3"
    with_fts = Store.open(path)
    early = with_fts.create_conversation()
    with_fts.add_user_message(early, "written with fts5")
    with_fts.close()

    # The same file opened by a Python whose SQLite lacks FTS5.
    monkeypatch.setattr(db, "fts5_available", lambda conn: False)
    without = Store.open(path)
    assert without.warnings == [NO_FTS5_WARNING]
    later = without.create_conversation()
    without.add_user_message(later, "written without the index")
    assert [s.id for s in without.search("without")] == [later]
    assert [s.id for s in without.search("WRITTEN")] == [later, early]
    assert "written without" in without.search("without")[0].snippet
    assert without.search("100%") == []  # LIKE wildcards in the query are literal
    without.close()

    monkeypatch.undo()
    again = Store.open(path)
    assert again.warnings == []
    assert [s.id for s in again.search("index")] == [later]  # rebuilt, nothing missed


def _shape(conn: sqlite3.Connection) -> dict[str, list[tuple[object, ...]]]:
    tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
    return {t: conn.execute(f"PRAGMA table_info({t})").fetchall() for t in sorted(tables)}


def test_the_v1_fixture_is_what_the_first_migration_creates() -> None:
    fixture = sqlite3.connect(":memory:")
    fixture.executescript(V1_SCHEMA)
    released = sqlite3.connect(":memory:")
    released.executescript(MIGRATIONS[0].sql)
    assert _shape(fixture) == _shape(released)


def test_the_parameters_column_migrates_and_keeps_a_conversations_values(tmp_path: Path) -> None:
    """Migration 11: a first-release file gains the column (none set); values set when the
    conversation is created or later read back, and a damaged value reads as none set."""
    path = tmp_path / "history.sqlite3"
    old = sqlite3.connect(path)
    old.executescript(V1_SCHEMA)
    old.close()
    store = Store.open(path)
    try:
        assert store.load(1).params == {}
        made = store.create_conversation(params={"seed": 7, "extra": {"store": False}})
        assert store.load(made).params == {"seed": 7, "extra": {"store": False}}
        store.set_params(1, {"temperature": 0.2})
        assert store.load(1).params == {"temperature": 0.2}
        store.set_params(1, {})
        assert store.load(1).params == {}
    finally:
        store.close()
    conn = sqlite3.connect(path)
    conn.execute("UPDATE conversations SET params = '[1' WHERE id = 1")
    conn.commit()
    conn.close()
    store = Store.open(path)
    try:
        assert store.load(1).params == {}
    finally:
        store.close()


V11_FILE = Path(__file__).resolve().parents[1] / "fixtures" / "history-v11.sqlite3.gz"


def test_a_version_11_file_migrates_and_its_answers_read_as_before(tmp_path: Path) -> None:
    """A copy of a history written by Triptych at schema version 11
    (tests/fixtures/make_history_v11.py): everything reads as it did, the answer its killed
    writer left streaming (its whole turn in its row, as version 11 saved it) is marked
    interrupted with all it had, and the file then takes appended saves."""
    path = tmp_path / "history.sqlite3"
    path.write_bytes(gzip.decompress(V11_FILE.read_bytes()))
    assert sqlite3.connect(path).execute("PRAGMA user_version").fetchone()[0] == 11

    store = Store.open(path)
    try:
        assert sqlite3.connect(path).execute("PRAGMA user_version").fetchone()[0] == (
            LATEST_VERSION
        )
        assert store.recovered == [7]
        chat = store.load(1)
        assert (chat.system, chat.params) == ("be brief", {"temperature": 0.2})
        prompt, done = chat.messages
        assert prompt.text == "Where do emperor penguins winter?"
        assert done.turn is not None
        assert (done.turn.status, done.text) == (
            TurnStatus.COMPLETE,
            "On the Antarctic sea ice, all winter.",
        )
        assert done.turn.reasoning == "They breed on sea ice."
        assert done.turn.calls[0].value == {"q": "emperor"}
        assert done.turn.usage is not None
        assert done.turn.usage.output_tokens == 20
        assert (done.ttft_ms, done.duration_ms) == (120, 3400)
        compare = store.load(2)
        assert [(p.pane, p.provider) for p in compare.panes] == [(0, "p0"), (1, "p1")]
        assert [m.text for m in compare.messages] == [
            "Name a polar bird",
            "The snowy owl.",
            "The Arctic tern.",
        ]
        left = store.load(3).messages[1].turn
        assert left is not None
        assert left.status is TurnStatus.INTERRUPTED
        assert (left.text, left.reasoning) == ("Once upon a time a penguin set out", "A tale")
        assert left.calls[0].arguments == '{"scene": '
        assert [s.id for s in store.search("penguin")] == [3, 1]
        assert [s.id for s in store.search("tern")] == [2]

        turn_id = store.start_turn(1, provider="p", model="m", api="chat")
        turn = Turn()
        for piece in ("Appended ", "after ", "the migration."):
            turn.apply(TextDelta(piece))
            assert store.save_turn(turn_id, turn)
        other = Store.open(path)
        assert other.load(1).messages[-1].text == "Appended after the migration."
        other.close()
        turn.apply(END_OF_STREAM)
        turn.end()
        assert store.save_turn(turn_id, turn, final=True)
        assert [s.id for s in store.search("migration")] == [1]
        parts = sqlite3.connect(path).execute("SELECT count(*) FROM message_parts").fetchone()
        assert parts == (0,)
    finally:
        store.close()
