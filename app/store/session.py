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
import threading
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from app.store.branches import AT_END
from app.store.errors import SESSION_OFF, ConversationNotFound, StoreError, damaged
from app.store.session_records import (
    ConversationRecord,
    TurnRecord,
    carried_answers,
    continued_messages,
    done_future,
)
from app.wire.attachment import Attachment
from app.wire.conversation import Conversation, Message

if TYPE_CHECKING:
    from app.store.db import Store
    from app.store.export import ExportFormat
    from app.store.records import ConversationSummary, Kind, StoredConversation
    from app.store.votes import Vote
    from app.store.writer import StoreWriter
    from app.wire.exchange import CapturedExchange

Severity = Literal["information", "warning", "error"]
EXPORTS_FOLDER = "exports"
# How long a read (the history list, reopening, an export) waits for the writes asked before
# it: they normally take milliseconds; one held up by another instance's lock is not waited for.
READ_WAIT = 0.5


@dataclass(frozen=True, slots=True)
class Notice:
    text: str
    severity: Severity = "information"


class History:
    """The store, or nothing when it could not be opened or failed later (`problem` says why).

    `History.later(path)` opens the file on first use instead (its `store`): the app opens it
    right after its first frame, or sooner when a prompt or `--continue` needs it, so the
    first screen does not wait for sqlite3 and the store."""

    def __init__(self, store: Store | None, problem: str | None = None) -> None:
        self._store = store
        self._unopened: Path | None = None  # the file to open on first use (`later`)
        self._opening = threading.Lock()
        self.problem = problem
        # Called once when history goes off; on the app's loop, even when a write failed on
        # the writer thread.
        self.on_problem: Callable[[str], None] = lambda _message: None
        self._writer = _writer() if store is not None else None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._loop_thread: int | None = None

    @classmethod
    def open(cls, path: Path | None) -> History:
        """Open the history file; None means a session without history (e.g. some tests)."""
        history = cls.later(path)
        history.open_now()
        return history

    @classmethod
    def later(cls, path: Path | None) -> History:
        """The history file, opened when first used (or by `open_now`); None: no history."""
        history = cls(None)
        history._unopened = path
        return history

    def open_now(self) -> None:
        """Open the file if it waits to be (a problem opening it turns history off). The file
        counts as waiting until it is open, writer and all: the app opens it on a thread, and a
        prompt sent meanwhile (`store`, from the loop) must wait for it here, not find no store
        and go unsaved."""
        with self._opening:
            path = self._unopened
            if path is None:
                return
            try:
                from app.store.db import Store  # sqlite3 and the store: not for the first frame

                try:
                    store = Store.open(path)
                except StoreError as exc:
                    self.problem = str(exc)
                    return
                self._writer = _writer()
                self._store = store
            finally:
                self._unopened = None

    @property
    def waiting(self) -> bool:
        """Whether the file is still to be opened, or being opened (by its first use or
        `open_now`)."""
        return self._unopened is not None

    @property
    def store(self) -> Store | None:
        """The open store (opened now if it waits to be), or None when history is off."""
        if self._unopened is not None:
            self.open_now()
        return self._store

    @store.setter
    def store(self, store: Store | None) -> None:
        self._unopened = None
        self._store = store

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
        from app.store.db import BUSY_TIMEOUT_MS
        from app.store.health import quick_check

        def check() -> None:
            found = quick_check(path, BUSY_TIMEOUT_MS)
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
            return done_future()
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

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the writes asked so far are done (reads, exports, tests); False if
        `timeout` seconds passed first."""
        return self._writer is None or self._writer.wait(timeout)

    # -- reading and managing (the history screen) -----------------------------------------

    def conversations(self, query: str = "", limit: int = 200) -> list[ConversationSummary]:
        self.wait(READ_WAIT)
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
        self.wait(READ_WAIT)
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

    def stream(self, message_id: int) -> CapturedExchange | None:
        """A stored answer's kept stream, decoded again for the inspector (`StoredMessage.id`);
        None when none was kept, the history is off, or the stored bytes cannot be read back
        (a damaged row costs that answer its frames, nothing else)."""
        self.wait(READ_WAIT)
        store = self.store
        if store is None:
            return None
        from app.providers.kept_stream import KeptStreamError

        try:
            return store.stream(message_id)
        except KeptStreamError:
            return None
        except StoreError as exc:
            self.fail(exc)
            return None

    def votes(self, conv_id: int) -> list[Vote]:
        """The votes given in one conversation, oldest first (none when history is off)."""
        self.wait(READ_WAIT)
        store = self.store
        if store is None:
            return []
        try:
            return store.votes(conversation_id=conv_id)
        except StoreError as exc:
            self.fail(exc)
            return []

    def last_conversation_id(self) -> int | None:
        self.wait(READ_WAIT)
        store = self.store
        if store is None:
            return None
        try:
            return store.last_conversation_id()
        except StoreError as exc:
            self.fail(exc)
            return None

    def reveal(self, message_id: int, query: str) -> None:
        """A search hit is opened: its branch is shown (written before the reopen reads)."""

        def write(store: Store) -> None:
            store.reveal(message_id, query)

        self.submit(write)

    def rename(self, conv_id: int, title: str) -> bool:
        return self._change(lambda store: store.rename(conv_id, title))

    def delete(self, conv_id: int) -> bool:
        return self._change(lambda store: store.delete(conv_id))

    def _change(self, change: Callable[[Store], None]) -> bool:
        """Rename and delete from the history screen: written like every write, waited for a
        moment so the screen shows the outcome; False when the conversation is gone."""
        if self.store is None:
            return False
        outcome: list[bool] = []

        def write(store: Store) -> None:
            try:
                change(store)
            except ConversationNotFound:
                outcome.append(False)
                return
            outcome.append(True)

        self.submit(write)
        self.wait(READ_WAIT)
        return outcome[0] if outcome else self.store is not None  # still queued: it will be

    def export(self, conv_id: int, fmt: ExportFormat, folder: Path | None = None) -> Path:
        """Write the conversation to a new file (owner-only, like the history) and return it.

        Raises ConversationNotFound, StoreError or OSError for the caller to report.
        """
        self.wait(READ_WAIT)
        store = self.store
        if store is None:
            raise StoreError(self.problem or "History is off in this session.")
        from app.store.export import export_conversation, write_export

        target = folder if folder is not None else store.path.parent / EXPORTS_FOLDER
        text = export_conversation(store, conv_id, fmt)
        return write_export(target, conv_id, self._title(store, conv_id), fmt, text)

    @staticmethod
    def _title(store: Store, conv_id: int) -> str:
        """The user's title, else the first line of the first prompt (as the list shows)."""
        from app.store.records import first_line

        stored = store.load(conv_id)
        prompts = [m.text for m in stored.messages if m.role == "user"]
        return first_line(stored.title) or first_line(prompts[0] if prompts else "")

    def close(self) -> None:
        """Finish the queued writes (a clean exit loses none), then close the file."""
        if self._writer is not None:
            self._writer.close()
        store, self.store = self._store, None  # one never opened stays unopened
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
        record.blind = stored.blind
        record.params = dict(stored.params)
        return record


def _writer() -> StoreWriter:
    from app.store.writer import StoreWriter

    return StoreWriter()


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

    def prompt(self, text: str, attachments: tuple[Attachment, ...] = ()) -> None:
        if self.owns_prompts:
            self.record.prompt(text, attachments)

    def start_turn(
        self, provider: str, model: str, api: str, *, parent: int | None = AT_END
    ) -> TurnRecord:
        """`parent`: what the answer follows in a chat's tree (a regenerated answer's)."""
        return self.record.start_turn(
            pane=self.pane, provider=provider, model=model, api=api, parent=parent
        )


def continued_conversation(stored: StoredConversation, pane: int = 0) -> Conversation:
    """The history a pane continues from, as the live pane would have built it."""
    messages = [
        Message("user", m.text, attachments=m.attachments, stored_id=m.id)
        if m.turn is None
        else Message("assistant", m.turn.text, m.turn, stored_id=m.id)
        for m in continued_messages(stored, pane)
    ]
    return Conversation(stored.system, messages)


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
