"""Answering a tool call without leaving the prompt: Alt chords (mixed into the chat and the
comparison screens).

An approval row or a result editor appears when the model calls a tool, which may be while the
user types the next prompt; it never takes the focus (app/ui/widgets/tool_call.py), so a key meant
for the prompt never answers it. These chords, which no typing sends, answer the waiting row from
anywhere; its plain keys (r, t, s, d, e; b, l) work once the user has moved to it (shift+tab, a
click). Each applies only while such a row waits; with several (a comparison's panes), the
focused one, else the first on screen.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any, TypeVar, cast

from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widget import Widget

from app.ui.widgets.tool_call import ASKING

if TYPE_CHECKING:  # loaded with the first tool call, not at start-up (app/ui/widgets/tool_call.py)
    from app.ui.widgets.tool_approval import ApprovalRow, ProblemRow

_W = TypeVar("_W", bound=Widget)

TOOL_BINDINGS: list[BindingType] = [
    Binding("alt+r", "tool_choice('run')", "run", priority=True, tooltip="the waiting tool call"),
    Binding("alt+t", "tool_choice('always_tool')", "always: tool", priority=True),
    Binding("alt+s", "tool_choice('always_server')", "always: server", priority=True),
    Binding("alt+d", "tool_choice('deny')", "deny", priority=True),
    Binding("alt+e", "tool_choice('edit')", "edit arguments", priority=True),
    Binding("alt+b", "tool_problem(True)", "send the error back", priority=True),
    Binding("alt+l", "tool_problem(False)", "leave it", priority=True),
]
TOOL_ACTIONS = frozenset({"tool_choice", "tool_problem"})


def waiting(screen: Screen[Any], kind: type[_W]) -> _W | None:
    """The row of `kind` waiting for an answer: the focused one, else the first on screen."""
    rows = [w for w in screen.query(f".{ASKING}") if isinstance(w, kind) and w.display]
    focused = screen.focused
    return next((row for row in rows if row is focused), next(iter(rows), None))


class ToolKeys:
    """The screen's Alt chords for the waiting tool call's row."""

    def tool_action_applies(self, action: str) -> bool | None:
        """`check_action` for the chords; None for an action that is not one of them."""
        if action not in TOOL_ACTIONS:
            return None
        if "app.ui.widgets.tool_approval" not in sys.modules:
            return False  # no row was ever drawn; the footer's first look must not load the tools
        from app.ui.widgets.tool_approval import ApprovalRow, ProblemRow

        kind = ApprovalRow if action == "tool_choice" else ProblemRow
        return waiting(cast(Screen[Any], self), kind) is not None

    def action_tool_choice(self, choice: str) -> None:
        from app.ui.widgets.tool_approval import ApprovalRow

        row: ApprovalRow | None = waiting(cast(Screen[Any], self), ApprovalRow)
        if row is not None:
            row.action_choose(choice)

    def action_tool_problem(self, send: bool) -> None:
        from app.ui.widgets.tool_approval import ProblemRow

        row: ProblemRow | None = waiting(cast(Screen[Any], self), ProblemRow)
        if row is not None:
            row.action_choose(send)


__all__ = ["TOOL_BINDINGS", "ToolKeys", "waiting"]
