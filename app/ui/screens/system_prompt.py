"""The chat's system prompt: the request for the picker ("System prompt…", which the app's flow
answers, as it knows the config's presets) and the editor of this conversation's own text.

The editor is a TextArea holding the current system prompt; ctrl+s keeps what it holds (empty:
no system prompt), Esc leaves it as it was. Nothing typed is lost on Esc until it is closed.
"""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Button, Label, TextArea


class SystemPromptRequested(Message):
    """ "System prompt…": the app offers the `[prompts.NAME]` presets, none, or editing."""


class SystemPromptEditor(ModalScreen[str | None]):
    """ctrl+s or Save returns the text (stripped; "" means none); Esc or Cancel returns None."""

    DEFAULT_CSS = """
    SystemPromptEditor {
        align: center middle;
        background: $background 60%;
        & > Vertical {
            width: 90;
            max-width: 100%;
            height: auto;
            max-height: 100%;
            padding: 0 2;
            border: thick $primary 80%;
            background: $surface;
        }
        .system--title { text-style: bold; }
        .system--note { color: $text-muted; }
        TextArea { height: 12; margin: 1 0 0 0; }
        .system--buttons { height: 1; margin: 1 0 0 0; }
        .system--keys { width: 1fr; color: $text-muted; }
        Button { margin: 0 0 0 2; width: auto; min-width: 9; }
    }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "cancel"),
        Binding("ctrl+s", "save", "save", tooltip="the system prompt from the next request on"),
    ]

    def __init__(self, current: str | None, label: str) -> None:
        """`label` names what the text is now: a preset's name, `default`, `custom`."""
        super().__init__()
        self.current = current or ""
        self.label = label

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(Content("System prompt · this conversation"), classes="system--title")
            now = f"now: {self.label}" if self.label else "now: none"
            yield Label(
                Content(f"{now} · sent from the next request on; empty: no system prompt"),
                classes="system--note",
            )
            yield TextArea(self.current, id="system-text", soft_wrap=True, tab_behavior="focus")
            with Horizontal(classes="system--buttons"):
                yield Label("ctrl+s saves · Esc cancels", classes="system--keys")
                yield Button("Save", variant="primary", id="system-save", compact=True)
                yield Button("Cancel", id="system-cancel", compact=True)

    def on_mount(self) -> None:
        area = self.query_one(TextArea)
        area.focus()
        area.move_cursor(area.document.end)

    def action_save(self) -> None:
        self.dismiss(self.query_one(TextArea).text.strip())

    def action_cancel(self) -> None:
        self.dismiss(None)

    @on(Button.Pressed, "#system-save")
    def _save(self) -> None:
        self.action_save()

    @on(Button.Pressed, "#system-cancel")
    def _cancel(self) -> None:
        self.action_cancel()


__all__ = ["SystemPromptEditor", "SystemPromptRequested"]
