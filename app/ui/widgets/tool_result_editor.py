"""The inline editor on a tool card: a result typed by hand for a `[tools]` call (JSON or plain
text; ctrl+e marks it as an error result), or a call's arguments edited before it runs.

Keys as in the prompt: Enter sends, ctrl+j inserts a newline. The editor only collects the text
(`answer`); what it means is the card's and the tool loop's business. A result editor appears by
itself and never takes the focus (what the user types for the prompt must not become the tool's
result): its title says how to reach it until it has the focus.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import ClassVar

from textual import events
from textual.binding import Binding, BindingType
from textual.widgets import TextArea

from app.ui.widgets.prompt import NEWLINE_KEYS

REACH_TITLE = "a result for this call: shift+tab or a click here, then type it · Enter sends"


@dataclass(frozen=True, slots=True)
class EditorText:
    text: str
    is_error: bool = False


class ToolTextEditor(TextArea):
    DEFAULT_CSS = """
    ToolTextEditor {
        height: auto;
        min-height: 3;
        max-height: 12;
        border: tall $accent 50%;
        &:focus { border: tall $accent; }
        &.-error { border: tall $error; }
    }
    """
    KEY_GROUP: ClassVar[str] = "Tool editor"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "submit", "send"),
        Binding("ctrl+j", "newline", "newline", key_display="ctrl+j"),
        Binding("ctrl+e", "toggle_error", "error result", priority=True),
    ]

    def __init__(self, text: str = "", *, result: bool = True, invalid: bool = False) -> None:
        """`result`: a tool result (ctrl+e applies); else a call's arguments (`invalid`: the
        ones typed last, which are not a JSON object, to fix)."""
        super().__init__(text, soft_wrap=True, tab_behavior="focus", show_line_numbers=False)
        self.result = result
        self.invalid = invalid
        self.set_class(invalid, "-error")
        self.is_error = False
        self.answer: asyncio.Future[EditorText] = asyncio.get_running_loop().create_future()
        self._title()

    def on_focus(self) -> None:
        self._title(True)

    def on_blur(self) -> None:
        self._title(False)

    def _title(self, focused: bool | None = None) -> None:
        """`focused`: the editor is getting the focus or losing it (its own `has_focus` changes
        after these handlers)."""
        here = self.has_focus if focused is None else focused
        if self.result and not here:
            self.border_title = REACH_TITLE
        elif self.result:
            kind = "an error result" if self.is_error else "the result"
            other = "result" if self.is_error else "error"
            self.border_title = (
                f"type {kind} (JSON or text) · Enter sends · ctrl+j newline · ctrl+e: {other}"
            )
        else:
            what = "fix the arguments" if self.invalid else "the arguments to run with"
            self.border_title = f"{what} (a JSON object) · Enter runs"

    async def _on_key(self, event: events.Key) -> None:
        if event.key == "enter":
            event.prevent_default()  # left to the binding
        elif event.key in NEWLINE_KEYS:
            event.stop()
            event.prevent_default()
            self.insert("\n")

    def action_newline(self) -> None:
        self.insert("\n")

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """ctrl+e is for a result only: not in the footer while editing arguments."""
        if action == "toggle_error" and not self.result:
            return False
        return super().check_action(action, parameters)

    def action_toggle_error(self) -> None:
        if not self.result:
            return
        self.is_error = not self.is_error
        self.set_class(self.is_error, "-error")
        self._title()

    def action_submit(self) -> None:
        if not self.answer.done():
            self.answer.set_result(EditorText(self.text, self.is_error))


__all__ = ["REACH_TITLE", "EditorText", "ToolTextEditor"]
