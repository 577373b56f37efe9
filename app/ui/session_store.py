"""The app's link to the history store: opened once, told about each prompt and answer as they
happen, and never allowed to stop a chat.

Widgets do not call the Store. A ChatPane holds a `PaneHistory` and tells it when a prompt is
about to be sent, on each render tick while a turn streams, and once the turn settles; the
history screen reads through `History`. The first StoreError turns history off for the rest of
the session and is reported once (its message says which file and what to do): a half-written
history is still better than a chat that stops working.

Every write goes through one writer thread (app/store/writer.py), in the order asked: a write
may wait up to the busy timeout for another instance's lock, and must never hold up drawing or
typing. A turn's snapshot is taken here, on the loop that fills the turn; the stream waits for
its prompt to be stored (`TurnRecord.written`) before the request goes out. Reads first wait
for the writes asked before them, so the list and exports show what was just done.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import threading
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from app.conversation import Conversation, Message
from app.providers.client import Timing
from app.store import (
    ConversationNotFound,
    ConversationSummary,
    ExportFormat,
    Kind,
    Store,
    StoredConversation,
    StoredMessage,
    StoreError,
    export_conversation,
)
from app.store.db import quick_check
from app.store.errors import SESSION_OFF, damaged
from app.store.records import first_line, turn_columns
from app.store.saver import SaveSchedule
from app.store.writer import StoreWriter
from app.wire.turn import Turn

Severity = Literal["information", "warning", "error"]
EXPORTS_FOLDER = "exports"


@dataclass(frozen=True, slots=True)
class Notice:
    text: str
    severity: Severity = "information"


class History:
    """The store, or nothing when it could not be opened or failed later (`problem` says why)."""

    def __init__(self, store: Store | None, problem: str | None = None) -> None:
        self.store = store
        self.problem = problem
        # Called once when history goes off; on the app's loop, even when a write failed on
        # the writer thread.
        self.on_problem: Callable[[str], None] = lambda _message: None
        self._writer = StoreWriter() if store is not None else None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._loop_thread: int | None = None

    @classmethod
    def open(cls, path: Path | None) -> History:
        """Open the history file; None means a session without history (e.g. some tests)."""
        if path is None:
            return cls(None)
        try:
            return cls(Store.open(path))
        except StoreError as exc:
            return cls(None, str(exc))

    @property
    def enabled(self) -> bool:
        return self.store is not None

    def start_notices(self) -> list[Notice]:
        """What the user should hear once at start: why history is off, or what was recovered."""
        if self.store is None:
            return [Notice(self.problem, "error")] if self.problem else []
        notices = [Notice(w, "warning") for w in self.store.warnings]
        count = len(self.store.recovered)
        if count:
            answers = "answer was" if count == 1 else f"{count} answers were"
            notices.append(
                Notice(
                    f"An {answers} cut off when Triptych last stopped; what had arrived is kept "
                    "in the history, marked interrupted.",
                    "warning",
                )
            )
        return notices

    def fail(self, exc: StoreError) -> None:
        """Turn history off for this session and tell the user once (from any thread)."""
        if self.store is None:
            return
        self.problem = str(exc)
        self.store = None
        self._tell(self.problem)

    def _tell(self, message: str) -> None:
        loop = self._loop
        if loop is None or self._loop_thread == threading.get_ident():
            self.on_problem(message)
            return
        with contextlib.suppress(RuntimeError):  # a closed loop: nobody is left to tell
            loop.call_soon_threadsafe(self.on_problem, message)

    def check_in_background(self) -> None:
        """Read the whole file once, on a thread and a connection of its own, and turn history
        off (told like any failure) if pages are damaged: such a file opens fine and failed
        only later, wherever a damaged page happened to be read. Call it from the app's loop."""
        store = self.store
        if store is None:
            return
        self._remember_loop()
        path = store.path

        def check() -> None:
            found = quick_check(path)
            if found is not None:
                self.fail(StoreError(damaged(path, found)))

        threading.Thread(target=check, name="history-check", daemon=True).start()

    def _remember_loop(self) -> None:
        if self._loop is None:
            try:
                self._loop = asyncio.get_running_loop()
                self._loop_thread = threading.get_ident()
            except RuntimeError:
                pass  # no loop (headless use, tests): problems are told on the writer thread

    # -- the writer thread ---------------------------------------------------------------------

    def submit(self, write: Callable[[Store], None]) -> Future[None]:
        """Run `write` on the writer thread, after every write asked before it; history off
        when it fails. The Future is done once it has run (at once when history is off)."""
        writer = self._writer
        if self.store is None or writer is None:
            return _done()
        self._remember_loop()

        def run() -> None:
            store = self.store
            if store is None:
                return
            try:
                write(store)
            except StoreError as exc:
                self.fail(exc)
            except Exception as exc:  # a bug here must not stop the chat
                self.fail(StoreError(f"Saving to {store.path} failed ({exc!r}){SESSION_OFF}"))

        return writer.submit(run)

    def wait(self) -> None:
        """Block until the writes asked so far are done (reads, exports, tests)."""
        if self._writer is not None:
            self._writer.wait()

    # -- reading and managing (the history screen) -----------------------------------------

    def conversations(self, query: str = "", limit: int = 200) -> list[ConversationSummary]:
        self.wait()
        store = self.store
        if store is None:
            return []
        try:
            return store.search(query, limit) if query.strip() else store.list_conversations(limit)
        except StoreError as exc:
            self.fail(exc)
            return []

    def load(self, conv_id: int) -> StoredConversation | None:
        """The conversation, or None if it is gone (deleted elsewhere) or history is off."""
        self.wait()
        store = self.store
        if store is None:
            return None
        try:
            return store.load(conv_id)
        except ConversationNotFound:
            return None
        except StoreError as exc:
            self.fail(exc)
            return None

    def last_conversation_id(self) -> int | None:
        self.wait()
        store = self.store
        if store is None:
            return None
        try:
            return store.last_conversation_id()
        except StoreError as exc:
            self.fail(exc)
            return None

    def rename(self, conv_id: int, title: str) -> bool:
        return self._change(lambda store: store.rename(conv_id, title))

    def delete(self, conv_id: int) -> bool:
        return self._change(lambda store: store.delete(conv_id))

    def _change(self, change: Callable[[Store], None]) -> bool:
        """Rename and delete from the history screen, which shows the outcome at once."""
        self.wait()
        store = self.store
        if store is None:
            return False
        try:
            change(store)
        except ConversationNotFound:
            return False
        except StoreError as exc:
            self.fail(exc)
            return False
        return True

    def export(self, conv_id: int, fmt: ExportFormat, folder: Path | None = None) -> Path:
        """Write the conversation to a new file (owner-only, like the history) and return it.

        Raises ConversationNotFound, StoreError or OSError for the caller to report.
        """
        self.wait()
        store = self.store
        if store is None:
            raise StoreError(self.problem or "History is off in this session.")
        text = export_conversation(store, conv_id, fmt)
        target = folder if folder is not None else store.path.parent / EXPORTS_FOLDER
        target.mkdir(parents=True, exist_ok=True)
        stem = f"triptych-{conv_id}"
        slug = _slug(self._title(store, conv_id))
        if slug:
            stem += f"-{slug}"
        path = _unused(target, stem, fmt)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
        return path

    @staticmethod
    def _title(store: Store, conv_id: int) -> str:
        """The user's title, else the first line of the first prompt (as the list shows)."""
        stored = store.load(conv_id)
        prompts = [m.text for m in stored.messages if m.role == "user"]
        return first_line(stored.title) or first_line(prompts[0] if prompts else "")

    def close(self) -> None:
        """Finish the queued writes (a clean exit loses none), then close the file."""
        if self._writer is not None:
            self._writer.close()
        store, self.store = self.store, None
        if store is not None:
            store.close()

    # -- writing ---------------------------------------------------------------------------

    def record(self, *, kind: Kind = "chat", system: str | None = None) -> ConversationRecord:
        """A new conversation; created in the store only when its first prompt is sent."""
        return ConversationRecord(self, kind=kind, system=system)

    def resume(self, stored: StoredConversation) -> ConversationRecord:
        """Carry on writing an existing conversation."""
        record = ConversationRecord(self, kind=stored.kind, system=stored.system)
        record.conv_id = stored.id
        record.prompt_ids = [m.id for m in stored.messages if m.role == "user"]
        return record


