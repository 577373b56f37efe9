"""What the store hands back, and how a `Turn` maps to a row and back.

Text, reasoning and scalar fields get their own columns (searchable, readable with the sqlite3
shell); the nested parts (tool calls with their results, sources, usage) are JSON, so a result needs
no column of its own. A rebuilt `Turn` carries
everything a request builder needs to send the answer back: signature, redacted blocks, calls.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from app.wire.attachment import KINDS as ATTACHMENT_KINDS
from app.wire.attachment import Attachment
from app.wire.attachment import Kind as AttachmentKind
from app.wire.conversation import Conversation, Message
from app.wire.events import Source, StreamError, Usage
from app.wire.tools import ToolResult
from app.wire.turn import ToolCall, Turn, TurnStatus

if TYPE_CHECKING:
    import sqlite3

_T = TypeVar("_T")

Kind = Literal["chat", "compare", "batch"]  # batch: one prompt of `triptych batch`, side by side
KINDS: tuple[Kind, ...] = ("chat", "compare", "batch")


@dataclass(frozen=True, slots=True)
class ConversationSummary:
    """One line of the history list."""

    id: int
    title: str  # the user's title, or the first line of the first prompt
    kind: Kind
    providers: tuple[str, ...]  # distinct, in the order they first answered
    message_count: int
    created_at: float  # wall clock, seconds since the epoch
    updated_at: float
    snippet: str = ""  # for search results: where the words were found
    # How a one-prompt attempt ended when none of its answers completed ("failed", "stopped",
    # "interrupted"; several joined by ", " in a comparison): such a row is a try, not a chat.
    outcome: str = ""
    hit_id: int | None = None  # for search results: the message found (None: the title matched)


@dataclass(frozen=True, slots=True)
class PaneInfo:
    pane: int
    provider: str
    model: str
    api: str


@dataclass(slots=True)
class StoredMessage:
    id: int
    role: Literal["user", "assistant"]
    text: str
    created_at: float
    turn: Turn | None = None  # assistant only; status and all parts rebuilt
    pane: int | None = None  # assistant only; user prompts are shared by every pane
    provider: str | None = None  # per turn, so a conversation can change provider or format
    model: str | None = None
    api: str | None = None
    ttft_ms: int | None = None
    duration_ms: int | None = None
    # The prompt this answer replies to, for an answer stored after later prompts: a copy
    # carried into a pane added mid-comparison. None: the prompt before it.
    reply_to: int | None = None
    attachments: tuple[Attachment, ...] = ()  # a prompt's files, in the order attached
    # A chat's tree (app/store/branches.py): the message this one follows, and the ids of it
    # and its siblings, oldest first (just its own id when it has none).
    parent_id: int | None = None
    chosen: int = 0
    siblings: tuple[int, ...] = ()
    level: int = 0  # an export of every branch: how many forks lie above it


@dataclass(frozen=True, slots=True)
class BatchInfo:
    """One `triptych batch` run: its prompt file, --tag and `provider:model`s in pane order."""

    id: int
    source: str
    tag: str | None
    providers: tuple[str, ...]
    created_at: float
    blind: bool = False  # `batch --blind`: its prompts are voted on, names hidden until then


@dataclass(slots=True)
class StoredConversation:
    id: int
    title: str
    kind: Kind
    system: str | None
    created_at: float
    updated_at: float
    messages: list[StoredMessage] = field(default_factory=list)
    batch_id: int | None = None  # the run a conversation of kind "batch" belongs to
    blind: bool = False  # a blind comparison: who is who stays hidden until each vote
    # A comparison's: each pane's chosen path (its prompts and answers, each knowing its
    # siblings in that pane's tree); `messages` holds what lies on any of them.
    pane_paths: dict[int, list[StoredMessage]] = field(default_factory=dict)
    # The parameters panel's values, by knob name (`RequestParams.as_dict`): reopened, the
    # conversation's next requests are sent with them.
    params: dict[str, Any] = field(default_factory=dict)

    def for_pane(self, pane: int) -> StoredConversation:
        """What one pane of a comparison shows and sends: its own chosen path (a chat, or a
        pane with no path, as it is)."""
        path = self.pane_paths.get(pane)
        if path is None:
            return self
        return replace(self, messages=list(path), pane_paths={})

    @property
    def panes(self) -> list[PaneInfo]:
        """Each pane with the provider, model and format of its latest turn."""
        latest: dict[int, PaneInfo] = {}
        for m in self.messages:
            if m.role == "assistant" and m.pane is not None:
                latest[m.pane] = PaneInfo(m.pane, m.provider or "", m.model or "", m.api or "")
        return [latest[p] for p in sorted(latest)]

    @property
    def last_round(self) -> list[PaneInfo]:
        """The panes that answered the last answered prompt, as they answered it: the panes a
        comparison showed when it was left (one removed before that prompt is not among them).
        All panes when no prompt has an answer."""
        if self.pane_paths:  # each pane on its own branch: whether it answered its last
            return self._last_round_by_pane() or self.panes
        answered: dict[int, PaneInfo] = {}
        for m in reversed(self.messages):
            if m.role == "user" and m.pane is None and answered:  # a pane's own edit: not one
                break
            if m.role == "assistant" and m.pane is not None and m.pane not in answered:
                answered[m.pane] = PaneInfo(m.pane, m.provider or "", m.model or "", m.api or "")
        return [answered[p] for p in sorted(answered)] or self.panes

    def _last_round_by_pane(self) -> list[PaneInfo]:
        """The panes that answered the last answered prompt they share (one removed before it
        was linked to it without answering), and those whose chosen branch leaves it out (it
        went its own way at an earlier message): each as its branch last answered."""
        answered: set[int] = set()  # the shared prompts some pane's branch answers
        for path in self.pane_paths.values():
            prompt: int | None = None
            for m in path:
                if m.role == "user" and m.pane is None:
                    prompt = m.id
                elif m.role == "assistant" and prompt is not None:
                    answered.add(prompt)
        latest = max(answered, default=None)
        found: list[PaneInfo] = []
        for pane, path in sorted(self.pane_paths.items()):
            ids = [m.id for m in path]
            segment = path
            if latest in ids:  # its answers to that prompt, up to the next shared one
                segment = path[ids.index(latest) + 1 :]
                ends = [i for i, m in enumerate(segment) if m.role == "user" and m.pane is None]
                segment = segment[: ends[0]] if ends else segment
            answers = [m for m in segment if m.role == "assistant"]
            if answers:
                m = answers[-1]
                found.append(PaneInfo(pane, m.provider or "", m.model or "", m.api or ""))
        return found

    def conversation(self, pane: int = 0) -> Conversation:
        """The history one pane continues from: every prompt, and that pane's answers only."""
        messages = [
            Message(m.role, m.text, m.turn, m.attachments)
            for m in self.for_pane(pane).messages
            if (m.role == "user" and m.pane is None) or m.pane == pane
        ]
        return Conversation(self.system, messages)


