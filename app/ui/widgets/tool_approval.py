"""The approval row on an MCP tool's card: Run · Always for this tool · Always for this server ·
Deny · Edit arguments, one key each (underlined in the row, and in the footer while it has
focus). The row only collects the choice (`answer`); the tool loop's ApprovalPolicy remembers
the "always" ones.

The row never takes the focus (a key typed for the prompt must not answer it): its hint line
names the screen's Alt chords while the focus is elsewhere (app/ui/screens/tool_keys.py), and its
plain keys once the user has moved to it."""

from __future__ import annotations

import asyncio
from typing import ClassVar

from textual.binding import Binding, BindingType
from textual.content import Content
from textual.widgets import Static

from app.tools.approval import Choice

SEPARATOR = "  ·  "
# Each option with the index of its key's letter in it.
OPTIONS: tuple[tuple[Choice, str, int], ...] = (
    (Choice.RUN, "Run", 0),
    (Choice.ALWAYS_TOOL, "Always for this tool", 16),
    (Choice.ALWAYS_SERVER, "Always for this server", 16),
    (Choice.DENY, "Deny", 0),
    (Choice.EDIT, "Edit arguments", 0),
)
ROW_TEXT = SEPARATOR.join(label for _, label, _ in OPTIONS)
KEYS_HINT = "keys: r run · t always tool · s always server · d deny · e edit · Esc stops"
ALT_HINT = (
    "keys: alt+r run · alt+t always tool · alt+s always server · alt+d deny · alt+e edit"
    "\nor shift+tab to this row: r t s d e · Esc stops"
)


class HintedRow(Static, can_focus=True):
    """A row whose hint line names the keys that answer it from where the focus is."""

    def __init__(self, text: Content, hint: str, alt_hint: str) -> None:
        super().__init__()
        self._text = text
        self._hints = {True: hint, False: alt_hint}
        self._say(False)

    def _say(self, focused: bool) -> None:
        self.update(self._text + Content("\n" + self._hints[focused]).stylize("$text-muted"))

    def on_focus(self) -> None:
        self._say(True)

    def on_blur(self) -> None:
        self._say(False)


def row_content() -> Content:
    """The row, exactly ROW_TEXT, with each option's key letter underlined."""
    parts: list[Content] = []
    for _, label, at in OPTIONS:
        parts.append(
            Content.assemble(
                label[:at], (label[at], "bold underline $text-accent"), label[at + 1 :]
            )
        )
    return Content(SEPARATOR).join(parts)


class ApprovalRow(HintedRow):
    DEFAULT_CSS = """
    ApprovalRow {
        height: auto;
        padding: 0 1;
        background: $boost;
        border-left: blank;
        &:focus { background: $primary 20%; border-left: thick $accent; }
    }
    """
    KEY_GROUP: ClassVar[str] = "Tool approval"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("r", "choose('run')", "run"),
        Binding("enter", "choose('run')", "run", show=False),
        Binding("t", "choose('always_tool')", "always: tool"),
        Binding("s", "choose('always_server')", "always: server"),
        Binding("d", "choose('deny')", "deny"),
        Binding("e", "choose('edit')", "edit arguments"),
    ]

    def __init__(self) -> None:
        super().__init__(row_content(), KEYS_HINT, ALT_HINT)
        self.answer: asyncio.Future[Choice] = asyncio.get_running_loop().create_future()

    def action_choose(self, choice: str) -> None:
        if not self.answer.done():
            self.answer.set_result(Choice(choice))


PROBLEM_TEXT = "Send this error back as the result  ·  Leave the call unanswered"
PROBLEM_HINT = "keys: Enter or b sends it back · l leaves it (the loop stops) · Esc stops"
PROBLEM_ALT_HINT = (
    "keys: alt+b sends it back · alt+l leaves it (the loop stops)"
    "\nor shift+tab to this row: Enter or b, l · Esc stops"
)


class ProblemRow(HintedRow):
    """A call that cannot run as the model wrote it: send Triptych's error back, or not."""

    DEFAULT_CSS = """
    ProblemRow {
        height: auto;
        padding: 0 1;
        background: $boost;
        border-left: blank;
        &:focus { background: $warning 20%; border-left: thick $accent; }
    }
    """
    KEY_GROUP: ClassVar[str] = "Tool approval"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("b", "choose(True)", "send the error back"),
        Binding("enter", "choose(True)", "send it back", show=False),
        Binding("l", "choose(False)", "leave it"),
    ]

    def __init__(self) -> None:
        super().__init__(Content(PROBLEM_TEXT), PROBLEM_HINT, PROBLEM_ALT_HINT)
        self.answer: asyncio.Future[bool] = asyncio.get_running_loop().create_future()

    def action_choose(self, send: bool) -> None:
        if not self.answer.done():
            self.answer.set_result(send)


__all__ = [
    "ALT_HINT",
    "KEYS_HINT",
    "PROBLEM_ALT_HINT",
    "PROBLEM_HINT",
    "PROBLEM_TEXT",
    "ROW_TEXT",
    "ApprovalRow",
    "ProblemRow",
    "row_content",
]
