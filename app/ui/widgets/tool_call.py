"""One card per tool call, built live: the name at once, the raw arguments as they grow, then
pretty-printed JSON when the call closes, or a visible flag when the final text is not JSON.

Once the turn is over the card gets the call's outcome (`ToolOutcome`, below the arguments):
an approval row or an editor while the tool loop waits for the user, a spinner with the time
while a server runs it, then the result, shown as literal text (collapsed when long)."""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, ClassVar, TypeVar

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Static

from app.display.sanitize import clean, clean_line
from app.wire.turn_status import TurnStatus

if TYPE_CHECKING:  # the outcome's rows and editor are loaded when a tool is first answered
    from app.tools.approval import Choice
    from app.ui.widgets.tool_result_editor import EditorText
    from app.wire.tools import ToolResult
    from app.wire.turn import ToolCall, Turn

FOUND_STYLE = "on $warning 35%"  # as an answer's matches (app/ui/widgets/markdown_view.py)
CURRENT_STYLE = "bold $background on $warning"
INVALID_FLAG = "⚠ invalid JSON arguments (shown as sent)"
PREVIEW_LINES = 8  # a longer result shows its start only, with its size
PREVIEW_CHARS = 1200
EXPANDED_CHARS = 64 * 1024  # drawn of a result opened by a click (the model got all of it)
SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
ASKING = "-tool-asking"  # an approval row or editor waiting for the user
DRAFTING = "A tool call waits for your answer: shift+tab reaches it (your draft stays)."
_T = TypeVar("_T")


def json_note(text: str) -> str:
    """Whether a result is JSON (it may be either; the model is told nothing)."""
    try:
        json.loads(text)
    except ValueError:
        return "text"
    return "JSON"


def tool_round(turn: Turn) -> bool:
    """A turn whose every call got its result: the tool loop went on after it."""
    calls = [c for c in turn.tool_calls if c.name]
    return turn.status is TurnStatus.COMPLETE and bool(calls) and all(c.result for c in calls)


def _drafting(focused: Widget | None) -> bool:
    """The user is typing in the prompt (a text area with text that is not ours)."""
    from textual.widgets import TextArea

    return isinstance(focused, TextArea) and bool(focused.text) and not focused.has_class(ASKING)


def size_text(count: int) -> str:
    if count >= 1024 * 1024:
        return f"{count / (1024 * 1024):.1f} MiB"
    if count >= 1024:
        return f"{count / 1024:.1f} KiB"
    return f"{count} B"


def result_head(result: ToolResult) -> tuple[str, bool]:
    """`↳ result · mcp · JSON · 29 B` (or `✖ error result`), and whether the body is cut."""
    from app.wire.tools import ResultOrigin  # loaded with the first result, not at start-up

    size = result.size or len(result.content.encode("utf-8", "replace"))
    lines = result.content.count("\n") + 1
    long = is_long(result.content)
    kind = "✖ error result" if result.is_error else "↳ result"
    parts = [kind, result.origin.value]
    if result.origin is not ResultOrigin.TRIPTYCH:
        parts.append(json_note(result.content))
    parts.append(size_text(size))
    if long:
        parts.append(f"{lines} lines")
    if result.arguments is not None:
        parts.append("run with edited arguments")
    return "  ·  ".join(parts), long


def is_long(content: str) -> bool:
    """A result shown by its start only until it is opened."""
    return (
        len(content) > PREVIEW_CHARS or content.count("\n", 0, PREVIEW_CHARS * 2) >= PREVIEW_LINES
    )


def result_preview(content: str) -> str:
    """The start of a long result: PREVIEW_LINES lines, at most PREVIEW_CHARS characters."""
    lines = content[: PREVIEW_CHARS * 2].split("\n")[:PREVIEW_LINES]
    shown = "\n".join(lines)[:PREVIEW_CHARS]
    return shown + ("…" if len(shown) < len(content) else "")


