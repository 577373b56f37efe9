"""The conversation history: one SQLite file in the data dir, written as things happen.

Every write is its own short IMMEDIATE transaction committed at once, so what has been saved
survives the process being killed, and two instances sharing the file wait on each other
(busy_timeout) instead of failing with "database is locked". WAL lets readers run alongside a
writer; synchronous=NORMAL keeps a streaming save cheap while staying safe against a crash of the
app (only a power cut can lose the last second).
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any

from app.providers.kept_stream import KeptStreamError, pack, recording_of, unpack
from app.store import pane_trees, parts, queries
from app.store.branches import AT_END, branch_view, is_tree, next_chosen, parent_for, tree_of
from app.store.errors import ConversationNotFound, StoreError, too_new, unusable
from app.store.health import damaged_log
from app.store.liveness import HEARTBEAT, INTERRUPTED_BY_EXIT, Owner, is_orphaned
from app.store.location import DEFAULT_FILENAME, history_path
from app.store.records import (
    KINDS,
    BatchInfo,
    ConversationSummary,
    Kind,
    StoredConversation,
    StoredMessage,
    in_reading_order,
    row_to_attachment,
    row_to_message,
    turn_columns,
)
from app.store.schema import LATEST_VERSION, SchemaTooNew, migrate
from app.store.search_index import NO_FTS5_WARNING, ensure_index, fts5_available
from app.store.transaction import transaction
from app.store.votes import Vote, delete_vote, insert_vote, select_votes
from app.wire.api import Api
from app.wire.attachment import Attachment
from app.wire.exchange import CapturedExchange
from app.wire.turn import Turn, TurnStatus

BUSY_TIMEOUT_MS = 10_000
CHECKPOINT_WAIT_MS = 100  # how long the checkpoint after an answer waits for other instances
_UNSET = object()
_KEEP_STREAM = (
    "INSERT OR REPLACE INTO streams (message_id, data, kept_bytes, cut_bytes, created_at) "
    "VALUES (?, ?, ?, ?, ?)"
)
# What a copied answer keeps of the original row (everything but its place and bookkeeping).
_COPIED = (
    "role", "text", "provider", "model", "api", "status", "reasoning", "reasoning_signature",
    "redacted_reasoning", "tool_calls", "sources", "usage", "finish_reason", "finish_detail",
    "error_code", "error_message", "interruption", "terminal_seen", "ttft_ms", "duration_ms",
    "params",
)  # fmt: skip


def _drop_unlinked_attachments(conn: sqlite3.Connection) -> None:
    """Files no prompt carries any more go with the last prompt that did."""
    conn.execute(
        "DELETE FROM attachments WHERE sha256 NOT IN (SELECT sha256 FROM message_attachments)"
    )


class Store:
    """The history file, through two connections: one for writes, one for reads.

    A write may wait up to BUSY_TIMEOUT_MS for another instance's lock, so the app makes its
    writes from a thread of their own (writer.py); reads have their own connection, which WAL
    never makes wait for a writer, so a read is never stuck behind a write that waits.
    """

    def __init__(
        self,
        conn: sqlite3.Connection,
        path: Path,
        *,
        fts5: bool,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._conn = conn
        self._lock = threading.RLock()  # each connection is used by one thread at a time
        self._reader = conn  # `open` gives reads a connection of their own
        self._read_lock = self._lock
        self.path = path
        self.fts5 = fts5
        self.owner = str(Owner.current())
        self.clock = clock  # wall clock for created_at/updated_at; injectable for tests
        self.warnings: list[str] = [] if fts5 else [NO_FTS5_WARNING]
        self.recovered: list[int] = []  # turns found orphaned at open and marked interrupted
        self._streaming: dict[int, parts.Saved] = {}  # what each answer streaming here saved

    @classmethod
    def open(cls, path: Path, *, clock: Callable[[], float] = time.time) -> Store:
        """Open (creating if needed) and migrate the history file, or raise a clear StoreError."""
        path = Path(path)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            _create_private(path)
            conn = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        except (OSError, sqlite3.Error) as exc:
            raise StoreError(unusable(path, exc)) from exc
        try:
            conn.row_factory = sqlite3.Row
            conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS:d}")
            _switch_to_wal(conn, BUSY_TIMEOUT_MS / 1000)
            conn.execute("PRAGMA synchronous = NORMAL")
            conn.execute("PRAGMA foreign_keys = ON")
            damage = damaged_log(conn, path, BUSY_TIMEOUT_MS)  # before a write of ours lands
            migrate(conn)
            fts5 = fts5_available(conn)
            ensure_index(conn, fts5=fts5)
            store = cls(conn, path, fts5=fts5, clock=clock)
            store._reader, store._read_lock = _open_reader(path), threading.RLock()
            if damage is not None:
                count = conn.execute("SELECT count(*) FROM conversations").fetchone()[0]
                store.warnings.append(damage.warning(path, count))
            store._recover_orphans()
        except SchemaTooNew as exc:
            conn.close()
            raise StoreError(too_new(path, exc.found, LATEST_VERSION)) from exc
        except sqlite3.Error as exc:
            conn.close()
            raise StoreError(unusable(path, exc)) from exc
        except StoreError:
            conn.close()
            raise
        return store

    def close(self) -> None:
        with self._read_lock:
            if self._reader is not self._conn:
                self._reader.close()
        with self._lock:
            self._conn.close()

    # -- writing ----------------------------------------------------------------------------

    def create_conversation(
        self,
        *,
        title: str = "",
        kind: Kind = "chat",
        system: str | None = None,
        batch_id: int | None = None,
        blind: bool = False,
        params: Mapping[str, Any] | None = None,
    ) -> int:
        """`batch_id` ties a conversation of kind "batch" to its run (`create_batch`);
        `blind`: a blind comparison (`mark_blind` for one that turns blind later); `params`:
        the parameters panel's values it was started with (`set_params`)."""
        if kind not in KINDS:
            raise ValueError(f"unknown conversation kind {kind!r}")
        now = self.clock()
        with self._write() as conn:
            cur = conn.execute(
                "INSERT INTO conversations (title, kind, system, batch_id, blind, params, "
                "created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (title, kind, system, batch_id, int(blind), _params_json(params), now, now),
            )
        return _rowid(cur)

    def mark_blind(self, conv_id: int) -> None:
        """The comparison turned blind (the palette's "Blind comparison"): reopened before a
        vote, it stays blind."""
        with self._write() as conn:
            conn.execute("UPDATE conversations SET blind = 1 WHERE id = ?", (conv_id,))

    def create_batch(
        self,
        *,
        source: str = "",
        tag: str | None = None,
        providers: Sequence[str] = (),
        blind: bool = False,
    ) -> int:
        """One `triptych batch` run: its prompt file, --tag and `provider:model`s in order;
        each prompt is then a conversation of kind "batch" with this `batch_id`."""
        now = self.clock()
        with self._write() as conn:
            cur = conn.execute(
                "INSERT INTO batches (source, tag, providers, blind, created_at) "
                "VALUES (?, ?, ?, ?, ?)",
                (source, tag, json.dumps(list(providers)), int(blind), now),
            )
        return _rowid(cur)

    def batch(self, batch_id: int) -> BatchInfo:
        """A batch run (a vote in it takes its `tag`); LookupError when there is none."""
        with self._read() as conn:
            row = conn.execute("SELECT * FROM batches WHERE id = ?", (batch_id,)).fetchone()
        if row is None:
            raise LookupError(f"no batch {batch_id} in the history")
        return BatchInfo(
            id=row["id"],
            source=row["source"],
            tag=row["tag"],
            providers=tuple(json.loads(row["providers"])),
            created_at=row["created_at"],
            blind=bool(row["blind"]),
        )

    def batch_conversations(self, batch_id: int) -> list[int]:
        """The conversations of one batch run, in the order they were created."""
        with self._read() as conn:
            rows = conn.execute(
                "SELECT id FROM conversations WHERE batch_id = ? ORDER BY id", (batch_id,)
            )
            return [row[0] for row in rows]

    # -- votes ------------------------------------------------------------------------------

    def record_vote(self, vote: Vote) -> int:
        """Store a blind comparison's verdict (its `created_at` is now); returns its id."""
        with self._write() as conn:
            return insert_vote(conn, vote, self.clock())

    def delete_vote(self, vote_id: int) -> bool:
        """Take a vote back (undone on the vote bar); False when it was not stored."""
        with self._write() as conn:
            return delete_vote(conn, vote_id)

    def votes(
        self,
        *,
        since: float | None = None,
        tag: str | None = None,
        conversation_id: int | None = None,
        damaged: list[int] | None = None,
    ) -> list[Vote]:
        """Votes oldest first: given at or after `since` (wall clock), with `tag`, or about
        one conversation; each filter given narrows the set. Rows that are not votes are
        left out, their ids added to `damaged`."""
        with self._read() as conn:
            return select_votes(
                conn, since=since, tag=tag, conversation_id=conversation_id, damaged=damaged
            )

    def add_user_message(
        self,
        conv_id: int,
        text: str,
        attachments: Sequence[Attachment] = (),
        *,
        parent: int | None = AT_END,
        pane: int | None = None,
    ) -> int:
        """Store a prompt with its files; committed before this returns, so before any request
        is sent. A file's content is stored once, however many prompts carry it. In a chat it
        follows `parent` (an edit: a sibling of the prompt edited), by default the end of the
        chosen path, and becomes the chosen branch. In a comparison a prompt is shared by every
        pane, each placing it at the end of its own chosen path; with `pane` it is that pane's
        own (an edit in that pane only), following `parent` in its tree."""
        now = self.clock()
        with self._write() as conn:
            self._touch(conn, conv_id, now)
            panes = self._pane_trees(conn, conv_id, pane)
            cur = conn.execute(
                "INSERT INTO messages (conversation_id, role, text, parent_id, chosen, pane, "
                "created_at, updated_at) VALUES (?, 'user', ?, ?, ?, ?, ?, ?)",
                (conv_id, text, parent_for(conn, conv_id, parent), next_chosen(conn, conv_id),
                 None if panes is None else pane, now, now),
            )  # fmt: skip
            message_id = _rowid(cur)
            for each in panes or ():
                pane_trees.link(conn, conv_id, message_id, each, AT_END if pane is None else parent)
            for position, a in enumerate(attachments):
                conn.execute(
                    "INSERT OR IGNORE INTO attachments (sha256, media_type, kind, size, data) "
                    "VALUES (?, ?, ?, ?, ?)",
                    (a.sha256, a.media_type, a.kind, a.size, a.data),
                )
                conn.execute(
                    "INSERT INTO message_attachments (message_id, position, sha256, name) "
                    "VALUES (?, ?, ?, ?)",
                    (message_id, position, a.sha256, a.name),
                )
        return message_id

    def start_turn(
        self,
        conv_id: int,
        *,
        provider: str,
        model: str,
        api: str,
        pane: int = 0,
        reply_to: int | None = None,
        parent: int | None = AT_END,
    ) -> int:
        """Create the assistant row (status streaming) that save_turn will fill. `reply_to`
        names the prompt it answers when later prompts are already stored (a batch stores
        every repeat of a prompt before the answers, which arrive in any order). In a chat it
        follows `parent` (a regenerated answer: a sibling of the one regenerated), by default
        the end of the chosen path, and becomes the chosen branch; in a comparison, so in its
        pane's own tree."""
        now = self.clock()
        with self._write() as conn:
            self._touch(conn, conv_id, now)
            panes = self._pane_trees(conn, conv_id, pane)  # a comparison: this pane's tree
            cur = conn.execute(
                "INSERT INTO messages (conversation_id, role, status, provider, model, api, pane,"
                " reply_to, parent_id, chosen, owner, created_at, updated_at)"
                " VALUES (?, 'assistant', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (conv_id, TurnStatus.STREAMING.value, provider, model, str(api), pane,
                 reply_to, parent_for(conn, conv_id, parent), next_chosen(conn, conv_id),
                 self.owner, now, now),
            )  # fmt: skip
            if panes is not None:
                pane_trees.link(conn, conv_id, _rowid(cur), pane, parent)
        return _rowid(cur)

    def save_turn(
        self,
        turn_id: int,
        turn: Turn,
        *,
        ttft_ms: int | None = None,
        duration_ms: int | None = None,
        final: bool = False,
    ) -> bool:
        """Write the turn as it stands. `final` marks the last save; the turn must be settled.

        Returns False when the row is gone: its conversation was deleted (perhaps by another
        instance) while it streamed. The user asked for that, so it is not an error.
        """
        if final and not turn.done:
            raise ValueError("a final save needs a settled turn: call turn.end() first")
        return self.save_columns(
            turn_id, turn_columns(turn), ttft_ms=ttft_ms, duration_ms=duration_ms, final=final
        )

    def save_columns(
        self,
        turn_id: int,
        columns: Mapping[str, Any],
        *,
        ttft_ms: int | None = None,
        duration_ms: int | None = None,
        final: bool = False,
        exchange: CapturedExchange | None = None,
    ) -> bool:
        """`save_turn` of a snapshot taken with `turn_columns`: the app takes it on the UI loop,
        where the turn grows, and writes it from the writer thread. While the turn streams,
        only what changed since the last save is written (parts.py); the final save writes the
        whole turn once, with its raw stream (`exchange`, see `save_stream`), then checkpoints
        the log."""
        if not final:
            return self._save_progress(turn_id, columns, ttft_ms, duration_ms)
        kept = None if exchange is None else self._kept_stream(exchange)
        row = dict(columns)
        row.update(ttft_ms=ttft_ms, duration_ms=duration_ms, updated_at=self.clock(), owner=None)
        assignments = ", ".join(f"{name} = :{name}" for name in row)
        with self._write() as conn:
            cur = conn.execute(
                f"UPDATE messages SET {assignments} WHERE id = :id AND role = 'assistant'",
                {**row, "id": turn_id},
            )
            if cur.rowcount == 1:
                parts.drop(conn, turn_id)
                if kept is not None:
                    conn.execute(_KEEP_STREAM, (turn_id, *kept))
                conn.execute(
                    "UPDATE conversations SET updated_at = ? WHERE id = "
                    "(SELECT conversation_id FROM messages WHERE id = ?)",
                    (row["updated_at"], turn_id),
                )
        with self._lock:
            self._streaming.pop(turn_id, None)
        self._checkpoint()
        return cur.rowcount == 1

    def _save_progress(
        self,
        turn_id: int,
        columns: Mapping[str, Any],
        ttft_ms: int | None,
        duration_ms: int | None,
    ) -> bool:
        """A streaming save: the parts that arrived since the last one, appended, and the row's
        other columns where they changed (its `updated_at`, which tells other instances the
        writer lives, at least every HEARTBEAT). The row's own text stays as it started, so
        neither it nor the full-text index is rewritten."""
        values, rest = parts.split_columns(columns)
        rest.update(ttft_ms=ttft_ms, duration_ms=duration_ms)
        now = self.clock()
        with self._lock:  # held until what was saved is noted, once it is committed
            with self._write() as conn:
                saved = self._streaming.pop(turn_id, None) or parts.read_saved(conn, turn_id)
                if saved is None:
                    return False
                new = parts.changes(saved, values, turn_id)
                changed = {k: v for k, v in rest.items() if saved.columns.get(k, _UNSET) != v}
                if changed or not new or now - saved.touched >= HEARTBEAT:
                    changed["updated_at"] = now
                    assignments = ", ".join(f"{name} = :{name}" for name in changed)
                    cur = conn.execute(
                        f"UPDATE messages SET {assignments} WHERE id = :id AND role = 'assistant'",
                        {**changed, "id": turn_id},
                    )
                    found = cur.rowcount == 1
                else:
                    found = (
                        conn.execute(
                            "SELECT 1 FROM messages WHERE id = ? AND role = 'assistant'", (turn_id,)
                        ).fetchone()
                        is not None
                    )
                if not found:  # deleted meanwhile (perhaps by another instance)
                    return False
                conn.executemany(
                    "INSERT INTO message_parts (message_id, field, call, start, data) "
                    "VALUES (?, ?, ?, ?, ?)",
                    new,
                )
            saved.values.update(values)
            saved.columns.update(changed)
            saved.touched = changed.get("updated_at", saved.touched)
            self._streaming[turn_id] = saved
        return True

    def _checkpoint(self) -> None:
        """Copy the log into the file and empty it, once an answer settles: a long answer left
        megabytes of log behind. Another instance reading or writing is waited for only
        briefly; then SQLite checkpoints what it can, as a passive checkpoint does."""
        with self._lock, self._errors():
            conn = self._conn
            conn.execute(f"PRAGMA busy_timeout = {CHECKPOINT_WAIT_MS:d}")
            try:
                conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
            except sqlite3.OperationalError as exc:
                if not _busy(exc):
                    raise
            finally:
                conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS:d}")

    def copy_turn(self, turn_id: int, *, pane: int, reply_to: int) -> int:
        """Copy a finished answer into another pane of its conversation, as the answer to
        prompt `reply_to`: a pane added to a comparison carries on another pane's conversation,
        and reopens with it. The copy keeps who answered, with its figures."""
        now = self.clock()
        copied = ", ".join(_COPIED)
        with self._write() as conn:
            found = conn.execute(
                "SELECT conversation_id FROM messages WHERE id = ?", (turn_id,)
            ).fetchone()
            conv_id = -1 if found is None else found[0]
            parent = parent_for(conn, conv_id, AT_END)  # a chat's: after the end of its path
            cur = conn.execute(
                f"INSERT INTO messages (conversation_id, {copied}, pane, reply_to, parent_id, "
                f"chosen, created_at, updated_at) SELECT conversation_id, {copied}, ?, ?, ?, ?, "
                "?, ? FROM messages WHERE id = ? AND role = 'assistant'",
                (pane, reply_to, parent, next_chosen(conn, conv_id), now, now, turn_id),
            )
            if cur.rowcount != 1:
                raise ConversationNotFound(f"no answer {turn_id} in the history")
            _copy_parts(conn, turn_id, _rowid(cur))
            conn.execute(
                "UPDATE conversations SET updated_at = ? WHERE id = "
                "(SELECT conversation_id FROM messages WHERE id = ?)",
                (now, turn_id),
            )
        return _rowid(cur)

    def pane_path(self, conv_id: int, pane: int) -> list[int]:
        """The ids on a comparison pane's chosen path, in order."""
        with self._read() as conn:
            return pane_trees.pane_tree(conn, conv_id, pane).chosen_path()

    def carry_pane(self, conv_id: int, source: int, target: int, path: Sequence[int] = ()) -> None:
        """A pane added to a comparison carries on pane `source`'s chosen path (or `path`,
        the one it showed when the pane was added): its prompts join `target`'s tree in that
        order and its answers are copied there (each under the prompt it answers); `target`
        then branches on its own."""
        now = self.clock()
        copied = ", ".join(_COPIED)
        with self._write() as conn:
            if not pane_trees.is_pane_tree(conn, conv_id):
                raise ConversationNotFound(f"no comparison {conv_id} in the history")
            if not path:
                path = pane_trees.pane_tree(conn, conv_id, source).chosen_path()
            roles = dict(
                conn.execute(
                    "SELECT id, role FROM messages WHERE conversation_id = ?", (conv_id,)
                ).fetchall()
            )
            conn.execute(
                "DELETE FROM pane_links WHERE conversation_id = ? AND pane = ?", (conv_id, target)
            )
            parent: int | None = None
            prompt: int | None = None
            for message_id in path:
                if roles.get(message_id) == "user":
                    node = prompt = message_id
                elif roles.get(message_id) == "assistant" and prompt is not None:
                    cur = conn.execute(
                        f"INSERT INTO messages (conversation_id, {copied}, pane, reply_to, "
                        f"chosen, created_at, updated_at) SELECT conversation_id, {copied}, ?, "
                        "?, 0, ?, ? FROM messages WHERE id = ?",
                        (target, prompt, now, now, message_id),
                    )
                    node = _rowid(cur)
                    _copy_parts(conn, message_id, node)
                else:
                    continue
                pane_trees.link(conn, conv_id, node, target, parent)
                parent = node
            self._touch(conn, conv_id, now)

    def rename(self, conv_id: int, title: str) -> None:
        with self._write() as conn:
            cur = conn.execute("UPDATE conversations SET title = ? WHERE id = ?", (title, conv_id))
            self._found(cur, conv_id)

    def set_system(self, conv_id: int, system: str | None) -> None:
        """The conversation's system prompt from now on (changed in the app for this one)."""
        with self._write() as conn:
            cur = conn.execute(
                "UPDATE conversations SET system = ? WHERE id = ?", (system, conv_id)
            )
            self._found(cur, conv_id)

    def set_params(self, conv_id: int, params: Mapping[str, Any] | None) -> None:
        """The parameters panel's values for the conversation from now on (by knob name, as
        `RequestParams.as_dict` gives them; empty or None: none set)."""
        with self._write() as conn:
            cur = conn.execute(
                "UPDATE conversations SET params = ? WHERE id = ?", (_params_json(params), conv_id)
            )
            self._found(cur, conv_id)

    def delete(self, conv_id: int, *, votes: bool = False) -> None:
        """Delete a conversation. Its votes stay (no longer tied to it) unless `votes`."""
        with self._write() as conn:
            if votes:
                conn.execute("DELETE FROM votes WHERE conversation_id = ?", (conv_id,))
            cur = conn.execute("DELETE FROM conversations WHERE id = ?", (conv_id,))
            self._found(cur, conv_id)
            _drop_unlinked_attachments(conn)

    def delete_messages_from(self, conv_id: int, message_id: int) -> int:
        """Drop a message and everything after it (retry and edit); returns how many went.
        Answers copied later to earlier prompts are not after it, and stay. In a chat, what
        follows it on its own branches only: other branches stay."""
        with self._write() as conn:
            tree = tree_of(conn, conv_id)
            if message_id in tree.nodes and is_tree(conn, conv_id):
                gone = tree.subtree(message_id)
                conn.executemany("DELETE FROM messages WHERE id = ?", [(i,) for i in gone])
                count = len(gone)
            else:
                cur = conn.execute(
                    "DELETE FROM messages WHERE conversation_id = ? "
                    "AND COALESCE(reply_to, id) >= ?",
                    (conv_id, message_id),
                )
                count = cur.rowcount
            _drop_unlinked_attachments(conn)
        return count

    def reveal(self, message_id: int, query: str) -> bool:
        """A search hit opened: show the branch holding it, unless the branch shown already
        holds every word of `query` (a chat, or in a comparison each pane whose tree holds
        it). True when the choice changed."""
        with self._write() as conn:
            row = conn.execute(
                "SELECT conversation_id FROM messages WHERE id = ?", (message_id,)
            ).fetchone()
            if row is not None and pane_trees.is_pane_tree(conn, row[0]):
                return pane_trees.reveal(conn, row[0], message_id, partial(_holds, conn), query)
            if row is None or not is_tree(conn, row[0]):
                return False
            conv_id = row[0]
            tree = tree_of(conn, conv_id)
            path = tree.chosen_path()
            if message_id in path or _holds(conn, path, query):
                return False
            for node in tree.ancestry(message_id):
                conn.execute(
                    "UPDATE messages SET chosen = ? WHERE id = ?",
                    (next_chosen(conn, conv_id), node),
                )
        return True

    def choose(self, message_id: int, *, pane: int | None = None) -> None:
        """Show this branch: the message becomes the chosen one among its siblings (what
        follows it keeps its own choices). In a comparison, among its siblings in `pane`'s
        tree (the other panes keep theirs)."""
        with self._write() as conn:
            row = conn.execute(
                "SELECT conversation_id FROM messages WHERE id = ?", (message_id,)
            ).fetchone()
            if row is None:
                raise ConversationNotFound(f"no message {message_id} in the history")
            conv_id = row[0]
            if pane is not None and pane_trees.is_pane_tree(conn, conv_id):
                pane_trees.choose(conn, conv_id, message_id, pane)
            else:
                conn.execute(
                    "UPDATE messages SET chosen = ? WHERE id = ?",
                    (next_chosen(conn, conv_id), message_id),
                )
            self._touch(conn, conv_id, self.clock())

    def save_stream(self, turn_id: int, exchange: CapturedExchange) -> bool:
        """Keep an answer's raw stream with it (its recording, compressed here: call it from
        the writer thread). The capture already stopped at the per-answer limit and says what
        it cut. False when the answer is gone."""
        kept = self._kept_stream(exchange)
        with self._write() as conn:
            found = conn.execute(
                "SELECT 1 FROM messages WHERE id = ? AND role = 'assistant'", (turn_id,)
            ).fetchone()
            if found is None:
                return False
            conn.execute(_KEEP_STREAM, (turn_id, *kept))
        return True

    def _kept_stream(self, exchange: CapturedExchange) -> tuple[bytes, int, int, float]:
        """A `streams` row's values but its message id (compressed here, before the write)."""
        cut = exchange.total_bytes - exchange.kept_bytes
        return pack(exchange), exchange.kept_bytes, cut, self.clock()

    def stream(self, message_id: int) -> CapturedExchange | None:
        """An answer's kept stream decoded again (frames, their events, the request), for the
        inspector on a reopened answer; None when none was kept. Raises KeptStreamError (a
        ValueError saying why) when the stored bytes cannot be read back."""
        with self._read() as conn:
            row = conn.execute(
                "SELECT s.data, m.api FROM streams s JOIN messages m ON m.id = s.message_id "
                "WHERE s.message_id = ?",
                (message_id,),
            ).fetchone()
        if row is None:
            return None
        try:
            api = Api(row["api"] or "chat")
        except ValueError:
            raise KeptStreamError(f"the answer names an unknown api {row['api']!r}") from None
        return unpack(bytes(row["data"]), api)

    def stream_recording(self, message_id: int) -> str | None:
        """An answer's kept stream as its recording's text (JSON Lines), or None."""
        with self._read() as conn:
            row = conn.execute(
                "SELECT data FROM streams WHERE message_id = ?", (message_id,)
            ).fetchone()
        return None if row is None else recording_of(bytes(row["data"]))

    def delete_message(self, message_id: int) -> None:
        """Drop one message, e.g. one pane's answer in a comparison being retried."""
        with self._write() as conn:
            conn.execute("DELETE FROM messages WHERE id = ?", (message_id,))

    # -- reading ----------------------------------------------------------------------------

    def list_conversations(self, limit: int = 100) -> list[ConversationSummary]:
        """Newest first (by last activity)."""
        with self._read() as conn:
            return queries.summaries(conn, queries.newest_ids(conn, limit), runs=True)

    def search(self, query: str, limit: int = 100) -> list[ConversationSummary]:
        """Conversations whose prompts, answers or title hold every word of `query`."""
        if not query.split():
            return self.list_conversations(limit)
        with self._read() as conn:
            hits = queries.search_hits(conn, query, limit, fts5=self.fts5)
            found = queries.summaries(conn, list(hits))
        return [replace(s, snippet=hits[s.id][0], hit_id=hits[s.id][1]) for s in found]

    def load(self, conv_id: int, *, all_branches: bool = False) -> StoredConversation:
        """A conversation as shown: a chat's chosen path (each message knowing its siblings),
        a comparison's messages in reading order. `all_branches`: every branch of a chat,
        parents before children, each message with its `level` of indent."""
        with self._read() as conn:
            row = conn.execute("SELECT * FROM conversations WHERE id = ?", (conv_id,)).fetchone()
            if row is None:
                raise ConversationNotFound(f"no conversation {conv_id} in the history")
            rows = parts.overlaid(
                conn,
                conn.execute(
                    "SELECT * FROM messages WHERE conversation_id = ? ORDER BY id", (conv_id,)
                ).fetchall(),
            )
            files = conn.execute(
                "SELECT l.message_id, l.name, a.* FROM message_attachments l "
                "JOIN attachments a ON a.sha256 = l.sha256 JOIN messages m ON m.id = l.message_id "
                "WHERE m.conversation_id = ? ORDER BY l.message_id, l.position",
                (conv_id,),
            ).fetchall()
        attached: dict[int, list[Attachment]] = {}
        for f in files:
            attached.setdefault(f["message_id"], []).append(row_to_attachment(f))
        messages = [row_to_message(r, tuple(attached.get(r["id"], ()))) for r in rows]
        paths: dict[int, list[StoredMessage]] = {}
        if row["kind"] == "chat":
            messages = branch_view(messages, all_branches=all_branches)
        elif row["kind"] == "compare":
            with self._read() as conn:
                views = pane_trees.pane_views(conn, conv_id, messages, everything=all_branches)
            messages, paths = views.shown, views.paths
        else:
            messages = in_reading_order(messages)
        return StoredConversation(
            id=row["id"],
            title=row["title"],
            kind=row["kind"],
            system=row["system"],
            created_at=row["created_at"],
            updated_at=row["updated_at"],
            messages=messages,
            batch_id=row["batch_id"],
            blind=bool(row["blind"]),
            pane_paths=paths,
            params=_params_of(row["params"]),
        )

    def last_conversation_id(self) -> int | None:
        with self._read() as conn:
            ids = queries.newest_ids(conn, 1)
        return ids[0] if ids else None

    # -- internals --------------------------------------------------------------------------

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        with self._lock, self._errors(), transaction(self._conn):
            yield self._conn

    @contextmanager
    def _read(self) -> Iterator[sqlite3.Connection]:
        with self._read_lock, self._errors():
            yield self._reader

    @contextmanager
    def _errors(self) -> Iterator[None]:
        try:
            yield
        except sqlite3.Error as exc:
            raise StoreError(unusable(self.path, exc)) from exc

    @staticmethod
    def _pane_trees(conn: sqlite3.Connection, conv_id: int, pane: int | None) -> list[int] | None:
        """The panes whose trees a message about to be added goes into: `pane`'s, or every
        pane's for a shared prompt (None); None outside a comparison. Each pane's flat past is
        linked first, so the new message follows what it showed."""
        if not pane_trees.is_pane_tree(conn, conv_id):
            return None
        panes = sorted(pane_trees.known_panes(conn, conv_id)) if pane is None else [pane]
        for each in panes:
            pane_trees.ensure_linked(conn, conv_id, each)
        return panes

    def _touch(self, conn: sqlite3.Connection, conv_id: int, now: float) -> None:
        cur = conn.execute("UPDATE conversations SET updated_at = ? WHERE id = ?", (now, conv_id))
        self._found(cur, conv_id)

    @staticmethod
    def _found(cur: sqlite3.Cursor, conv_id: int) -> None:
        if cur.rowcount == 0:
            raise ConversationNotFound(f"no conversation {conv_id} in the history")

    def _recover_orphans(self) -> None:
        """Mark turns whose writer died mid-stream as interrupted, keeping what they had."""
        now = self.clock()
        rows = self._conn.execute(
            "SELECT id, owner, updated_at FROM messages WHERE status = 'streaming'"
        ).fetchall()
        orphans = [r["id"] for r in rows if is_orphaned(r["owner"], r["updated_at"], now)]
        if not orphans:
            return
        with self._write() as conn:
            marks = ",".join("?" * len(orphans))
            rows = conn.execute(
                f"SELECT * FROM messages WHERE id IN ({marks}) AND status = 'streaming'", orphans
            ).fetchall()
            for row in parts.overlaid(conn, rows):  # what it had appended, into its row
                conn.execute(
                    "UPDATE messages SET status = 'interrupted', owner = NULL, text = ?, "
                    "reasoning = ?, tool_calls = ?, interruption = "
                    "CASE WHEN interruption = '' THEN ? ELSE interruption END WHERE id = ?",
                    (row["text"], row["reasoning"], row["tool_calls"], INTERRUPTED_BY_EXIT,
                     row["id"]),
                )  # fmt: skip
                parts.drop(conn, row["id"])
        self._checkpoint()
        self.recovered = orphans


