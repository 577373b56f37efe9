"""A conversation and an answer being written to the history, through History's writer thread.

`ConversationRecord` keeps a conversation's store ids as its writes create them (on the writer
thread); `TurnRecord` takes snapshots of a streaming answer on the loop that fills it, and has
them written there, merged while they wait. Also what a pane's conversation holds of a stored
one (`continued_messages`, `carried_answers`), which a pane added to a comparison copies.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable, Mapping
from concurrent.futures import Future
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from app.providers.timing import Timing
from app.store.branches import AT_END
from app.store.errors import ConversationNotFound
from app.store.saver import SaveSchedule
from app.wire.attachment import Attachment
from app.wire.turn_status import TurnStatus

if TYPE_CHECKING:
    from app.store.db import Store
    from app.store.records import Kind, StoredConversation, StoredMessage
    from app.wire.exchange import CapturedExchange
    from app.wire.turn import Turn


def _columns(turn: Turn) -> dict[str, Any]:
    """The turn's columns as the store writes them (records: loaded with the first answer)."""
    from app.store.records import turn_columns

    return turn_columns(turn)


class Writes(Protocol):
    """What a record needs of the session's History (app/store/session.py, which builds records:
    naming it here would import it back)."""

    @property
    def store(self) -> Store | None: ...

    def submit(self, write: Callable[[Store], None]) -> Future[None]: ...

    def record(self, *, kind: Kind = "chat", system: str | None = None) -> ConversationRecord: ...


def done_future() -> Future[None]:
    """A Future already done: what a write is when history is off."""
    done: Future[None] = Future()
    done.set_result(None)
    return done


