""" "Set a key until you quit…": a masked field for a provider whose key variable is not set.

The key is returned to the app, which keeps it in memory for this run only (never written to
the config, the state, the history or a log) and scrubs it like any key. The field is masked
as it is typed; nothing here shows, logs or echoes what was typed, even when it is refused.
"""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Input, Label


class SetKeyRequested(Message):
    """The palette's "Set a key until you quit…": the app asks for the current provider's."""


def key_problem(key: str) -> str | None:
    """Why `key` cannot be sent as a header (it goes in Authorization or x-api-key), or None;
    never quoting it."""
    if not key.strip():
        return "the key is empty"
    if not key.strip().isascii() or not key.strip().isprintable() or " " in key.strip():
        return "a key is printable ASCII with no spaces: check what was pasted"
    return None


class ApiKeyScreen(ModalScreen[str | None]):
    """Enter returns the key typed; Esc returns None."""

    DEFAULT_CSS = """
    ApiKeyScreen {
        align: center middle;
        background: $background 60%;
        & > Vertical {
            width: 80;
            max-width: 100%;
            height: auto;
            padding: 0 2;
            border: thick $primary 80%;
            background: $surface;
        }
        Label { width: 100%; }
        .key--title { text-style: bold; }
        .key--note { color: $text-muted; }
        .key--problem { color: $text-error; }
        Input { margin: 1 0 0 0; }
    }
    """
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "cancel")]

    def __init__(self, provider: str, variable: str) -> None:
        super().__init__()
        self.provider = provider
        self.variable = variable

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(
                Content(f"Set a key for {self.provider} until you quit"), classes="key--title"
            )
            yield Label(
                Content(
                    f"Used as ${self.variable} would be, for this run only: kept in memory, "
                    "never written anywhere. Enter sets it · Esc cancels"
                ),
                classes="key--note",
            )
            yield Input(password=True, placeholder=f"the key for ${self.variable}", id="key")
            yield Label("", id="key-problem", classes="key--problem")

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        problem = key_problem(event.value)
        if problem is not None:
            self.query_one("#key-problem", Label).update(Content(problem))
            return
        self.dismiss(event.value.strip())

    def action_cancel(self) -> None:
        self.dismiss(None)


__all__ = ["ApiKeyScreen", "SetKeyRequested", "key_problem"]