def _open_reader(path: Path) -> sqlite3.Connection:
    reader = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
    reader.row_factory = sqlite3.Row
    reader.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS:d}")
    return reader


def _switch_to_wal(conn: sqlite3.Connection, timeout: float) -> None:
    """`PRAGMA journal_mode = WAL`, retried while another instance holds the file.

    Switching a new file to WAL needs it to itself, and SQLite fails that switch with
    SQLITE_BUSY at once instead of applying the busy timeout (waiting there could deadlock two
    connections each holding a shared lock), so two instances creating the history together
    used to leave one without history. Retrying within the same budget makes them queue.
    """
    deadline = time.monotonic() + timeout
    pause = 0.005
    while True:
        try:
            conn.execute("PRAGMA journal_mode = WAL").fetchone()
            return
        except sqlite3.OperationalError as exc:
            if not _busy(exc) or time.monotonic() + pause > deadline:
                raise
        time.sleep(pause)
        pause = min(pause * 2, 0.1)


def _copy_parts(conn: sqlite3.Connection, source: int, copy: int) -> None:
    """A copy of an answer still streaming reads as far as the original has arrived."""
    conn.execute(
        "INSERT INTO message_parts (message_id, field, call, start, data) "
        "SELECT ?, field, call, start, data FROM message_parts WHERE message_id = ? ORDER BY seq",
        (copy, source),
    )