def result_expanded(content: str) -> str:
    """A long result opened: up to EXPANDED_CHARS characters, and how much more there is."""
    if len(content) <= EXPANDED_CHARS:
        return content
    rest = size_text(len(content[EXPANDED_CHARS:].encode("utf-8", "replace")))
    return content[:EXPANDED_CHARS] + f"\n… {rest} more, not drawn (the model got all of it)"


def pretty_arguments(call: ToolCall) -> str:
    return clean(json.dumps(call.value, indent=2, ensure_ascii=False))


def shown_arguments(call: ToolCall) -> str:
    """The arguments as the card shows them: pretty JSON once the call closed valid, else
    as sent."""
    if call.closed and not call.invalid_json:
        return pretty_arguments(call)
    return clean(call.arguments)


def searchable_result(result: ToolResult) -> str:
    """A result as the find bar searches it: as drawn, and a long one as drawn opened."""
    content = result.content
    return clean(result_expanded(content) if is_long(content) else content)


def call_find_parts(call: ToolCall) -> list[str]:
    """What the find bar searches in a call's card, from the call alone (a stored one not
    drawn yet): its arguments and its result, as `ToolCallCard.find_parts` gives them."""
    return [shown_arguments(call), "" if call.result is None else searchable_result(call.result)]


Marks = tuple[re.Pattern[str], int | None]  # the find bar's pattern, and the current match


def marked(content: Content, text: str, marks: Marks | None) -> Content:
    """`content` (drawn from `text`) with the find bar's matches highlighted."""
    if marks is None:
        return content
    pattern, current = marks
    for nth, match in enumerate(pattern.finditer(text)):
        content = content.stylize(CURRENT_STYLE if nth == current else FOUND_STYLE, *match.span())
    return content


def match_row(text: str, marks: Marks) -> int:
    """The line of `text` the current match starts on."""
    pattern, current = marks
    for nth, match in enumerate(pattern.finditer(text)):
        if nth == current:
            return text.count("\n", 0, match.start())
    return 0


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
        &.-answered { border: round $success; }
        &.-failed { border: round $error; }
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
        self.outcome = ToolOutcome()
        self._marks: Marks | None = None  # the find bar's, on the arguments

    def compose(self) -> ComposeResult:
        yield self._head
        yield self._args
        yield self._flag
        yield self.outcome

    def show_result(self, result: ToolResult) -> None:
        self.set_class(not result.is_error, "-answered")
        self.set_class(result.is_error, "-failed")
        self.outcome.show_result(result)

    def refresh_from_call(self) -> None:
        """Redraw only when the call changed since the last tick; a result the call already
        has (a reopened conversation's) is shown with it."""
        call = self.call
        if call.result is not None and not self.outcome.answered:
            self.show_result(call.result)
        seen = (len(call.parts), call.closed, call.name, call.id)
        if seen == self._seen:
            return
        self._seen = seen
        state = "" if call.closed else " …"
        ident = f"  {call.id}" if call.id else ""
        self._head.update(Content(clean_line(f"⚙ {call.name or '(unnamed tool)'}{ident}{state}")))
        self._draw_arguments()

    def _draw_arguments(self) -> None:
        call = self.call
        self.shown = shown_arguments(call)
        if call.closed and not call.invalid_json:
            from textual.highlight import highlight  # Pygments: not on the start-up path

            drawn = highlight(self.shown, language="json")
            self._args.update(marked(drawn, self.shown, self._marks))
            return
        self.set_class(call.closed, "-invalid")
        self._args.update(marked(Content(self.shown), self.shown, self._marks))

    # -- find ---------------------------------------------------------------------------------

    def find_parts(self) -> list[str]:
        """What the find bar searches in the card: the arguments as shown, and the result
        whole, as far as opening it draws (a match in a long result's hidden part opens it)."""
        return [self.shown, self.outcome.searchable]

    def show_found(
        self, pattern: re.Pattern[str] | None, current: tuple[int, int] | None = None
    ) -> None:
        """`current`: (piece, match in it), pieces counted as `find_parts` counts them."""
        if pattern is None and self._marks is None and not self.outcome.marked:
            return  # nothing to take off
        in_args = current[1] if current is not None and current[0] == 0 else None
        in_result = current[1] if current is not None and current[0] == 1 else None
        self._marks = None if pattern is None else (pattern, in_args)
        self._draw_arguments()
        self.outcome.show_found(None if pattern is None else (pattern, in_result))

    def match_place(self, piece: int) -> tuple[Widget, int]:
        """Where the current match of `piece` is drawn: the widget and its row there. A long
        result is opened first, if it is not open yet."""
        if piece == 0:
            return self._args, match_row(self.shown, self._marks) if self._marks else 0
        return self.outcome.match_place()


