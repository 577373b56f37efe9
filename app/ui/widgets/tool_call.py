"""One card per tool call, built live: the name at once, the raw arguments as they grow, then
pretty-printed JSON when the call closes, or a visible flag when the final text is not JSON."""

from __future__ import annotations

import json

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Static

from app.display.sanitize import clean, clean_line
from app.wire.turn import ToolCall

INVALID_FLAG = "⚠ invalid JSON arguments (shown as sent)"


def pretty_arguments(call: ToolCall) -> str:
    return clean(json.dumps(call.value, indent=2, ensure_ascii=False))


class ToolCallCard(Vertical):
    DEFAULT_CSS = """
    ToolCallCard {
        height: auto;
        border: round $secondary;
        padding: 0 1;
        margin: 0 1 1 1;
        .tool-call--head { color: $text-secondary; text-style: bold; }
        .tool-call--args { color: $foreground; }
        .tool-call--invalid { color: $text-error; text-style: bold; display: none; }
        &.-invalid { border: round $error; }
        &.-invalid .tool-call--invalid { display: block; }
    }
    """

    def __init__(self, call: ToolCall) -> None:
        super().__init__()
        self.call = call
        self._head = Static("", markup=False, classes="tool-call--head")
        self._args = Static("", markup=False, classes="tool-call--args")
        self._flag = Static(INVALID_FLAG, markup=False, classes="tool-call--invalid")
        self._seen: tuple[int, bool, str, str] = (-1, False, "", "")
        self.shown = ""  # the argument text on screen, for tests and copying

    def compose(self) -> ComposeResult:
        yield self._head
        yield self._args
        yield self._flag

    def refresh_from_call(self) -> None:
        """Redraw only when the call changed since the last tick."""
        call = self.call
        seen = (len(call.parts), call.closed, call.name, call.id)
        if seen == self._seen:
            return
        self._seen = seen
        state = "" if call.closed else " …"
        ident = f"  {call.id}" if call.id else ""
        self._head.update(Content(clean_line(f"⚙ {call.name or '(unnamed tool)'}{ident}{state}")))
        if call.closed and not call.invalid_json:
            from textual.highlight import highlight  # Pygments: not on the start-up path

            self.shown = pretty_arguments(call)
            self._args.update(highlight(self.shown, language="json"))
            return
        self.set_class(call.closed, "-invalid")
        self.shown = clean(call.arguments)
        self._args.update(Content(self.shown))


__all__ = ["INVALID_FLAG", "ToolCallCard", "pretty_arguments"]
