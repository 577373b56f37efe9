"""Files attached to the next prompt, as chips under it: each a small button naming the file,
its type and size; pressing one (a click, or Enter once Tab has reached it) removes it.

The chips keep the loaded Attachments (read when attached, so a file changed or deleted later
sends what was attached) and which `@` mentions were already dealt with, so a chip removed is
not attached again from the same mention. A mention whose file cannot be attached is marked
here too, in the error colour, for as long as it stays in the prompt: the prompt is not sent
while one is. Hidden while there are none.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from textual.binding import Binding, BindingType
from textual.containers import HorizontalGroup
from textual.content import Content
from textual.message import Message
from textual.widgets import Button, Static

from app.display.sanitize import clean_line
from app.providers.attachments import IMAGE_NAMES
from app.wire.attachment import Attachment


def size_text(size: int) -> str:
    if size < 1000:
        return f"{size} B"
    if size < 1_000_000:
        return f"{size / 1000:.1f} KB"
    return f"{size / 1_000_000:.1f} MB"


def kind_text(attachment: Attachment) -> str:
    if attachment.kind == "image":
        return IMAGE_NAMES.get(attachment.media_type, "image")
    return "PDF" if attachment.kind == "pdf" else "text"


def describe(attachment: Attachment) -> str:
    """`notes.md · text · 1.2 KB`, shown literally."""
    name = clean_line(attachment.name)
    return f"{name} · {kind_text(attachment)} · {size_text(attachment.size)}"


def attachments_line(attachments: Sequence[Attachment]) -> str:
    """The line under a prompt in the transcript that names what was sent with it."""
    return "attached: " + "  ·  ".join(
        f"{clean_line(a.name)} ({kind_text(a)}, {size_text(a.size)})" for a in attachments
    )


class Chip(Button):
    DEFAULT_CSS = """
    Chip { margin: 0 1 0 0; width: auto; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("delete,backspace", "press", "remove", tooltip="this file from the next prompt")
    ]

    def __init__(self, attachment: Attachment, index: int) -> None:
        super().__init__(Content(f"{describe(attachment)} ✕"), compact=True)
        self.attachment = attachment
        self.index = index
        self.tooltip = "remove this file"


class RefusedMention(Static):
    """`✖ @fake.png: named .png but is not a PNG image`: a mention the prompt waits on."""

    DEFAULT_CSS = """
    RefusedMention { width: auto; margin: 0 1 0 0; color: $text-error; text-style: bold; }
    """

    def __init__(self, token: str, reason: str) -> None:
        super().__init__(Content(clean_line(f"✖ @{token}: {reason}")))
        self.token = token


class AttachmentChips(HorizontalGroup):
    DEFAULT_CSS = """
    AttachmentChips { height: auto; padding: 0 1; display: none; }
    AttachmentChips.-shown { display: block; }
    """

    @dataclass
    class Changed(Message):
        chips: AttachmentChips

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.attachments: list[Attachment] = []
        self.handled: set[str] = set()  # `@` mentions attached, removed or pasted (text)
        self.refused: dict[str, str] = {}  # `@` mentions that cannot be attached: why not
        self.sent: dict[str, str] = {}  # attached mentions: what the prompt sends instead

    async def add(self, attachment: Attachment) -> None:
        self.attachments.append(attachment)
        await self._redraw()

    async def clear(self) -> None:
        self.attachments.clear()
        self.handled.clear()
        self.refused.clear()
        self.sent.clear()
        await self._redraw()

    async def replace(
        self,
        attachments: Sequence[Attachment],
        handled: set[str],
        refused: dict[str, str] | None = None,
        sent: dict[str, str] | None = None,
    ) -> None:
        """Show these instead (the last prompt's, while it is edited)."""
        self.attachments = list(attachments)
        self.handled = set(handled)
        self.refused = dict(refused or {})
        self.sent = dict(sent or {})
        await self._redraw()

    async def mark(self, refused: dict[str, str]) -> None:
        """The mentions that cannot be attached now (redrawn only when that changed)."""
        if refused != self.refused:
            self.refused = dict(refused)
            await self._redraw()

    async def _redraw(self) -> None:
        await self.remove_children()
        await self.mount_all(Chip(a, i) for i, a in enumerate(self.attachments))
        await self.mount_all(RefusedMention(t, why) for t, why in self.refused.items())
        self.set_class(bool(self.attachments or self.refused), "-shown")
        self.post_message(self.Changed(self))

    async def on_button_pressed(self, event: Button.Pressed) -> None:
        chip = event.button
        if not isinstance(chip, Chip):
            return
        event.stop()
        del self.attachments[chip.index]
        await self._redraw()
        self.app.notify(f"Removed {clean_line(chip.attachment.name)}.", markup=False)

    @property
    def names(self) -> list[str]:
        return [a.name for a in self.attachments]


__all__ = [
    "AttachmentChips",
    "Chip",
    "RefusedMention",
    "attachments_line",
    "describe",
    "kind_text",
    "size_text",
]