def _busy(exc: sqlite3.OperationalError) -> bool:
    return str(getattr(exc, "sqlite_errorname", "")).startswith(("SQLITE_BUSY", "SQLITE_LOCKED"))


def _create_private(path: Path) -> None:
    """Create the file readable by its owner only; SQLite gives its -wal and -shm the same mode.

    Conversations are private, and an empty file is a valid empty database.
    """
    with suppress(FileExistsError):
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))


def _holds(conn: sqlite3.Connection, ids: list[int], query: str) -> bool:
    """Whether one of these messages holds every word of `query` (as the plain search finds)."""
    words = [w.casefold() for w in query.split()]
    if not words:
        return True
    for text in parts.texts(conn, ids).values():
        folded = text.casefold()
        if all(w in folded for w in words):
            return True
    return False


def _params_json(params: Mapping[str, Any] | None) -> str | None:
    return json.dumps(dict(params), ensure_ascii=False) if params else None


def _params_of(text: str | None) -> dict[str, Any]:
    """A conversation's stored parameters; a damaged value reads as none set."""
    try:
        value = json.loads(text) if text else {}
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _rowid(cur: sqlite3.Cursor) -> int:
    assert cur.lastrowid is not None
    return cur.lastrowid


__all__ = ["BUSY_TIMEOUT_MS", "DEFAULT_FILENAME", "Store", "history_path"]
