"""The read queries behind the history list and search, kept apart from the writing Store."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from app.store.records import ConversationSummary, first_line
from app.store.search_index import like_patterns, match_expression

_CHUNK = 500  # stays under SQLite's smallest limit on bound parameters (999)
_SNIPPET_WORDS = 12


def newest_ids(conn: sqlite3.Connection, limit: int) -> list[int]:
    rows = conn.execute(
        "SELECT id FROM conversations ORDER BY updated_at DESC, id DESC LIMIT ?", (limit,)
    )
    return [row[0] for row in rows]


def summaries(conn: sqlite3.Connection, ids: Sequence[int]) -> list[ConversationSummary]:
    """Summaries for `ids`, in the order given."""
    found: dict[int, ConversationSummary] = {}
    for start in range(0, len(ids), _CHUNK):
        chunk = list(ids[start : start + _CHUNK])
        marks = ",".join("?" * len(chunk))
        providers: dict[int, list[str]] = {}
        for row in conn.execute(
            "SELECT conversation_id, provider FROM messages WHERE role = 'assistant' AND "
            f"provider IS NOT NULL AND conversation_id IN ({marks}) "
            "GROUP BY conversation_id, provider ORDER BY min(id)",
            chunk,
        ):
            providers.setdefault(row[0], []).append(row[1])
        for row in conn.execute(
            "SELECT c.id, c.title, c.kind, c.created_at, c.updated_at, "
            " (SELECT substr(m.text, 1, 400) FROM messages m WHERE m.conversation_id = c.id"
            "  AND m.role = 'user' ORDER BY m.id LIMIT 1) AS first_prompt, "
            " (SELECT count(*) FROM messages m WHERE m.conversation_id = c.id) AS message_count "
            f"FROM conversations c WHERE c.id IN ({marks})",
            chunk,
        ):
            found[row["id"]] = ConversationSummary(
                id=row["id"],
                title=first_line(row["title"]) or first_line(row["first_prompt"] or ""),
                kind=row["kind"],
                providers=tuple(providers.get(row["id"], ())),
                message_count=row["message_count"],
                created_at=row["created_at"],
                updated_at=row["updated_at"],
            )
    return [found[i] for i in ids if i in found]


def search_hits(conn: sqlite3.Connection, query: str, limit: int, *, fts5: bool) -> dict[int, str]:
    """Matching conversation ids, newest first, each with a snippet of its first matching message.

    A conversation matches when one of its messages holds every word (prefix match with FTS5,
    substring without) or its title holds every word.
    """
    patterns = like_patterns(query)
    title_match = " AND ".join("c.title LIKE ? ESCAPE '\\'" for _ in patterns)
    if fts5:
        hit_sql = (
            "SELECT m.conversation_id AS cid, min(m.id) AS mid FROM messages_fts "
            "JOIN messages m ON m.id = messages_fts.rowid WHERE messages_fts MATCH ? "
            "GROUP BY m.conversation_id"
        )
        hit_args: list[object] = [match_expression(query)]
    else:
        text_match = " AND ".join("text LIKE ? ESCAPE '\\'" for _ in patterns)
        hit_sql = (
            "SELECT conversation_id AS cid, min(id) AS mid FROM messages "
            f"WHERE {text_match} GROUP BY conversation_id"
        )
        hit_args = list(patterns)
    rows = conn.execute(
        f"WITH hit AS ({hit_sql}) SELECT c.id, hit.mid FROM conversations c "
        f"LEFT JOIN hit ON hit.cid = c.id WHERE hit.mid IS NOT NULL OR ({title_match}) "
        "ORDER BY c.updated_at DESC, c.id DESC LIMIT ?",
        [*hit_args, *patterns, limit],
    ).fetchall()
    return {row[0]: _snippet(conn, query, row[1], fts5=fts5) for row in rows}


def _snippet(conn: sqlite3.Connection, query: str, message_id: int | None, *, fts5: bool) -> str:
    if message_id is None:
        return ""
    if fts5:
        row = conn.execute(
            "SELECT snippet(messages_fts, 0, '', '', '…', ?) FROM messages_fts "
            "WHERE messages_fts MATCH ? AND rowid = ?",
            (_SNIPPET_WORDS, match_expression(query), message_id),
        ).fetchone()
        return " ".join(row[0].split()) if row else ""
    row = conn.execute("SELECT text FROM messages WHERE id = ?", (message_id,)).fetchone()
    text: str = row[0] if row else ""
    at = max(text.lower().find(query.split()[0].lower()), 0)
    start = max(at - 40, 0)
    piece = " ".join(text[start : at + 80].split())
    return ("…" if start else "") + piece + ("…" if at + 80 < len(text) else "")


__all__ = ["newest_ids", "search_hits", "summaries"]