# -- Turn <-> row -----------------------------------------------------------------------------


def turn_columns(turn: Turn) -> dict[str, Any]:
    """The assistant-row columns that come from the turn itself."""
    usage = turn.usage
    return {
        "text": turn.text,
        "status": str(turn.status),
        "reasoning": turn.reasoning,
        "reasoning_signature": turn.reasoning_signature,
        "redacted_reasoning": _dump(turn.redacted_reasoning) if turn.redacted_reasoning else None,
        "tool_calls": _dump([_call_dict(c) for c in turn.tool_calls]) if turn.calls else None,
        "sources": _dump([[s.url, s.title] for s in turn.sources]) if turn.sources else None,
        "usage": _dump(
            [
                usage.input_tokens,
                usage.output_tokens,
                usage.cached_tokens,
                usage.cache_write_tokens,
                usage.input_excludes_cached,
            ]
        )
        if usage is not None
        else None,
        "finish_reason": turn.finish_reason,
        "finish_detail": turn.finish_detail,
        "error_code": turn.error.code if turn.error else None,
        "error_message": turn.error.message if turn.error else None,
        "interruption": turn.interruption,
        "terminal_seen": int(turn.terminal_seen),
        "params": _dump(turn.params) if turn.params else None,
    }


DAMAGED = "damaged in the history"  # how a rebuilt answer says a part of its row was unreadable


def row_to_turn(row: sqlite3.Row) -> Turn:
    """The answer a row holds. A row damaged or edited by hand (a column that is not the JSON
    it should be, an unknown status) never stops the conversation from opening or exporting:
    each part that cannot be read is left out, and the turn says which (`interruption`); the
    row itself is not changed."""
    unread: list[str] = []
    status = _status(row["status"], unread)
    turn = Turn(
        status=status,
        text_parts=[str(row["text"])] if row["text"] else [],
        reasoning_parts=[str(row["reasoning"])] if row["reasoning"] else [],
        reasoning_signature=_text_or_none(row["reasoning_signature"]),
        finish_reason=_text_or_none(row["finish_reason"]),
        finish_detail=str(row["finish_detail"] or ""),
        terminal_seen=bool(row["terminal_seen"]),
        interruption=str(row["interruption"] or ""),
    )
    turn.redacted_reasoning = _part(row, "redacted_reasoning", _strings, [], unread)
    turn.params = _part(row, "params", _object, {}, unread)
    turn.calls = _part(row, "tool_calls", _calls, {}, unread)
    turn.sources = _part(row, "sources", _sources, [], unread)
    turn.usage = _part(row, "usage", _usage, None, unread)
    if row["error_message"] is not None:
        code = row["error_code"]
        turn.error = StreamError(None if code is None else str(code), str(row["error_message"]))
    if unread:
        note = f"{DAMAGED}: {'; '.join(unread)}"
        turn.interruption = f"{turn.interruption}; {note}" if turn.interruption else note
    return turn