class ConversationRecord:
    """One conversation being written: its prompts, and a TurnRecord per answer.

    `conv_id` and `prompt_ids` are kept by the writes themselves, on the writer thread; the app
    reads them only after `History.wait` (its reads and exports wait).
    """

    def __init__(self, history: Writes, *, kind: Kind, system: str | None) -> None:
        self.history = history
        self.kind: Kind = kind
        self.system = system
        self.conv_id: int | None = None
        self.prompt_ids: list[int] = []  # store ids of the prompts, oldest first
        # Writer thread only: what the prompt replacing a dropped one follows (a chat's tree).
        self._replacing: list[int | None] = []
        self.blind = False  # a blind comparison's: stored so, it reopens blind
        self.params: dict[str, Any] = {}  # the parameters panel's values (`set_params`)

    def mark_blind(self) -> None:
        """From now on this is a blind comparison's conversation (stored at once if it is
        already in the store, else when its first prompt creates it)."""
        if self.blind:
            return
        self.blind = True
        if self.history.store is None:
            return

        def write(store: Store) -> None:
            if self.conv_id is not None:
                store.mark_blind(self.conv_id)

        self.history.submit(write)

    def prompt(
        self,
        text: str,
        attachments: tuple[Attachment, ...] = (),
        *,
        parent: int | None = AT_END,
        pane: int | None = None,
    ) -> Future[None] | None:
        """Store a prompt, before any request for it (the turn's `written` waits for it); the
        conversation is created on the first one. None when history is off. `parent`: the
        message it follows in a chat (an edit's), by default the end of the chosen path;
        `pane`: a comparison's prompt for that pane only (an edit there), after `parent` in
        its tree."""
        if self.history.store is None:
            return None

        def write(store: Store) -> None:
            if self.conv_id is None:
                self.conv_id = self._create(store)
            after = self._replacing.pop() if parent == AT_END and self._replacing else parent
            self._replacing.clear()
            try:
                message_id = store.add_user_message(
                    self.conv_id, text, attachments, parent=after, pane=pane
                )
            except ConversationNotFound:  # deleted (perhaps by another instance): start anew
                self.conv_id = self._create(store)
                self.prompt_ids = []
                message_id = store.add_user_message(self.conv_id, text, attachments)
            self.prompt_ids.append(message_id)

        return self.history.submit(write)

    def _create(self, store: Store) -> int:
        return store.create_conversation(
            kind=self.kind, system=self.system, blind=self.blind, params=self.params
        )

    def choose(self, message_id: int, *, pane: int | None = None) -> Future[None]:
        """Show the branch through this message from now on (and when reopened); in a
        comparison, in `pane` only."""

        def write(store: Store) -> None:
            with contextlib.suppress(ConversationNotFound):  # deleted meanwhile: nothing to show
                store.choose(message_id, pane=pane)

        return self.history.submit(write)

    async def stored(self, timeout: float = 2.0) -> StoredConversation | None:
        """The conversation as the history holds it once the writes asked so far are done
        (read on the writer thread, after them; the loop is not held up). None when history
        is off, nothing of it is stored, it is gone, or the writes take longer than `timeout`."""
        found: list[StoredConversation] = []

        def read(store: Store) -> None:
            if self.conv_id is not None:
                with contextlib.suppress(ConversationNotFound):
                    found.append(store.load(self.conv_id))

        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.wrap_future(self.history.submit(read)), timeout)
        return found[0] if found else None

    def set_system(self, system: str | None) -> None:
        """The system prompt from the next request on: kept for the conversation's first write,
        or written to it when it is already stored (a reopened one carries it on)."""
        self.system = system
        if self.history.store is None:
            return

        def write(store: Store) -> None:
            if self.conv_id is None:
                return
            try:
                store.set_system(self.conv_id, system)
            except ConversationNotFound:
                return

        self.history.submit(write)

    def set_params(self, params: Mapping[str, Any]) -> None:
        """The parameters panel's values (by knob name; empty: none) from the next request
        on, kept as `set_system` keeps the system prompt."""
        self.params = dict(params)
        if self.history.store is None:
            return

        def write(store: Store) -> None:
            if self.conv_id is None:
                return
            with contextlib.suppress(ConversationNotFound):
                store.set_params(self.conv_id, self.params)

        self.history.submit(write)

    def start_turn(
        self, *, pane: int, provider: str, model: str, api: str, parent: int | None = AT_END
    ) -> TurnRecord:
        """An answer's row; `parent` as for `prompt` (a regenerated answer's)."""
        record = TurnRecord(self.history)
        if self.history.store is None:
            record.finished = True
            return record

        def write(store: Store) -> None:
            if self.conv_id is None:  # its prompt was not stored
                return
            try:
                record.turn_id = store.start_turn(
                    self.conv_id, provider=provider, model=model, api=api, pane=pane, parent=parent
                )
            except ConversationNotFound:
                return

        record.started = self.history.submit(write)
        return record

    def path_of(self, pane: int) -> list[int]:
        """The ids on a comparison pane's chosen path as the writes asked so far leave it:
        filled in on the writer thread (before any write asked later runs)."""
        found: list[int] = []

        def read(store: Store) -> None:
            if self.conv_id is not None and self.kind == "compare":
                with contextlib.suppress(ConversationNotFound):
                    found.extend(store.pane_path(self.conv_id, pane))

        self.history.submit(read)
        return found

    def carry(self, source: int, target: int, path: list[int] | None = None) -> None:
        """Copy pane `source`'s conversation so far to pane `target` (each answer under the
        prompt it answers): a pane added to a comparison carries on the one it was added from,
        and reopens with that conversation rather than with bare prompts. `path`: in a
        comparison, the branch it showed when the pane was added (`path_of`)."""

        def write(store: Store) -> None:
            if self.conv_id is None:
                return
            try:
                if self.kind == "compare":  # the source's chosen path, into a tree of its own
                    store.carry_pane(self.conv_id, source, target, path or ())
                    return
                stored = store.load(self.conv_id)
                for message, prompt_id in carried_answers(stored, source):
                    store.copy_turn(message.id, pane=target, reply_to=prompt_id)
            except ConversationNotFound:
                return

        self.history.submit(write)

    def drop_last_exchange(self) -> None:
        """Delete the last prompt and everything after it (edit and resend replaces them)."""

        def write(store: Store) -> None:
            if self.conv_id is None:
                return
            try:  # the last prompt shown: in a chat, the chosen path's (its other branches stay)
                shown = store.load(self.conv_id).messages
            except ConversationNotFound:
                return
            prompts = [m for m in shown if m.role == "user"]
            if not prompts:
                return
            # In a chat the next prompt takes its place (not the end of a sibling branch).
            self._replacing = [prompts[-1].parent_id]
            store.delete_messages_from(self.conv_id, prompts[-1].id)
            self.prompt_ids = [i for i in self.prompt_ids if i != prompts[-1].id]

        self.history.submit(write)


