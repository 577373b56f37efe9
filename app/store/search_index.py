"""Full-text search over prompts and answers: an FTS5 index kept in step by triggers.

The index is derived data, not part of the versioned schema: it can be dropped and rebuilt from
`messages` at any time. That lets a database move between Pythons whose SQLite has FTS5 and ones
whose SQLite lacks it: without FTS5 the triggers are dropped (writes keep working, search falls
back to LIKE) and the next open with FTS5 rebuilds the index.
"""

from __future__ import annotations

import sqlite3

from app.store.transaction import transaction

_FORGET_OLD = (
    "INSERT INTO messages_fts (messages_fts, rowid, text) VALUES ('delete', old.id, old.text);"
)
_TRIGGERS = {
    "messages_fts_insert": """
        CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages BEGIN
            INSERT INTO messages_fts (rowid, text) VALUES (new.id, new.text);
        END""",
    "messages_fts_delete": f"""
        CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages BEGIN
            {_FORGET_OLD}
        END""",
    "messages_fts_update": f"""
        CREATE TRIGGER messages_fts_update AFTER UPDATE OF text ON messages BEGIN
            {_FORGET_OLD}
            INSERT INTO messages_fts (rowid, text) VALUES (new.id, new.text);
        END""",
}

NO_FTS5_WARNING = (
    "This Python's SQLite has no FTS5 full-text search; history search uses a slower plain "
    "substring match instead."
)


def fts5_available(conn: sqlite3.Connection) -> bool:
    try:
        conn.execute("CREATE VIRTUAL TABLE temp.fts5_probe USING fts5(x)")
    except sqlite3.OperationalError:
        return False
    conn.execute("DROP TABLE temp.fts5_probe")
    return True


def ensure_index(conn: sqlite3.Connection, *, fts5: bool) -> None:
    """Make the index match `fts5`: present and in sync, or out of the way of writes."""
    existing = {
        row[0]
        for row in conn.execute("SELECT name FROM sqlite_master WHERE name LIKE 'messages_fts%'")
    }
    if fts5 and existing >= {"messages_fts", *_TRIGGERS}:
        return
    if not fts5 and not existing & set(_TRIGGERS):
        return
    with transaction(conn):
        for name in _TRIGGERS:
            conn.execute(f"DROP TRIGGER IF EXISTS {name}")
        if fts5:
            conn.execute(
                "CREATE VIRTUAL TABLE IF NOT EXISTS messages_fts USING fts5("
                "text, content='messages', content_rowid='id')"
            )
            for sql in _TRIGGERS.values():
                conn.execute(sql)
            # The triggers were missing, so the index may have missed writes: rebuild it.
            conn.execute("INSERT INTO messages_fts (messages_fts) VALUES ('rebuild')")


def match_expression(query: str) -> str:
    """Turn what a user typed into a safe FTS5 query: every word, as a prefix, must appear.

    Quoting each word keeps FTS5 syntax (AND, NEAR, quotes, `-`, `:`) from being parsed out of
    user input, so no query can raise a syntax error.
    """
    words = query.split()
    return " ".join('"' + word.replace('"', '""') + '"*' for word in words)


def like_patterns(query: str) -> list[str]:
    """The LIKE fallback: one `%word%` pattern per word, with `\\` as the escape character."""
    escaped = (
        w.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") for w in query.split()
    )
    return [f"%{word}%" for word in escaped]


__all__ = ["NO_FTS5_WARNING", "ensure_index", "fts5_available", "like_patterns", "match_expression"]
