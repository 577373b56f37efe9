"""The approval row on an MCP tool's card: Run · Always for this tool · Always for this server ·
Deny · Edit arguments, one key each (underlined in the row, and in the footer while it has
focus). The row only collects the choice (`answer`); the tool loop's ApprovalPolicy remembers
the "always" ones."""

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


class ApprovalRow(Static, can_focus=True):
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
        super().__init__(row_content() + Content("\n" + KEYS_HINT).stylize("$text-muted"))
        self.answer: asyncio.Future[Choice] = asyncio.get_running_loop().create_future()

    def action_choose(self, choice: str) -> None:
        if not self.answer.done():
            self.answer.set_result(Choice(choice))


PROBLEM_TEXT = "Send this error back as the result  ·  Leave the call unanswered"
PROBLEM_HINT = "keys: Enter or b sends it back · l leaves it (the loop stops) · Esc stops"


class ProblemRow(Static, can_focus=True):
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
        super().__init__(
            Content(PROBLEM_TEXT) + Content("\n" + PROBLEM_HINT).stylize("$text-muted")
        )
        self.answer: asyncio.Future[bool] = asyncio.get_running_loop().create_future()

    def action_choose(self, send: bool) -> None:
        if not self.answer.done():
            self.answer.set_result(send)


__all__ = [
    "KEYS_HINT",
    "PROBLEM_TEXT",
    "ROW_TEXT",
    "ApprovalRow",
    "ProblemRow",
    "row_content",
]