def _done() -> Future[None]:
    done: Future[None] = Future()
    done.set_result(None)
    return done


def _slug(title: str) -> str:
    words = re.findall(r"[A-Za-z0-9]+", title.lower())
    return "-".join(words)[:40].strip("-")


def _unused(folder: Path, stem: str, fmt: str) -> Path:
    path = folder / f"{stem}.{fmt}"
    number = 2
    while path.exists():
        path = folder / f"{stem}-{number}.{fmt}"
        number += 1
    return path


class ConversationRecord:
    """One conversation being written: its prompts, and a TurnRecord per answer.

    `conv_id` and `prompt_ids` are kept by the writes themselves, on the writer thread; the app
    reads them only after `History.wait` (its reads and exports wait).
    """

    def __init__(self, history: History, *, kind: Kind, system: str | None) -> None:
        self.history = history
        self.kind: Kind = kind
        self.system = system
        self.conv_id: int | None = None
        self.prompt_ids: list[int] = []  # store ids of the prompts, oldest first

    def prompt(self, text: str) -> Future[None] | None:
        """Store a prompt, before any request for it (the turn's `written` waits for it); the
        conversation is created on the first one. None when history is off."""
        if self.history.store is None:
            return None

        def write(store: Store) -> None:
            if self.conv_id is None:
                self.conv_id = store.create_conversation(kind=self.kind, system=self.system)
            try:
                message_id = store.add_user_message(self.conv_id, text)
            except ConversationNotFound:  # deleted (perhaps by another instance): start anew
                self.conv_id = store.create_conversation(kind=self.kind, system=self.system)
                self.prompt_ids = []
                message_id = store.add_user_message(self.conv_id, text)
            self.prompt_ids.append(message_id)

        return self.history.submit(write)

    def start_turn(self, *, pane: int, provider: str, model: str, api: str) -> TurnRecord:
        record = TurnRecord(self.history)
        if self.history.store is None:
            record.finished = True
            return record

        def write(store: Store) -> None:
            if self.conv_id is None:  # its prompt was not stored
                return
            try:
                record.turn_id = store.start_turn(
                    self.conv_id, provider=provider, model=model, api=api, pane=pane
                )
            except ConversationNotFound:
                return

        record.started = self.history.submit(write)
        return record

    def carry(self, source: int, target: int) -> None:
        """Copy pane `source`'s conversation so far to pane `target` (each answer under the
        prompt it answers): a pane added to a comparison carries on the one it was added from,
        and reopens with that conversation rather than with bare prompts."""

        def write(store: Store) -> None:
            if self.conv_id is None:
                return
            try:
                stored = store.load(self.conv_id)
                for message, prompt_id in carried_answers(stored, source):
                    store.copy_turn(message.id, pane=target, reply_to=prompt_id)
            except ConversationNotFound:
                return

        self.history.submit(write)

    def drop_last_exchange(self) -> None:
        """Delete the last prompt and everything after it (edit and resend replaces them)."""

        def write(store: Store) -> None:
            if not self.prompt_ids:
                return
            message_id = self.prompt_ids.pop()
            if self.conv_id is not None:
                store.delete_messages_from(self.conv_id, message_id)

        self.history.submit(write)


