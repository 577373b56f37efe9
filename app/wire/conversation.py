"""A conversation as the app keeps it, independent of any wire format: what a request sends back.

Requests are built from this (each format maps it its own way), the UI shows it and the store
saves it. An assistant message keeps its whole `Turn`, so what a provider asks to have sent back
(Kimi's reasoning_content, Messages thinking blocks with their signature, tool calls) survives.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from app.wire.attachment import Attachment

if TYPE_CHECKING:
    from app.wire.turn import Turn


@dataclass(slots=True)
class Message:
    role: Literal["user", "assistant"]
    text: str
    turn: Turn | None = None  # the assistant's folded turn; None for user messages
    # Files sent with a prompt, in order; sent again with every later request of the chat.
    attachments: tuple[Attachment, ...] = ()
    # The history's id for a message reopened from it (its kept stream is read by this id).
    stored_id: int | None = field(default=None, compare=False)


@dataclass(slots=True)
class Conversation:
    system: str | None = None
    messages: list[Message] = field(default_factory=list)

    def add_user(self, text: str, attachments: tuple[Attachment, ...] = ()) -> Message:
        message = Message("user", text, attachments=attachments)
        self.messages.append(message)
        return message

    def add_assistant(self, turn: Turn) -> Message:
        message = Message("assistant", turn.text, turn)
        self.messages.append(message)
        return message


__all__ = ["Conversation", "Message"]
