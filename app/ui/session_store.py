"""The app's link to the history store: opened once, told about each prompt and answer as they
happen, and never allowed to stop a chat.

Widgets do not call the Store. A ChatPane holds a `PaneHistory` and tells it when a prompt is
about to be sent, on each render tick while a turn streams, and once the turn settles; the
history screen reads through `History`. The first StoreError turns history off for the rest of
the session and is reported once (its message says which file and what to do): a half-written
history is still better than a chat that stops working.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

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
    TurnSaver,
    export_conversation,
)
from app.store.records import first_line
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
        self.on_problem: Callable[[str], None] = lambda _message: None

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
        """Turn history off for this session and tell the user once."""
        if self.store is None:
            return
        self.problem = str(exc)
        self.store = None
        self.on_problem(self.problem)

    # -- reading and managing (the history screen) -----------------------------------------

    def conversations(self, query: str = "", limit: int = 200) -> list[ConversationSummary]:
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
        if self.store is not None:
            self.store.close()
            self.store = None

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
    """One conversation being written: its prompts, and a TurnRecord per answer."""

    def __init__(self, history: History, *, kind: Kind, system: str | None) -> None:
        self.history = history
        self.kind: Kind = kind
        self.system = system
        self.conv_id: int | None = None
        self.prompt_ids: list[int] = []  # store ids of the prompts, oldest first

    def prompt(self, text: str) -> int | None:
        """Store a prompt before it is sent; the conversation is created on the first one."""
        store = self.history.store
        if store is None:
            return None
        try:
            if self.conv_id is None:
                self.conv_id = store.create_conversation(kind=self.kind, system=self.system)
            try:
                message_id = store.add_user_message(self.conv_id, text)
            except ConversationNotFound:  # deleted (perhaps by another instance): start anew
                self.conv_id = store.create_conversation(kind=self.kind, system=self.system)
                self.prompt_ids = []
                message_id = store.add_user_message(self.conv_id, text)
        except StoreError as exc:
            self.history.fail(exc)
            return None
        self.prompt_ids.append(message_id)
        return message_id

    def start_turn(self, *, pane: int, provider: str, model: str, api: str) -> TurnRecord:
        store = self.history.store
        if store is None or self.conv_id is None:
            return TurnRecord(self.history, None)
        try:
            turn_id = store.start_turn(
                self.conv_id, provider=provider, model=model, api=api, pane=pane
            )
        except ConversationNotFound:
            return TurnRecord(self.history, None)
        except StoreError as exc:
            self.history.fail(exc)
            return TurnRecord(self.history, None)
        return TurnRecord(self.history, TurnSaver(store, turn_id))

    def carry(self, source: int, target: int) -> None:
        """Copy pane `source`'s conversation so far to pane `target` (each answer under the
        prompt it answers): a pane added to a comparison carries on the one it was added from,
        and reopens with that conversation rather than with bare prompts."""
        store = self.history.store
        if store is None or self.conv_id is None:
            return
        try:
            stored = store.load(self.conv_id)
            for message, prompt_id in carried_answers(stored, source):
                store.copy_turn(message.id, pane=target, reply_to=prompt_id)
        except ConversationNotFound:
            return
        except StoreError as exc:
            self.history.fail(exc)

    def drop_last_exchange(self) -> None:
        """Delete the last prompt and everything after it (edit and resend replaces them)."""
        store = self.history.store
        if not self.prompt_ids:
            return
        message_id = self.prompt_ids.pop()
        if store is None or self.conv_id is None:
            return
        try:
            store.delete_messages_from(self.conv_id, message_id)
        except StoreError as exc:
            self.history.fail(exc)


class TurnRecord:
    """One answer being saved: while it streams (throttled by TurnSaver), then once, finally."""

    def __init__(self, history: History, saver: TurnSaver | None) -> None:
        self.history = history
        self.saver = saver
        self.finished = saver is None

    @property
    def turn_id(self) -> int | None:
        return None if self.saver is None else self.saver.turn_id

    def tick(self, turn: Turn, now: float) -> None:
        """Called on every render tick; saves at most about once a second.

        An error that has not settled yet is left for the final save: the client scrubs the
        API key out of error messages only as the turn settles.
        """
        if self.finished or self.saver is None or self.history.store is None:
            return
        if turn.error is not None and not turn.done:
            return
        try:
            self.saver.maybe_save(turn, now)
        except StoreError as exc:
            self.history.fail(exc)

    def finish(self, turn: Turn, timing: Timing | None = None) -> None:
        """The final save of a settled turn, with its timings; only the first call writes."""
        if self.finished or self.saver is None or not turn.done:
            return
        self.finished = True
        if self.history.store is None:
            return
        ttft = None if timing is None else timing.ttft_ms
        duration = None if timing is None else timing.duration_ms
        try:
            self.saver.final(turn, ttft_ms=ttft, duration_ms=duration)
        except StoreError as exc:
            self.history.fail(exc)


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
