"""Small modal dialogs for the history screen: rename a conversation, confirm a deletion.

Deleting cannot be undone, so the confirmation starts on Cancel and names what will go; the
title shown is stored text and is drawn literally.
"""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label

from app.display.sanitize import clean_line

DIALOG_CSS = """
    align: center middle;
    background: $background 60%;
    & > Vertical {
        width: 70;
        max-width: 90%;
        height: auto;
        padding: 1 2;
        border: thick $primary 80%;
        background: $surface;
    }
    .dialog--title { text-style: bold; margin: 0 0 1 0; }
    .dialog--text { margin: 0 0 1 0; }
    .dialog--buttons { height: auto; align-horizontal: right; }
    Button { margin: 0 0 0 2; }
"""


class RenameDialog(ModalScreen[str | None]):
    """Enter saves the new title (empty: back to the first prompt's line); Esc cancels."""

    DEFAULT_CSS = "RenameDialog {" + DIALOG_CSS + "}"
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "cancel")]

    def __init__(self, title: str) -> None:
        super().__init__()
        self.current = title

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label("Rename conversation", classes="dialog--title")
            yield Input(
                clean_line(self.current), placeholder="empty: use the first prompt", id="title"
            )
            yield Label("Enter saves · Esc cancels", classes="dialog--text", markup=False)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss(event.value.strip())

    def action_cancel(self) -> None:
        self.dismiss(None)


class ConfirmDelete(ModalScreen[bool]):
    """y or the Delete button deletes; n, Esc or Cancel keeps it. Cancel has the focus."""

    DEFAULT_CSS = "ConfirmDelete {" + DIALOG_CSS + "}"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,n", "answer(False)", "keep"),
        Binding("y", "answer(True)", "delete"),
    ]

    def __init__(self, title: str, message_count: int) -> None:
        super().__init__()
        self.conversation_title = title
        self.message_count = message_count

    def compose(self) -> ComposeResult:
        count = self.message_count
        with Vertical():
            yield Label("Delete this conversation?", classes="dialog--title")
            yield Label(Content(clean_line(self.conversation_title) or "(empty)"))
            yield Label(
                Content(
                    f"Its {count} message{'s' if count != 1 else ''} will be removed from the "
                    "history for good."
                ),
                classes="dialog--text",
            )
            yield Label("y deletes · n or Esc keeps it", classes="dialog--text", markup=False)
            with Horizontal(classes="dialog--buttons"):
                yield Button("Delete", variant="error", id="delete")
                yield Button("Cancel", variant="default", id="cancel")

    def on_mount(self) -> None:
        self.query_one("#cancel", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id == "delete")

    def action_answer(self, delete: bool) -> None:
        self.dismiss(delete)


__all__ = ["ConfirmDelete", "RenameDialog"]
