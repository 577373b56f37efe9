"""The history schema as an ordered list of migrations, tracked by `PRAGMA user_version`.

A migration is never edited once released: a database written by any earlier Triptych is brought
forward step by step, and one written by a newer Triptych is refused rather than misread.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from app.store.transaction import transaction


@dataclass(frozen=True, slots=True)
class Migration:
    version: int
    description: str
    sql: str


MIGRATIONS: tuple[Migration, ...] = (
    Migration(
        1,
        "conversations and their messages; an assistant row holds one whole turn",
        """
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
            provider TEXT,
            model TEXT,
            api TEXT,
            status TEXT,
            reasoning TEXT NOT NULL DEFAULT '',
            reasoning_signature TEXT,
            redacted_reasoning TEXT,
            tool_calls TEXT,
            sources TEXT,
            usage TEXT,
            finish_reason TEXT,
            finish_detail TEXT NOT NULL DEFAULT '',
            error_code TEXT,
            error_message TEXT,
            interruption TEXT NOT NULL DEFAULT '',
            terminal_seen INTEGER NOT NULL DEFAULT 0,
            ttft_ms INTEGER,
            duration_ms INTEGER,
            owner TEXT,
            created_at REAL NOT NULL,
            updated_at REAL NOT NULL
        );
        CREATE INDEX messages_by_conversation ON messages (conversation_id, id);
        CREATE INDEX messages_streaming ON messages (status) WHERE status = 'streaming';
        CREATE INDEX conversations_by_update ON conversations (updated_at, id);
        """,
    ),
    Migration(
        2,
        "compare sessions: a conversation kind, and the pane each assistant turn belongs to",
        """
        ALTER TABLE conversations ADD COLUMN kind TEXT NOT NULL DEFAULT 'chat'
            CHECK (kind IN ('chat', 'compare'));
        ALTER TABLE messages ADD COLUMN pane INTEGER;
        UPDATE messages SET pane = 0 WHERE role = 'assistant';
        """,
    ),
    Migration(
        3,
        "answers carried into a pane added to a comparison: the prompt each one answers",
        """
        ALTER TABLE messages ADD COLUMN reply_to INTEGER;
        """,
    ),
    Migration(
        4,
        "batch runs (a conversation kind and the run it belongs to) and blind-comparison votes",
        """
        CREATE TABLE batches (
            id INTEGER PRIMARY KEY,
            source TEXT NOT NULL DEFAULT '',
            tag TEXT,
            providers TEXT NOT NULL DEFAULT '[]',
            created_at REAL NOT NULL
        );
        CREATE TABLE conversations_v4 (
            id INTEGER PRIMARY KEY,
            title TEXT NOT NULL DEFAULT '',
            system TEXT,
            created_at REAL NOT NULL,
            updated_at REAL NOT NULL,
            kind TEXT NOT NULL DEFAULT 'chat' CHECK (kind IN ('chat', 'compare', 'batch')),
            batch_id INTEGER REFERENCES batches(id) ON DELETE SET NULL
        );
        INSERT INTO conversations_v4 (id, title, system, created_at, updated_at, kind)
            SELECT id, title, system, created_at, updated_at, kind FROM conversations;
        DROP TABLE conversations;
        ALTER TABLE conversations_v4 RENAME TO conversations;
        CREATE INDEX conversations_by_update ON conversations (updated_at, id);
        CREATE INDEX conversations_by_batch ON conversations (batch_id) WHERE batch_id IS NOT NULL;
        CREATE TABLE votes (
            id INTEGER PRIMARY KEY,
            conversation_id INTEGER REFERENCES conversations(id) ON DELETE SET NULL,
            prompt TEXT NOT NULL,
            outcome TEXT NOT NULL CHECK (outcome IN ('winner', 'tie', 'all_bad', 'skipped')),
            winner INTEGER,
            tag TEXT,
            created_at REAL NOT NULL,
            CHECK ((outcome = 'winner') = (winner IS NOT NULL))
        );
        CREATE INDEX votes_by_time ON votes (created_at);
        CREATE INDEX votes_by_conversation ON votes (conversation_id)
            WHERE conversation_id IS NOT NULL;
        CREATE TABLE vote_panes (
            vote_id INTEGER NOT NULL REFERENCES votes(id) ON DELETE CASCADE,
            pane INTEGER NOT NULL,
            provider TEXT NOT NULL,
            model TEXT NOT NULL,
            message_id INTEGER REFERENCES messages(id) ON DELETE SET NULL,
            ttft_ms INTEGER,
            tok_s REAL,
            cost REAL,
            PRIMARY KEY (vote_id, pane)
        );
        CREATE INDEX vote_panes_by_message ON vote_panes (message_id)
            WHERE message_id IS NOT NULL;
        """,
    ),
    Migration(
        5,
        "the request parameters each answer was asked with (JSON, as sent)",
        """
        ALTER TABLE messages ADD COLUMN params TEXT;
        """,
    ),
    Migration(
        6,
        "the raw stream of each answer (its recording, zlib), apart so a load never reads it",
        """
        CREATE TABLE streams (
            message_id INTEGER PRIMARY KEY REFERENCES messages(id) ON DELETE CASCADE,
            data BLOB NOT NULL,
            kept_bytes INTEGER NOT NULL,
            cut_bytes INTEGER NOT NULL DEFAULT 0,
            created_at REAL NOT NULL
        );
        """,
    ),
    Migration(
        7,
        "files attached to prompts: each content once, by its SHA-256, linked to its prompts",
        """
        CREATE TABLE attachments (
            sha256 TEXT PRIMARY KEY,
            media_type TEXT NOT NULL,
            kind TEXT NOT NULL CHECK (kind IN ('image', 'text', 'pdf')),
            size INTEGER NOT NULL,
            data BLOB NOT NULL
        );
        CREATE TABLE message_attachments (
            message_id INTEGER NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
            position INTEGER NOT NULL,
            sha256 TEXT NOT NULL REFERENCES attachments(sha256),
            name TEXT NOT NULL,
            PRIMARY KEY (message_id, position)
        );
        CREATE INDEX message_attachments_by_content ON message_attachments (sha256);
        """,
    ),
    Migration(
        8,
        "branches: a chat message points at the one it follows; the last chosen sibling shows",
        """
        ALTER TABLE messages ADD COLUMN parent_id INTEGER;
        ALTER TABLE messages ADD COLUMN chosen INTEGER NOT NULL DEFAULT 0;
        UPDATE messages SET chosen = id;
        UPDATE messages SET parent_id = (
            SELECT MAX(p.id) FROM messages p
            WHERE p.conversation_id = messages.conversation_id AND p.id < messages.id
        ) WHERE conversation_id IN (SELECT id FROM conversations WHERE kind = 'chat');
        CREATE INDEX messages_by_parent ON messages (parent_id) WHERE parent_id IS NOT NULL;
        """,
    ),
    Migration(
        9,
        "blind comparisons and batches: reopened before the vote, they stay blind",
        """
        ALTER TABLE conversations ADD COLUMN blind INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE batches ADD COLUMN blind INTEGER NOT NULL DEFAULT 0;
        """,
    ),
    Migration(
        10,
        "a comparison's panes branch on their own: each message's parent and choice per pane",
        """
        CREATE TABLE pane_links (
            message_id INTEGER NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
            pane INTEGER NOT NULL,
            conversation_id INTEGER NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
            parent_id INTEGER,
            chosen INTEGER NOT NULL,
            PRIMARY KEY (message_id, pane)
        );
        CREATE INDEX pane_links_by_conversation ON pane_links (conversation_id, pane);
        """,
    ),
    Migration(
        11,
        "the parameters panel's values are the conversation's: reopened, it carries on with them",
        """
        ALTER TABLE conversations ADD COLUMN params TEXT;
        """,
    ),
    Migration(
        12,
        "a streaming answer's saves append what arrived since the last one, not the whole turn",
        """
        CREATE TABLE message_parts (
            seq INTEGER PRIMARY KEY,
            message_id INTEGER NOT NULL,
            field TEXT NOT NULL CHECK (field IN ('text', 'reasoning', 'arguments')),
            call INTEGER NOT NULL DEFAULT -1,
            start INTEGER NOT NULL,
            data TEXT NOT NULL
        );
        CREATE TRIGGER message_parts_follow AFTER DELETE ON messages BEGIN
            DELETE FROM message_parts WHERE message_id = old.id;
        END;
        """,
    ),
)

LATEST_VERSION = MIGRATIONS[-1].version


class SchemaTooNew(Exception):
    """The file was written by a newer Triptych; reading it could lose what that one added."""

    def __init__(self, found: int) -> None:
        super().__init__(found)
        self.found = found


def schema_version(conn: sqlite3.Connection) -> int:
    return int(conn.execute("PRAGMA user_version").fetchone()[0])


def migrate(conn: sqlite3.Connection) -> list[int]:
    """Bring the database to LATEST_VERSION; returns the versions applied.

    Runs in one IMMEDIATE transaction so two instances starting together cannot both migrate:
    the second waits on the lock, then sees the new version and does nothing.
    """
    if schema_version(conn) == LATEST_VERSION:
        return []
    applied: list[int] = []
    foreign_keys = bool(conn.execute("PRAGMA foreign_keys").fetchone()[0])
    # A migration may rebuild a table others reference (SQLite cannot change a CHECK in place;
    # version 4 does so to add the kind 'batch'): with foreign keys on, dropping the old table
    # would cascade into every row pointing at it. They can only be turned off outside a
    # transaction (SQLite's documented way to rebuild a table), and are turned back on after.
    conn.execute("PRAGMA foreign_keys = OFF")
    try:
        with transaction(conn):
            current = schema_version(conn)
            if current > LATEST_VERSION:
                raise SchemaTooNew(current)
            for migration in MIGRATIONS:
                if migration.version <= current:
                    continue
                for statement in _statements(migration.sql):
                    conn.execute(statement)
                conn.execute(f"PRAGMA user_version = {migration.version:d}")
                applied.append(migration.version)
    finally:
        conn.execute(f"PRAGMA foreign_keys = {'ON' if foreign_keys else 'OFF'}")
    return applied


def _statements(script: str) -> list[str]:
    """Split a migration into statements; `executescript` would commit our open transaction."""
    statements: list[str] = []
    pending = ""
    for line in script.splitlines(keepends=True):
        pending += line
        if sqlite3.complete_statement(pending):
            statements.append(pending.strip())
            pending = ""
    if pending.strip():
        statements.append(pending.strip())
    return statements


__all__ = ["LATEST_VERSION", "MIGRATIONS", "Migration", "SchemaTooNew", "migrate", "schema_version"]