@dataclass(frozen=True, slots=True)
class _Save:
    """A snapshot of a turn's columns (taken on the loop that fills the turn) to be written."""

    columns: dict[str, Any]
    final: bool = False
    ttft_ms: int | None = None
    duration_ms: int | None = None
    exchange: CapturedExchange | None = None  # final only: the raw stream, packed when written


class TurnRecord:
    """One answer being saved: while it streams (throttled by SaveSchedule), then once, finally.

    Each save is a snapshot of the turn taken when asked, written on the writer thread. Saves
    waiting there are merged (only the newest is written), so a write held up by another
    instance's lock never piles up copies of a long answer.
    """

    def __init__(self, history: Writes) -> None:
        self.history = history
        self.turn_id: int | None = None  # set on the writer thread once the row exists
        self.started: Future[None] = done_future()  # the row (and so its prompt) is stored
        self.finished = False
        self.gone = False  # the row was deleted under us; saving goes on harmlessly
        self._schedule = SaveSchedule()
        self._lock = threading.Lock()
        self._pending: _Save | None = None
        self._queued = False
        self._final: _Save | None = None  # the final save, for `save_results` to repeat

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
            self._save(_Save(_columns(turn)))

    def finish(self, turn: Turn, timing: Timing | None = None) -> None:
        """The final save of a settled turn, with its timings; only the first call writes.

        Called as soon as the stream ends, not when the screen has caught up with it."""
        if self.finished or not turn.done:
            return
        self.finished = True
        if self.history.store is None:
            return
        self._final = _Save(
            _columns(turn),
            final=True,
            ttft_ms=None if timing is None else timing.ttft_ms,
            duration_ms=None if timing is None else timing.duration_ms,
            exchange=turn.exchange,
        )
        self._save(self._final)

    def save_results(self, turn: Turn) -> None:
        """Its tool calls got their results after the final save (the user typed them, a
        server ran): the columns are written again, with the same timings."""
        final = self._final
        if final is None or self.history.store is None:
            return
        self._save(_Save(_columns(turn), True, final.ttft_ms, final.duration_ms))

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
            exchange=save.exchange,
        )
        self.gone = self.gone or not saved


def carried_answers(stored: StoredConversation, pane: int) -> list[tuple[StoredMessage, int]]:
    """The answers a pane's conversation holds (what a pane added from it carries on), each
    with the id of the prompt it answers."""
    prompt: int | None = None
    answers: list[tuple[StoredMessage, int]] = []
    for m in continued_messages(stored, pane):
        if m.role == "user":
            prompt = m.id
        elif prompt is not None:
            answers.append((m, prompt))
    return answers


def continued_messages(stored: StoredConversation, pane: int) -> list[StoredMessage]:
    """Every prompt, and the answers of `pane` that its conversation keeps.

    An unfinished answer that was retried (another answer from the same pane follows it before
    the next prompt) stays on screen but is not sent: the retry asked the question afresh. A
    tool round (an answer whose every call got its result, followed by the model's next turn)
    is kept. An answer with neither text nor tool calls is not sent either.
    """
    shown = stored.for_pane(pane).messages  # a comparison: that pane's own chosen path
    mine = [m for m in shown if (m.role == "user" and m.pane in (None, pane)) or m.pane == pane]
    kept: list[StoredMessage] = []
    for index, m in enumerate(mine):
        if m.role == "user":
            kept.append(m)
            continue
        following = mine[index + 1] if index + 1 < len(mine) else None
        if following is not None and following.role == "assistant" and not _tool_round(m):
            continue
        if m.turn is not None and (m.turn.text_parts or m.turn.calls):
            kept.append(m)
    return kept


def _tool_round(message: StoredMessage) -> bool:
    turn = message.turn
    if turn is None or turn.status is not TurnStatus.COMPLETE:
        return False
    calls = [c for c in turn.tool_calls if c.name]
    return bool(calls) and all(c.result is not None for c in calls)


__all__ = [
    "ConversationRecord",
    "TurnRecord",
    "carried_answers",
    "continued_messages",
    "done_future",
]