class ToolOutcome(Vertical):
    """What became of the call: asked, running, answered. Literal text only."""

    DEFAULT_CSS = """
    ToolOutcome {
        height: auto;
        .tool-outcome--problem { color: $text-warning; text-style: bold; }
        .tool-outcome--running { color: $text-accent; }
        .tool-outcome--head { color: $text-success; text-style: bold; }
        .tool-outcome--head.-error { color: $text-error; }
        .tool-outcome--body { color: $foreground; }
    }
    """

    def __init__(self) -> None:
        super().__init__()
        self._problem = Static("", markup=False, classes="tool-outcome--problem")
        self._spinner = Static("", markup=False, classes="tool-outcome--running")
        self._head = ResultHead(self.toggle)
        self._body = Static("", markup=False, classes="tool-outcome--body")
        for part in (self._problem, self._spinner, self._head, self._body):
            part.display = False
        self._timer: Timer | None = None
        self._started = 0.0
        self._what = ""
        self.result_text = ""  # the result as shown, for tests
        self.head_text = ""
        self.answered = False
        self.expanded = False
        self._result: ToolResult | None = None
        self._long = False
        self._marks: Marks | None = None  # the find bar's, on the result
        self._searchable: tuple[ToolResult | None, str] = (None, "")

    def compose(self) -> ComposeResult:
        yield self._problem
        yield self._spinner
        yield self._head
        yield self._body

    async def ask(self, widget: Widget, answer: asyncio.Future[_T], *, focus: bool = False) -> _T:
        """Mount `widget` here until `answer` is set, then remove it.

        It takes the focus only with `focus` (the arguments editor, which the user just asked
        for). A row or a result editor that comes by itself appears while the user may be
        typing the next prompt, empty or not, and a key meant for the prompt must never answer
        it (`t` of "tell me more" was "Always for this tool"): it is answered with the screen's
        Alt chords (app/ui/screens/tool_keys.py), or its own keys once the user moves to it
        (shift+tab, a click). Answered with the focus on it, the focus goes back to the prompt,
        not on to another call waiting: the next keys may be the next prompt's."""
        screen = self.screen
        widget.add_class(ASKING)
        await self.mount(widget)
        if focus:
            widget.focus()
        elif _drafting(screen.focused):
            self.app.notify(DRAFTING, timeout=6, markup=False)
        widget.scroll_visible()
        try:
            return await answer
        finally:
            focused = screen.focused is widget
            # Hidden first, removed after the next refresh: a widget pruned while the
            # compositor still holds it would be drawn without its styles (a TextArea raises).
            widget.display = False
            widget.remove_class(ASKING)
            self.call_after_refresh(widget.remove)
            if focused:
                prompt = screen.query("#prompt")
                if prompt:
                    prompt.first().focus()

    async def approval(self) -> Choice:
        from app.ui.widgets.tool_approval import ApprovalRow

        row = ApprovalRow()
        return await self.ask(row, row.answer)

    async def edited_arguments(self, arguments: str, problem: str | None = None) -> str:
        """The arguments to run with; `problem`: why the last ones typed cannot run (said
        above the editor, which opens again with them)."""
        from app.ui.widgets.tool_result_editor import ToolTextEditor

        if problem is not None:
            self.note("⚠ " + problem)
        editor = ToolTextEditor(arguments, result=False, invalid=problem is not None)
        try:
            return (await self.ask(editor, editor.answer, focus=True)).text
        finally:
            if problem is not None:
                self.clear_note()

    async def manual_result(self) -> EditorText:
        from app.ui.widgets.tool_result_editor import ToolTextEditor

        editor = ToolTextEditor()
        return await self.ask(editor, editor.answer)

    async def problem(self, problem: str) -> bool:
        """Say what is wrong with the call; True when the user sends it back as the result."""
        from app.ui.widgets.tool_approval import ProblemRow

        self.note("⚠ " + problem)
        row = ProblemRow()
        return await self.ask(row, row.answer)

    def note(self, text: str) -> None:
        self._problem.update(Content(clean(text)))
        self._problem.display = True

    def clear_note(self) -> None:
        self._problem.display = False

    def running(self, what: str) -> None:
        self._started = time.monotonic()
        self._what = what
        self._spinner.display = True
        self._spin()
        self._timer = self.set_interval(0.1, self._spin)

    def _spin(self) -> None:
        elapsed = time.monotonic() - self._started
        frame = SPINNER[int(elapsed * 10) % len(SPINNER)]
        self._spinner.update(Content(f"{frame} {self._what} {elapsed:.1f} s · Esc cancels"))

    def stopped_running(self) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        self._spinner.display = False

    def show_result(self, result: ToolResult) -> None:
        self.answered = True
        self._result = result
        self.stopped_running()
        self._draw_result()

    def _draw_result(self) -> None:
        result = self._result
        if result is None:
            return
        head, self._long = result_head(result)
        if self._long:
            head += "  ·  Enter or click: " + ("collapse" if self.expanded else "show more")
        self.head_text = head
        self._head.update(Content(head))
        self._head.can_focus = self._long  # shift+tab reaches it from the prompt
        self._head.set_class(result.is_error, "-error")
        self._head.display = True
        content = result.content
        if self._long:
            content = result_expanded(content) if self.expanded else result_preview(content)
        self.result_text = clean(content)
        self._body.update(marked(Content(self.result_text), self.result_text, self._marks))
        self._body.display = bool(self.result_text)

    @property
    def searchable(self) -> str:
        """The result as the find bar searches it: as drawn once opened, if it is long."""
        result = self._result
        if result is None:
            return ""
        if self._searchable[0] is not result:  # once per result: counted again 4 times a second
            self._searchable = (result, searchable_result(result))
        return self._searchable[1]

    @property
    def marked(self) -> bool:
        return self._marks is not None

    def show_found(self, marks: Marks | None) -> None:
        self._marks = marks
        self._draw_result()

    def match_place(self) -> tuple[Widget, int]:
        """The result's body and the row of its current match, the result opened for it."""
        if self._long and not self.expanded:
            self.toggle()
        return self._body, match_row(self.result_text, self._marks) if self._marks else 0

    def on_click(self, event: events.Click) -> None:
        """A long result opens (up to EXPANDED_CHARS) and closes on a click."""
        if self._long and event.widget in (self._head, self._body):
            event.stop()
            self.toggle()

    def toggle(self) -> None:
        """Open or close a long result."""
        if self._long:
            self.expanded = not self.expanded
            self._draw_result()
            self._head.scroll_visible()


class ResultHead(Static):
    """A result's head line; a long result's takes the focus (a click, shift+tab from the
    prompt) and Enter opens or closes the result, as a click does."""

    DEFAULT_CSS = """
    ResultHead:focus { background: $primary 20%; }
    """
    KEY_GROUP: ClassVar[str] = "Tool result"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "open_close", "show more / collapse"),
        Binding("space", "open_close", "show more / collapse", show=False),
    ]

    def __init__(self, toggle: Callable[[], None]) -> None:
        super().__init__("", markup=False, classes="tool-outcome--head")
        self.can_focus = False  # until the result is long
        self._toggle = toggle

    def action_open_close(self) -> None:
        self._toggle()


__all__ = [
    "INVALID_FLAG",
    "ResultHead",
    "ToolCallCard",
    "ToolOutcome",
    "call_find_parts",
    "pretty_arguments",
    "result_head",
    "size_text",
    "tool_round",
]