@dataclass(frozen=True, slots=True)
class _Save:
    """A snapshot of a turn's columns (taken on the loop that fills the turn) to be written."""

    columns: dict[str, Any]
    final: bool = False
    ttft_ms: int | None = None
    duration_ms: int | None = None


class TurnRecord:
    """One answer being saved: while it streams (throttled by SaveSchedule), then once, finally.

    Each save is a snapshot of the turn taken when asked, written on the writer thread. Saves
    waiting there are merged (only the newest is written), so a write held up by another
    instance's lock never piles up copies of a long answer.
    """

    def __init__(self, history: History) -> None:
        self.history = history
        self.turn_id: int | None = None  # set on the writer thread once the row exists
        self.started: Future[None] = _done()  # the row (and so its prompt) is stored
        self.finished = False
        self.gone = False  # the row was deleted under us; saving goes on harmlessly
        self._schedule = SaveSchedule()
        self._lock = threading.Lock()
        self._pending: _Save | None = None
        self._queued = False

    async def written(self) -> None:
        """Wait, without holding up the loop, until the turn's row and its prompt are stored
        (or history went off): a request is sent only after its prompt is in the history."""
        await asyncio.shield(asyncio.wrap_future(self.started))

    def tick(self, turn: Turn, now: float) -> None:
        """Called on every render tick; saves at most about once a second.

        An error that has not settled yet is left for the final save: the client scrubs the
        API key out of error messages only as the turn settles.
        """
        if self.finished or self.history.store is None or turn.done:
            return  # a settled turn gets its final save, with timings, from `finish`
        if turn.error is not None:
            return
        if self._schedule.due(turn, now):
            self._save(_Save(turn_columns(turn)))

    def finish(self, turn: Turn, timing: Timing | None = None) -> None:
        """The final save of a settled turn, with its timings; only the first call writes.

        Called as soon as the stream ends, not when the screen has caught up with it."""
        if self.finished or not turn.done:
            return
        self.finished = True
        if self.history.store is None:
            return
        self._save(
            _Save(
                turn_columns(turn),
                final=True,
                ttft_ms=None if timing is None else timing.ttft_ms,
                duration_ms=None if timing is None else timing.duration_ms,
            )
        )

    def _save(self, save: _Save) -> None:
        with self._lock:
            self._pending = save
            if self._queued:
                return  # the write already queued will take this newer snapshot
            self._queued = True
        self.history.submit(self._write)

    def _write(self, store: Store) -> None:
        with self._lock:
            save, self._pending = self._pending, None
            self._queued = False
        if save is None or self.turn_id is None:
            return
        saved = store.save_columns(
            self.turn_id,
            save.columns,
            ttft_ms=save.ttft_ms,
            duration_ms=save.duration_ms,
            final=save.final,
        )
        self.gone = self.gone or not saved