def _status(value: object, unread: list[str]) -> TurnStatus:
    if not value:
        return TurnStatus.INTERRUPTED
    try:
        return TurnStatus(str(value))
    except ValueError:
        unread.append(f"its status {str(value)[:40]!r} is not one Triptych knows")
        return TurnStatus.INTERRUPTED


def _text_or_none(value: object) -> str | None:
    return None if value is None else str(value)


def _part(
    row: sqlite3.Row, column: str, build: Callable[[Any], _T], default: _T, unread: list[str]
) -> _T:
    """A JSON column through `build`; `default` (and a note in `unread`) when it cannot be."""
    text = row[column]
    if text is None:
        return default
    try:
        return build(json.loads(text))
    except (ValueError, TypeError, KeyError, AttributeError, IndexError, RecursionError):
        unread.append(f"its {column.replace('_', ' ')} cannot be read")
        return default


def _strings(value: Any) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise TypeError("not a list of strings")
    return value


def _object(value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise TypeError("not an object")
    return value


def _calls(value: Any) -> dict[int, ToolCall]:
    calls: dict[int, ToolCall] = {}
    for item in value:
        index, arguments = item["index"], item["arguments"]
        if isinstance(index, bool) or not isinstance(index, int) or not isinstance(arguments, str):
            raise TypeError("not a tool call")
        call = ToolCall(index, str(item["id"]), str(item["name"]), [arguments])
        if item["closed"]:
            call.close()  # re-parses the arguments: value and invalid_json come back as they were
        if item.get("result") is not None:
            call.result = ToolResult.from_json(item["result"])
        calls[call.index] = call
    return calls


def _sources(value: Any) -> list[Source]:
    return [Source(str(url), "" if title is None else str(title)) for url, title in value]


def _usage(value: Any) -> Usage:
    if not isinstance(value, list) or not all(
        v is None or (isinstance(v, int) and not isinstance(v, bool)) for v in value[:4]
    ):
        raise TypeError("not usage")
    return Usage(*value)


def row_to_attachment(row: sqlite3.Row) -> Attachment:
    """A `message_attachments` row joined with its `attachments` content."""
    kind: AttachmentKind = next((k for k in ATTACHMENT_KINDS if k == row["kind"]), "text")
    return Attachment(
        name=row["name"],
        media_type=row["media_type"],
        kind=kind,
        data=bytes(row["data"]),
        sha256=row["sha256"],
    )


def row_to_message(row: sqlite3.Row, attachments: tuple[Attachment, ...] = ()) -> StoredMessage:
    assistant = row["role"] == "assistant"
    return StoredMessage(
        id=row["id"],
        role="assistant" if assistant else "user",
        text="" if row["text"] is None else str(row["text"]),
        created_at=row["created_at"],
        turn=row_to_turn(row) if assistant else None,
        pane=row["pane"],
        provider=row["provider"],
        model=row["model"],
        api=row["api"],
        ttft_ms=row["ttft_ms"],
        duration_ms=row["duration_ms"],
        reply_to=row["reply_to"],
        attachments=attachments,
        parent_id=row["parent_id"],
        chosen=row["chosen"],
        siblings=(row["id"],),
    )


def in_reading_order(messages: list[StoredMessage]) -> list[StoredMessage]:
    """Stored order (by id), except that an answer with `reply_to` moves to the end of the
    answers to that prompt, where a pane that carries it on showed it."""
    prompt = 0
    keyed: list[tuple[tuple[int, int, int], StoredMessage]] = []
    for m in messages:
        if m.role == "user":
            prompt = m.id
            keyed.append(((m.id, 0, m.id), m))
        else:
            keyed.append(((m.reply_to if m.reply_to is not None else prompt, 1, m.id), m))
    keyed.sort(key=lambda pair: pair[0])
    return [m for _, m in keyed]


def first_line(text: str, limit: int = 80) -> str:
    for line in text.splitlines():
        if line.strip():
            line = line.strip()
            return line if len(line) <= limit else line[: limit - 1] + "…"
    return ""


def _call_dict(call: ToolCall) -> dict[str, Any]:
    return {
        "index": call.index,
        "id": call.id,
        "name": call.name,
        "arguments": call.arguments,
        "closed": call.closed,
        **({"result": call.result.to_json()} if call.result is not None else {}),
    }


def _dump(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _load(text: str | None, default: Any) -> Any:
    return default if text is None else json.loads(text)


__all__ = [
    "KINDS",
    "BatchInfo",
    "ConversationSummary",
    "Kind",
    "PaneInfo",
    "StoredConversation",
    "StoredMessage",
    "first_line",
    "in_reading_order",
    "row_to_attachment",
    "row_to_message",
    "row_to_turn",
    "turn_columns",
]
