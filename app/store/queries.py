"""The read queries behind the history list and search, kept apart from the writing Store."""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Sequence
from dataclasses import replace
from pathlib import PurePath

from app.store import parts
from app.store.records import ConversationSummary, first_line
from app.store.search_index import like_patterns, match_expression

_CHUNK = 500  # stays under SQLite's smallest limit on bound parameters (999)


def newest_ids(conn: sqlite3.Connection, limit: int) -> list[int]:
    """Newest first; a batch run is one entry (its latest prompt's conversation stands for
    it): five runs of 20 prompts are five lines, not a hundred among the chats."""
    rows = conn.execute(
        "SELECT id FROM conversations c WHERE c.batch_id IS NULL OR c.id = ("
        " SELECT b.id FROM conversations b WHERE b.batch_id = c.batch_id"
        " ORDER BY b.updated_at DESC, b.id DESC LIMIT 1) "
        "ORDER BY updated_at DESC, id DESC LIMIT ?",
        (limit,),
    )
    return [row[0] for row in rows]


def run_summary(conn: sqlite3.Connection, summary: ConversationSummary) -> ConversationSummary:
    """A batch conversation's line as its run's: the prompt file, how many prompts, every
    message of the run, its providers."""
    row = conn.execute(
        "SELECT b.source, b.providers, count(DISTINCT c.id) AS prompts, "
        " (SELECT count(*) FROM messages m JOIN conversations d ON d.id = m.conversation_id"
        "  WHERE d.batch_id = b.id) AS messages "
        "FROM conversations c JOIN batches b ON b.id = c.batch_id "
        "WHERE c.batch_id = (SELECT batch_id FROM conversations WHERE id = ?) GROUP BY b.id",
        (summary.id,),
    ).fetchone()
    if row is None:
        return summary
    name = PurePath(row["source"]).name or "batch"
    prompts = row["prompts"]
    try:
        providers = tuple(str(p).split(":", 1)[0] for p in json.loads(row["providers"]))
    except (ValueError, TypeError):
        providers = summary.providers
    return replace(
        summary,
        title=f"{name} · {prompts} prompt{'s' if prompts != 1 else ''}",
        providers=tuple(dict.fromkeys(providers)) or summary.providers,
        message_count=row["messages"],
        outcome="",
    )


def summaries(
    conn: sqlite3.Connection, ids: Sequence[int], *, runs: bool = False
) -> list[ConversationSummary]:
    """Summaries for `ids`, in the order given; `runs`: a batch conversation's is its run's
    (the history list; a search names the prompt it found)."""
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
        statuses: dict[int, list[str]] = {}
        for row in conn.execute(
            "SELECT conversation_id, status FROM messages WHERE role = 'assistant' AND "
            f"conversation_id IN ({marks}) ORDER BY id",
            chunk,
        ):
            statuses.setdefault(row[0], []).append(row[1] or "")
        for row in conn.execute(
            "SELECT c.id, c.title, c.kind, c.created_at, c.updated_at, "
            " (SELECT substr(m.text, 1, 400) FROM messages m WHERE m.conversation_id = c.id"
            "  AND m.role = 'user' ORDER BY m.id LIMIT 1) AS first_prompt, "
            " (SELECT count(*) FROM messages m WHERE m.conversation_id = c.id) AS message_count, "
            " (SELECT count(*) FROM messages m WHERE m.conversation_id = c.id"
            "  AND m.role = 'user') AS prompts "
            f"FROM conversations c WHERE c.id IN ({marks})",
            chunk,
        ):
            found[row["id"]] = summary = ConversationSummary(
                id=row["id"],
                title=first_line(row["title"]) or first_line(row["first_prompt"] or ""),
                kind=row["kind"],
                providers=tuple(providers.get(row["id"], ())),
                message_count=row["message_count"],
                created_at=row["created_at"],
                updated_at=row["updated_at"],
                outcome=outcome(row["prompts"], statuses.get(row["id"], [])),
            )
            if runs and row["kind"] == "batch":
                found[row["id"]] = run_summary(conn, summary)
    return [found[i] for i in ids if i in found]


def outcome(prompts: int, statuses: list[str]) -> str:
    """How a one-prompt attempt ended, when none of its answers completed; "" otherwise
    (also while one still streams: one cut off by a killed process is marked on the next
    start, app/store/liveness.py)."""
    if prompts != 1 or not statuses or {"complete", "streaming"} & set(statuses):
        return ""
    return ", ".join(dict.fromkeys(s or "interrupted" for s in statuses))


def search_hits(
    conn: sqlite3.Connection, query: str, limit: int, *, fts5: bool
) -> dict[int, tuple[str, int | None]]:
    """Matching conversation ids, newest first, each with a snippet of its first matching message
    and that message's id (None when only the title matched).

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
    # An answer still streaming is in the index only once it settles (parts.py): what it has
    # saved so far is matched here, as the plain search would.
    words = [w.casefold() for w in query.split()]
    live = [
        (cid, mid)
        for mid, (cid, text) in parts.streaming_texts(conn).items()
        if all(w in text.casefold() for w in words)
    ]
    if live:
        values = ", ".join("(?, ?)" for _ in live)
        hit_sql = (
            f"SELECT cid, min(mid) AS mid FROM ({hit_sql} UNION ALL SELECT * FROM "
            f"(VALUES {values})) GROUP BY cid"
        )
        hit_args = [*hit_args, *(n for pair in live for n in pair)]
    rows = conn.execute(
        f"WITH hit AS ({hit_sql}) SELECT c.id, hit.mid FROM conversations c "
        f"LEFT JOIN hit ON hit.cid = c.id WHERE hit.mid IS NOT NULL OR ({title_match}) "
        "ORDER BY c.updated_at DESC, c.id DESC LIMIT ?",
        [*hit_args, *patterns, limit],
    ).fetchall()
    texts = parts.texts(conn, [row[1] for row in rows if row[1] is not None])
    return {row[0]: (snippet(texts.get(row[1], ""), query), row[1]) for row in rows}


def snippet(text: str, query: str, before: int = 40, after: int = 100) -> str:
    """One line of `text` around the first query word found.

    Done here rather than with FTS5's snippet(), which scores every match position and took
    several milliseconds per long answer full of matches: too slow for a list of a hundred.
    """
    at = -1
    for word in query.split():
        found = re.search(r"(?<!\w)" + re.escape(word), text, re.IGNORECASE)
        found = found or re.search(re.escape(word), text, re.IGNORECASE)
        if found and (at < 0 or found.start() < at):
            at = found.start()
    at = max(at, 0)
    start = max(at - before, 0)
    end = at + after
    piece = " ".join(text[start:end].split())
    return ("…" if start else "") + piece + ("…" if end < len(text) else "")


__all__ = ["newest_ids", "outcome", "search_hits", "snippet", "summaries"]