@dataclass(slots=True)
class PaneHistory:
    """What one pane writes to: its conversation's record and its pane number.

    Panes side by side share one record; only one of them (or the compare screen itself) should
    store the shared prompt, hence `owns_prompts`.
    """

    record: ConversationRecord
    pane: int = 0
    owns_prompts: bool = True

    @classmethod
    def off(cls) -> PaneHistory:
        return cls(History(None).record())

    def fresh(self) -> PaneHistory:
        """The same settings for a new conversation (New chat)."""
        old = self.record
        record = old.history.record(kind=old.kind, system=old.system)
        return PaneHistory(record, self.pane, self.owns_prompts)

    def prompt(self, text: str) -> None:
        if self.owns_prompts:
            self.record.prompt(text)

    def start_turn(self, provider: str, model: str, api: str) -> TurnRecord:
        return self.record.start_turn(pane=self.pane, provider=provider, model=model, api=api)


def continued_conversation(stored: StoredConversation, pane: int = 0) -> Conversation:
    """The history a pane continues from, as the live pane would have built it."""
    messages = [
        Message("user", m.text) if m.turn is None else Message("assistant", m.turn.text, m.turn)
        for m in _continued(stored, pane)
    ]
    return Conversation(stored.system, messages)


def carried_answers(stored: StoredConversation, pane: int) -> list[tuple[StoredMessage, int]]:
    """The answers a pane's conversation holds (what a pane added from it carries on), each
    with the id of the prompt it answers."""
    prompt: int | None = None
    answers: list[tuple[StoredMessage, int]] = []
    for m in _continued(stored, pane):
        if m.role == "user":
            prompt = m.id
        elif prompt is not None:
            answers.append((m, prompt))
    return answers


def _continued(stored: StoredConversation, pane: int) -> list[StoredMessage]:
    """Every prompt, and the answers of `pane` that its conversation keeps.

    An unfinished answer that was retried (another answer from the same pane follows it before
    the next prompt) stays on screen but is not sent: the retry asked the question afresh. An
    answer with neither text nor tool calls is not sent either.
    """
    mine = [m for m in stored.messages if m.role == "user" or m.pane == pane]
    kept: list[StoredMessage] = []
    for index, m in enumerate(mine):
        if m.role == "user":
            kept.append(m)
            continue
        following = mine[index + 1] if index + 1 < len(mine) else None
        if following is not None and following.role == "assistant":
            continue
        if m.turn is not None and (m.turn.text_parts or m.turn.calls):
            kept.append(m)
    return kept


__all__ = [
    "EXPORTS_FOLDER",
    "ConversationRecord",
    "History",
    "Notice",
    "PaneHistory",
    "TurnRecord",
    "carried_answers",
    "continued_conversation",
]
